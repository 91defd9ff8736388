import Logging
import PostgresNIO
import Sluice
import Synchronization

/// The engine's one listening connection: it runs `LISTEN sluice_log`, wakes the waits of the
/// lane each notification names, tells the engine whether the server is there, and holds the
/// claims on node names (session advisory locks, which the server releases when the session
/// ends, a dead process's included).
///
/// Notifications are a wake-up, not a record: one sent while the connection was down is lost.
/// So every change of the connection (lost, back) wakes every wait, which then looks at the log
/// at once, and while the connection is down a wait looks now and then (``PostgresLogEngine``).
/// While it is up, a wait relies on the notifications. Every 30 s the listener reads the heads
/// of the quiet lanes (below) on it, in one query bounded by the engine's timeout: a lane whose
/// head moved without a notification (its appender died between its commit and its
/// notification) is woken, and a connection that died unnoticed is closed. One query per
/// engine, not per lane.
///
/// A lane whose head a wait read while the connection was up stays *quiet* until a
/// notification of it, or a change of the connection: the engine answers its waits and reads
/// after that head without asking the server (``isQuiet(_:after:)``), so an idle lane costs no
/// query.
///
/// The connection opens with the engine's first operation, and creates the log's tables when
/// they are missing (``LogSchema/setUp``). When it is lost, it is opened again at once; when
/// that fails, or does not listen within the engine's timeout (the attempt is then given up,
/// its connection closed), an operation waiting for it fails at once too if the attempt began
/// after the operation came (``ready(_:endpoint:since:)``), and the next attempt comes after a
/// pause of 50 ms, doubling up to 1 s, on the configuration's clock, or as soon as an operation
/// asks for one. When the connection is back after a failed attempt, `recovered` runs (the
/// engine renews its pool). Each time it opens, it takes the claims it held again; a claim
/// another session took meanwhile is lost (``isLost(_:of:)``).
final class LogListener: Sendable {
  /// Where the listening connection stands.
  enum Phase {
    /// Not opened yet.
    case idle
    /// An attempt to open it is under way.
    case connecting
    /// Listening.
    case up
    /// The last attempt failed, with this error.
    case down(any Error)
    /// Stopped for good (the engine was closed).
    case stopped
  }

  /// What a wait saw when it looked at the listener: when either number moved since, something
  /// happened that the wait must look at the log for.
  struct Token: Equatable {
    fileprivate var epoch: UInt64
    fileprivate var lane: UInt64
    /// Whether notifications could arrive when the token was taken.
    var isListening: Bool
  }

  struct Lane {
    var generation: UInt64 = 0
    var watchers = 0
    /// The lane's head, read after `token` was taken, while nothing moved the token since.
    var quiet: (head: UInt64, token: Token)?
  }

  struct Claim: Hashable {
    var node: String
    var lane: String
  }

  /// A session of the listening connection, as the server names it.
  struct Session: Equatable {
    var pid: Int32
    var start: String
  }

  struct Waiter {
    var lane: String
    var continuation: CheckedContinuation<Void, Never>
  }

  struct State {
    var phase = Phase.idle
    /// The number of the latest attempt to open the connection.
    var attempt: UInt64 = 0
    /// Moves at every change of phase, every request for an attempt and at the stop.
    var epoch: UInt64 = 0
    /// The lanes some wait watches, with the number of notifications each got meanwhile.
    var lanes: [String: Lane] = [:]
    var waiters: [Int: Waiter] = [:]
    var nextWaiter = 0
    var loop: Task<Void, Never>?
    /// An operation asked for an attempt now.
    var isRequested = false
    /// The last attempt failed: the next connection that opens is a recovery.
    var wasDown = false
    /// The log's tables exist: the first connection made them (``LogSchema/setUp``).
    var hasSchema = false
    /// The open connection, while it listens.
    var connection: PostgresConnection?
    /// The node names this engine holds, and those another session took while the connection
    /// was down.
    var claims: Set<Claim> = []
    var lost: Set<Claim> = []
    /// The listening sessions that may still hold claims: the server may run a session after
    /// its connection closed (a network that dropped it, an attempt given up at its deadline).
    /// Each attempt adds its own, and drops the earlier ones once it took every claim back.
    var sessions: [Session] = []
  }

  let configuration: PostgresLogEngine.Configuration
  private let recovered: @Sendable () -> Void
  let state = Guarded(State())

  /// The key of the waits that only watch the connection's phase; no lane has an empty name.
  private static let phaseOnly = ""
  /// The first pause after a failed attempt, and the longest.
  static let firstPause = Duration.milliseconds(50)
  static let longestPause = Duration.seconds(1)
  /// The pause between two checks that the server answers on the listening connection.
  static let heartbeat = Duration.seconds(30)

  init(
    configuration: PostgresLogEngine.Configuration, recovered: @escaping @Sendable () -> Void
  ) {
    self.configuration = configuration
    self.recovered = recovered
  }

  deinit {
    state.withLock { $0.loop?.cancel() }
  }

  /// A token for `lane`'s waits; opens the connection on the first call.
  func observe(_ lane: String) -> Token {
    state.withLock { state in
      startIfNeeded(&state)
      return Self.token(state, lane)
    }
  }

  /// Counts a wait that watches `lane` until ``unwatch(_:)``: notifications of lanes nobody
  /// watches cost nothing.
  func watch(_ lane: String) {
    state.withLock { $0.lanes[lane, default: Lane()].watchers += 1 }
  }

  /// Ends a ``watch(_:)``. A quiet lane stays counted: a notification of it ends its quiet.
  func unwatch(_ lane: String) {
    state.withLock { state in
      state.lanes[lane]?.watchers -= 1
      Self.forgetIfIdle(lane, &state)
    }
  }

  /// Notes that `lane`'s head was `head`, read after `token` was taken while the lane was
  /// watched: while no notification of the lane and no change of the connection come, it has
  /// no entry after `head`. Nothing when the connection did not listen or the token moved.
  func noteQuiet(_ lane: String, head: UInt64, since token: Token) {
    guard token.isListening else { return }
    state.withLock { state in
      guard state.lanes[lane] != nil, Self.token(state, lane) == token else { return }
      state.lanes[lane]?.quiet = (head, token)
    }
  }

  /// Whether `lane` is known to have no entry after `sequence`: its quiet head is at most
  /// `sequence`, and no notification of it and no change of the connection came since.
  func isQuiet(_ lane: String, after sequence: UInt64) -> Bool {
    state.withLock { state in
      guard let quiet = state.lanes[lane]?.quiet else { return false }
      return quiet.head <= sequence && quiet.token == Self.token(state, lane)
    }
  }

  /// Ends `lane`'s quiet, when this engine appended to it: its own reads see the append at
  /// once, without waiting for the notification.
  func disturb(_ lane: String) {
    state.withLock { state in
      state.lanes[lane]?.quiet = nil
      Self.forgetIfIdle(lane, &state)
    }
  }

  /// Stops counting `lane`'s notifications when no wait watches it and it is not quiet.
  static func forgetIfIdle(_ lane: String, _ state: inout State) {
    guard let entry = state.lanes[lane], entry.watchers <= 0 else { return }
    if let quiet = entry.quiet, quiet.token == token(state, lane) { return }
    state.lanes[lane] = nil
  }

  /// Returns once `lane` got a notification after `token`, the connection changed, after
  /// `pause` on the configuration's clock, or when the task is cancelled.
  func wait(after token: Token, lane: String, atMost pause: Duration) async {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.wait(after: token, lane: lane) }
      group.addTask { [configuration] in try? await configuration.clock.pause(for: pause) }
      await group.next()
      group.cancelAll()
    }
  }

  /// The number of the last attempt to listen so far: an operation takes it as it comes, for
  /// ``ready(_:endpoint:since:)``.
  var attempt: UInt64 { state.withLock { $0.attempt } }

  /// Returns once the connection listens. An attempt's failure is thrown only when the attempt
  /// began after `since` (``attempt`` when the operation came): one that was already under
  /// way may have met a server as it was before (in a test, one that refused the role until
  /// just before the operation), so a failure of it asks for a new attempt at once instead.
  ///
  /// - Returns: The number of the attempt that opened the connection, for ``untilLost(after:)``.
  /// - Throws: ``PostgresLogError`` (``PostgresLogError/Kind/closed`` after ``stop()``), or
  ///   `CancellationError`.
  func ready(_ operation: String, endpoint: String, since: UInt64) async throws -> UInt64 {
    var hasAsked = false
    while true {
      let (token, phase, attempt) = state.withLock { state in
        startIfNeeded(&state)
        return (Self.token(state, Self.phaseOnly), state.phase, state.attempt)
      }
      switch phase {
      case .up:
        return attempt
      case .stopped:
        throw PostgresLogError(.closed, operation: operation, endpoint: endpoint)
      case .idle, .connecting:
        break
      case .down(let error):
        if attempt > since {
          throw PostgresLogError(error, operation: operation, endpoint: endpoint)
        }
        if !hasAsked {
          hasAsked = true
          requestAttempt()
        }
      }
      await wait(after: token, lane: Self.phaseOnly)
      try Task.checkCancellation()
    }
  }

  /// Returns once the connection that `attempt` opened is lost (a later attempt started, even
  /// one that opens it again at once), after ``stop()``, or when the task is cancelled. A cut
  /// network closes the pool's connections with the listening one, and a statement written to
  /// a connection that closed meanwhile never ends: an operation that began on the lost
  /// connection's watch gives up and tries again, instead of waiting out its deadline.
  func untilLost(after attempt: UInt64) async {
    while !Task.isCancelled {
      let (token, isLost) = state.withLock { state in
        let isLost =
          switch state.phase {
          case .stopped: true
          case .idle, .connecting, .up, .down: state.attempt > attempt
          }
        return (Self.token(state, Self.phaseOnly), isLost)
      }
      if isLost { return }
      await wait(after: token, lane: Self.phaseOnly)
    }
  }

  /// Closes the connection for good and wakes every wait.
  func stop() {
    let loop = state.withLock { state in
      defer { state.loop = nil }
      state.phase = .stopped
      return state.loop
    }
    loop?.cancel()
    wake(nil)
  }

  private func startIfNeeded(_ state: inout State) {
    guard state.loop == nil, case .idle = state.phase else { return }
    state.loop = Task { [weak self] in await self?.listen() }
  }

  private static func token(_ state: State, _ lane: String) -> Token {
    let isListening = if case .up = state.phase { true } else { false }
    return Token(
      epoch: state.epoch, lane: state.lanes[lane]?.generation ?? 0, isListening: isListening)
  }

  /// Asks for an attempt now, instead of after the pause.
  private func requestAttempt() {
    state.withLock { $0.isRequested = true }
    wake(nil)
  }

  /// Returns once `lane` got a notification after `token` or the epoch moved, or when the task
  /// is cancelled.
  private func wait(after token: Token, lane: String) async {
    let id = state.withLock { state in
      defer { state.nextWaiter &+= 1 }
      return state.nextWaiter
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = state.withLock { state in
          // Checked under the lock: a cancellation handler that ran before this point found no
          // continuation to resume.
          if Self.token(state, lane) != token || Task.isCancelled { return true }
          state.waiters[id] = Waiter(lane: lane, continuation: continuation)
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
      waiter?.continuation.resume()
    }
  }

  /// Wakes the waits of `lane`, or every wait (a new epoch) for `nil`; resumed after the lock
  /// is released.
  private func wake(_ lane: String?, phase: Phase? = nil) {
    let woken = state.withLock { state in
      if let phase {
        if case .stopped = state.phase { return [Waiter]() }
        state.phase = phase
        if case .up = phase {} else { state.connection = nil }
      }
      guard let lane else {
        state.epoch &+= 1
        // Every quiet ends with the epoch.
        state.lanes = state.lanes.filter { $0.value.watchers > 0 }
        defer { state.waiters.removeAll() }
        return Array(state.waiters.values)
      }
      guard state.lanes[lane] != nil else { return [] }
      state.lanes[lane]?.generation &+= 1
      Self.forgetIfIdle(lane, &state)
      let ids = state.waiters.filter { $0.value.lane == lane }.map(\.key)
      return ids.compactMap { state.waiters.removeValue(forKey: $0) }
    }
    for waiter in woken { waiter.continuation.resume() }
  }

  /// Listens until the task is cancelled, opening the connection again whenever it is lost.
  /// An attempt that is not listening within the engine's timeout (connected, tables made,
  /// `LISTEN` done, claims taken again) is given up without waiting for a statement that never
  /// ends (``abandoning(_:)``): its connection is closed, and it fails as `timedOut`.
  private func listen() async {
    let logger = configuration.logger
    let timedOut = PostgresLogError(
      .timedOut, operation: "listen for appends", endpoint: configuration.endpoint,
      detail: "no answer within \(configuration.timeout)")
    var pause = Self.firstPause
    while !Task.isCancelled {
      state.withLock { $0.attempt += 1 }
      wake(nil, phase: .connecting)
      let deadline = configuration.clock.deadline(after: configuration.timeout)
      let (opening, opened) = AsyncStream<Void>.makeStream()
      var failure: (any Error)?
      do {
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { try await abandoning { try await self.session { opened.finish() } } }
          group.addTask {
            let isOpen: Void? = try await deadline.bound { for await _ in opening {} }
            guard isOpen != nil else { throw timedOut }
          }
          defer { group.cancelAll() }
          while try await group.next() != nil {}
        }
      } catch {
        failure = error
      }
      if case .up = state.withLock({ $0.phase }) {
        pause = Self.firstPause
        if let failure {
          logger.notice(
            "sluice: lost the listening connection",
            metadata: ["error": "\(String(reflecting: failure))"])
        }
        continue
      }
      let error = failure ?? CancellationError()
      state.withLock { $0.wasDown = true }
      wake(nil, phase: .down(error))
      logger.debug(
        "sluice: cannot listen for appends", metadata: ["error": "\(String(reflecting: error))"])
      await self.pause(for: pause)
      pause = min(pause * 2, Self.longestPause)
    }
  }

  /// Opens a connection, makes the log's tables, listens and takes the claims again; then runs
  /// `opened`, wakes every wait, and wakes the lanes named by notifications until the connection
  /// is lost. The connection is closed at the end, and at once when the task is cancelled.
  private func session(opened: @escaping @Sendable () -> Void) async throws {
    let logger = configuration.logger
    let connection = try await PostgresConnection.connect(
      configuration: try configuration.connection,
      id: Self.openedCount.wrappingAdd(1, ordering: .relaxed).newValue, logger: logger)
    do {
      try await withTaskCancellationHandler {
        try await setUpSchema(on: connection)
        try await connection.listen(on: LogSchema.channel) { notifications in
          try await retake(on: connection)
          // Given up meanwhile: the attempt that replaces it listens instead.
          try Task.checkCancellation()
          opened()
          let isRecovery = state.withLock { state in
            defer { state.wasDown = false }
            state.connection = connection
            return state.wasDown
          }
          if isRecovery {
            logger.notice("sluice: the server is back, reconnecting")
            recovered()
          }
          wake(nil, phase: .up)
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.checkAnswers(connection) }
            defer { group.cancelAll() }
            for try await notification in notifications { wake(notification.payload) }
          }
        }
      } onCancel: {
        Self.closeNow(connection)
      }
    } catch {
      await Self.close(connection)
      throw error
    }
    await Self.close(connection)
  }

  /// Every ``heartbeat``, until the task is cancelled, reads the heads of the quiet lanes on
  /// `connection` and wakes those that moved; closes the connection when the server does not
  /// answer within the engine's timeout, which ends the listening and makes the engine open a
  /// new one.
  private func checkAnswers(_ connection: PostgresConnection) async {
    let clock = configuration.clock
    while (try? await clock.pause(for: Self.heartbeat)) != nil {
      let quiet = state.withLock { $0.lanes.compactMapValues { $0.quiet?.head } }
      let moved = try? await clock.deadline(after: configuration.timeout).bound {
        [configuration] in
        var moved: [String] = []
        let heads = try await connection.query(
          LogSchema.heads(of: Array(quiet.keys)), logger: configuration.logger)
        for try await (lane, head) in heads.decode((String, Int64).self)
        where quiet[lane].map({ Int64(clamping: $0) < head }) ?? false {
          moved.append(lane)
        }
        return moved
      }
      for lane in moved ?? [] { wake(lane) }
      guard moved != nil else {
        guard !Task.isCancelled else { return }
        configuration.logger.notice(
          "sluice: the server does not answer on the listening connection")
        Self.closeNow(connection)
        return
      }
    }
  }

  /// Creates the log's tables on the engine's first connection.
  private func setUpSchema(on connection: PostgresConnection) async throws {
    guard !state.withLock({ $0.hasSchema }) else { return }
    try await connection.query(LogSchema.setUp, logger: configuration.logger)
    state.withLock { $0.hasSchema = true }
  }

  /// Returns after `duration` on the configuration's clock, or at once when an operation asked
  /// for an attempt, or when the task is cancelled.
  private func pause(for duration: Duration) async {
    let token = state.withLock { state -> Token? in
      defer { state.isRequested = false }
      return state.isRequested ? nil : Self.token(state, Self.phaseOnly)
    }
    guard let token else { return }
    await wait(after: token, lane: Self.phaseOnly, atMost: duration)
    state.withLock { $0.isRequested = false }
  }

  /// Closes `connection` and returns once its channel is closed.
  private static func close(_ connection: PostgresConnection) async {
    closeNow(connection)
    try? await connection.closeFuture.get()
  }

  /// Closes `connection` without waiting, keeping it alive until its channel is closed
  /// (PostgresNIO requires that a connection is closed before it is released).
  static func closeNow(_ connection: PostgresConnection) {
    let closing: EventLoopFuture<Void> = connection.close()
    closing.whenComplete { _ in withExtendedLifetime(connection) {} }
  }

  /// Numbers connections for PostgresNIO's log metadata.
  private static let openedCount = Atomic<Int>(0)
}
