import Foundation
import Logging
import ServiceLifecycle
import Sluice
import SluiceTestSupport
import Testing

@testable import SluiceInspector

/// An inspector stops when it is dropped, or when the task running it as a `Service` ends: its
/// port closes (its token is dead) and the lane takes a new inspector. The time limits are hang
/// guards: their expiry means a server that never stops.
@Suite struct InspectorLifetimeTests {
  @Test(.timeLimit(.minutes(1))) func aDroppedInspectorClosesItsPortAndItsClients()
    async throws
  {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    var inspector: Inspector? = try await Inspector.start(store.dispatcher)
    let port = try #require(inspector?.port)
    let server = try #require(inspector?.server)
    let client = try await InspectorConnection.open(
      try #require(inspector?.webSocketURL.absoluteString))
    inspector = nil
    #expect(await Self.stops(server))
    try await client.closedByServer()
    #expect(await RawHTTP.upgradeStatus(port: port, target: "/ws") == nil)
    let next = try await Inspector.start(store.dispatcher)
    await next.stop()
  }

  @Test(.timeLimit(.minutes(1))) func anInspectorDroppedWhileTheLaneIsHeldStopsListening()
    async throws
  {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    var inspector: Inspector? = try await Inspector.start(store.dispatcher)
    let port = try #require(inspector?.port)
    let server = try #require(inspector?.server)
    let held = store.dispatcher.pause("held by the test")
    inspector = nil
    #expect(await Self.stops(server))
    #expect(await RawHTTP.upgradeStatus(port: port, target: "/ws") == nil)
    held.release()
    // The detachment ran once the lane was free: the lane takes another inspector.
    let next = try await Inspector.start(store.dispatcher)
    await next.stop()
  }

  @Test(.timeLimit(.minutes(1))) func runServesUntilItsTaskIsCancelled() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(store.dispatcher)
    let running = Task { await inspector.run() }
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    running.cancel()
    await running.value
    try await client.closedByServer()
    #expect(await RawHTTP.upgradeStatus(port: inspector.port, target: "/ws") == nil)
    let next = try await Inspector.start(store.dispatcher)
    await next.stop()
  }

  @Test(.timeLimit(.minutes(1))) func aServiceGroupStopsItOnGracefulShutdown() async throws {
    let store = Store(initialState: TodoState(), reducer: todoReducer)
    let inspector = try await Inspector.start(store.dispatcher)
    var logger = Logger(label: "inspector-test")
    logger.logLevel = .critical
    let group = ServiceGroup(services: [inspector], logger: logger)
    let running = Task { try await group.run() }
    let client = try await InspectorConnection.open(inspector.webSocketURL.absoluteString)
    await group.triggerGracefulShutdown()
    try await running.value
    try await client.closedByServer()
    #expect(await RawHTTP.upgradeStatus(port: inspector.port, target: "/ws") == nil)
  }

  /// Whether `server` stops within the hang guard (its expiry means a server that never stops).
  static func stops(_ server: InspectorServer) async -> Bool {
    let (outcome, report) = AsyncStream.makeStream(of: Bool.self)
    Task {
      await server.stopped()
      report.yield(true)
    }
    let guarding = Task {
      try? await Task.sleep(for: hangGuard)
      report.yield(false)
    }
    defer { guarding.cancel() }
    // Cancelled (past the test's time limit), the wait ends with no answer: not stopped.
    for await stopped in outcome { return stopped }
    return false
  }
}
