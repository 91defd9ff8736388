import Foundation
import Logging
import Sluice
import SluiceLogging
import Testing

// The Swift snippets of Sources/SluiceLogging/SluiceLogging.docc/LoggingStateChanges.md and of
// the SluiceLogging landing page (SluiceLogging.md), compiled and run.

enum LoggingArticle {
  struct Todo: Codable, Equatable, Sendable {
    var title: String
    var done = false
  }

  struct Session: Codable, Equatable, Sendable {
    var user: String
    var token: String
  }

  struct TodoList: Codable, Equatable, Sendable {
    var todos: [Todo] = []
    var session: Session?
  }

  struct TodoAdded: Action { let title: String }
  struct TodoToggled: Action { let index: Int }
  struct SignedIn: Action {
    let user: String
    let token: String
  }

  /// The records a logger made by ``logger(level:)`` wrote, for the tests to read.
  final class Records: @unchecked Sendable {
    // @unchecked Sendable: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var events: [LogEvent] = []

    var all: [LogEvent] { lock.withLock { events } }

    func append(_ event: LogEvent) { lock.withLock { events.append(event) } }

    /// A logger writing here, without touching the process-wide logging system.
    func logger(level: Logger.Level) -> Logger {
      Logger(label: "app.state") { _ in Handler(records: self, logLevel: level) }
    }
  }

  struct Handler: LogHandler {
    let records: Records
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(records: Records, logLevel: Logger.Level) {
      self.records = records
      self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { records.append(event) }
  }

  /// The changes a record lists.
  static func changes(_ event: LogEvent) -> [String] {
    guard case .array(let values)? = event.metadata?["sluice.changes"] else { return [] }
    return values.map { "\($0)" }
  }

  @Suite("Article: Logging State Changes")
  struct Tests {
    @Test func theManifestAddsSluiceLoggingAndSwiftLog() throws {
      let manifest = """
        dependencies: [
          .package(path: "../sluice"),
          .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        ],
        targets: [
          .executableTarget(
            name: "MyApp",
            dependencies: [
              .product(name: "Sluice", package: "sluice"),
              .product(name: "SluiceLogging", package: "sluice"),
              .product(name: "Logging", package: "swift-log"),
            ]),
        ]
        """
      let real = try String(
        contentsOf: DocumentationFiles.root.appendingPathComponent("Package.swift"),
        encoding: .utf8)
      // swift-log as the package itself requires it, and Sluice's products as it declares them.
      let swiftLog = #".package(url: "https://github.com/apple/swift-log", from: "1.16.2")"#
      #expect(manifest.contains(swiftLog))
      #expect(real.contains(swiftLog))
      let named = manifest.matches(of: /\.product\(name: "(\w+)", package: "sluice"\)/)
        .map { String($0.output.1) }
      #expect(named == ["Sluice", "SluiceLogging"])
      for product in named { #expect(real.contains(".library(name: \"\(product)\"")) }
      #expect(manifest.contains(#".product(name: "Logging", package: "swift-log")"#))
    }

    @Test func aLoggerWritingToStandardErrorLetsTheMiddlewareLog() {
      var logger = Logger(label: "com.example.todos") { StreamLogHandler.standardError(label: $0) }
      logger.logLevel = .debug

      #expect(logger.label == "com.example.todos")
      #expect(logger.logLevel == .debug)
      let todos = Store(
        initialState: TodoList(), reducer: Reducer<TodoList>(),
        middleware: [.logging(to: logger, label: "todos")])
      todos.dispatch(TodoAdded(title: "Buy milk"))
      #expect(todos.state == TodoList())
    }

    @Test func reducedActionsAreLoggedWithTheirChangesAndTheTokenRedacted() throws {
      let records = Records()
      var logger = records.logger(level: .info)
      let todoReducer = Reducer<TodoList>()
        .on(TodoAdded.self) { state, action in state.todos.append(Todo(title: action.title)) }
        .on(TodoToggled.self) { state, action in
          guard state.todos.indices.contains(action.index) else { return }
          state.todos[action.index].done.toggle()
        }
        .on(SignedIn.self) { state, action in
          state.session = Session(user: action.user, token: action.token)
        }

      let dispatcher = Dispatcher(reporter: .logging(to: logger))

      logger.logLevel = .debug
      let todos = Store(
        initialState: TodoList(), dispatcher: dispatcher, reducer: todoReducer,
        middleware: [.logging(to: logger, label: "todos", redacting: ["session.token"])])
      todos.dispatch(TodoAdded(title: "Buy milk"))
      todos.dispatch(TodoToggled(index: 0))
      todos.dispatch(SignedIn(user: "ann", token: "s3cr3t"))

      let events = records.all
      #expect(
        events.map { $0.metadata?["sluice.action"] } == ["TodoAdded", "TodoToggled", "SignedIn"])
      #expect(
        events.map(LoggingArticle.changes) == [
          [#"todos.0: null → {"done": false, "title": "Buy milk"}"#],
          ["todos.0.done: false → true"],
          [#"session: null → {"token": <redacted>, "user": "ann"}"#],
        ])
      let first = try #require(events.first?.message.description)
      #expect(first.hasPrefix("todos reduced TodoAdded in "))
      #expect(first.hasSuffix(" ms, 1 change"))
      #expect(!events.contains { "\($0.message) \($0.metadata ?? [:])".contains("s3cr3t") })

      // The dispatcher's reporter logs issues, at the line that caused them.
      let second = Store(initialState: TodoList(), dispatcher: dispatcher, reducer: todoReducer)
      dispatcher.register(todos)
      dispatcher.register(second)
      #expect(records.all.last?.metadata?["sluice.issue"] == "duplicateRegistration")
      #expect(records.all.last?.level == .warning)
    }

    @Test func aCustomMappingChoosesTheLevelOfEachIssue() {
      let records = Records()
      let logger = records.logger(level: .trace)

      let reporter = IssueReporter.logging(to: logger) { kind in
        kind == .unknownPath ? .notice : kind.suggestedLogLevel
      }

      reporter.report(
        ReportedIssue(kind: .unknownPath, message: "no such path", fileID: "App/A.swift", line: 1))
      reporter.report(
        ReportedIssue(kind: .lockTimedOut, message: "held too long", fileID: "App/A.swift", line: 2)
      )
      #expect(records.all.map(\.level) == [.notice, .error])
    }

    @Test func aRedactionCombinesPathsPatternsAndAPredicate() {
      let redaction = Redaction.paths(["session.token", "accounts.*.password"])
        .union(.keys(["apiKey"]))
        .union(.matching { path in path.hasSuffix("secret") })

      #expect(redaction.redacts("session.token"))
      #expect(redaction.redacts("services.2.apiKey"))
      #expect(redaction.redacts("accounts.4.password"))
      #expect(redaction.redacts("notes.secret"))
      #expect(!redaction.redacts("session.user"))
    }

    @Test func aStoreCanBeLoggedLaterUnderItsOwnLabel() {
      let records = Records()
      let logger = records.logger(level: .debug)
      let dispatcher = Dispatcher()
      let todoReducer = Reducer<TodoList>()
        .on(TodoAdded.self) { state, action in state.todos.append(Todo(title: action.title)) }

      let watched = Store(initialState: TodoList(), dispatcher: dispatcher, reducer: todoReducer)
      let subscription = watched.use(.logging(to: logger, label: "watched"))

      watched.dispatch(TodoAdded(title: "Tea"))
      subscription.cancel()
      watched.dispatch(TodoAdded(title: "Jam"))

      #expect(records.all.map { $0.metadata?["sluice.store"] } == ["watched"])
    }

    @Test func theLandingPageExampleLogsIssuesAndActions() {
      let records = Records()
      let logger = records.logger(level: .debug)
      let todoReducer = Reducer<TodoList>()
        .on(SignedIn.self) { state, action in
          state.session = Session(user: action.user, token: action.token)
        }

      let dispatcher = Dispatcher(reporter: .logging(to: logger))
      let todos = Store(
        initialState: TodoList(), dispatcher: dispatcher, reducer: todoReducer,
        middleware: [.logging(to: logger, redacting: ["session.token"])])

      todos.dispatch(SignedIn(user: "ann", token: "s3cr3t"))
      #expect(
        records.all.map(LoggingArticle.changes) == [
          [#"session: null → {"token": <redacted>, "user": "ann"}"#]
        ])
    }
  }
}
