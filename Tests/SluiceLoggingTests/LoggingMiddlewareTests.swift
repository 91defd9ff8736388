import Foundation
import Logging
import Sluice
import SluiceLogging
import Testing

struct LogTodo: Codable, Equatable, Sendable {
  var title: String
  var done = false
}

struct LogTodoList: Codable, Equatable, Sendable {
  var todos: [LogTodo] = ["Milk", "Eggs", "Bread", "Tea"].map { LogTodo(title: $0) }
}

struct LogTodoToggled: Action { let index: Int }
struct LogTodoAdded: Action { let title: String }
struct LogNothingChanged: Action {}
struct LogUnhandled: Action {}

let logTodoReducer = Reducer<LogTodoList>()
  .on(LogTodoToggled.self) { state, action in state.todos[action.index].done.toggle() }
  .on(LogTodoAdded.self) { state, action in state.todos.append(LogTodo(title: action.title)) }
  .on(LogNothingChanged.self) { _, _ in }

/// A state that is not `Encodable`.
struct LogOpaque: Equatable, Sendable {
  var count = 0
}

/// Counts how often the states that share it are reflected.
final class LogEncodeCounter: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value = 0

  var count: Int { lock.withLock { value } }

  func increment() { lock.withLock { value += 1 } }
}

/// A state whose every reading is counted.
struct LogCountedState: CustomReflectable, Sendable {
  var count = 0
  let counter: LogEncodeCounter

  var customMirror: Mirror {
    counter.increment()
    return Mirror(self, children: ["count": count], displayStyle: .struct)
  }
}

@Suite("Logging middleware")
struct LoggingMiddlewareTests {
  @Test func eachReducedActionIsLoggedWithItsTypeDurationAndChangedPaths() throws {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogTodoList(), reducer: logTodoReducer,
      middleware: [.logging(to: recorder.logger())])

    store.dispatch(LogTodoToggled(index: 3))

    let record = try #require(recorder.records.first)
    #expect(recorder.records.count == 1)
    #expect(record.level == .debug)
    #expect(record.source == "Sluice")
    #expect(record.string("sluice.store") == "Store<LogTodoList>")
    #expect(record.string("sluice.action") == "LogTodoToggled")
    #expect(record.strings("sluice.changes") == ["todos.3.done: false → true"])
    let duration = try #require(record.string("sluice.duration"))
    #expect(duration.hasSuffix(" ms"))
    #expect(Double(duration.dropLast(3)).map { $0 >= 0 } == true, "\(duration) is a number")
    #expect(
      record.message.description
        == "Store<LogTodoList> reduced LogTodoToggled in \(duration), 1 change")
  }

  @Test func anAddedElementIsWrittenWholeAndAStringIsQuoted() {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogTodoList(), reducer: logTodoReducer,
      middleware: [.logging(to: recorder.logger(), level: .info)])

    store.dispatch(LogTodoAdded(title: "Jam"))

    #expect(recorder.records.map(\.level) == [.info])
    #expect(
      recorder.records.first?.strings("sluice.changes")
        == [#"todos.4: null → {"done": false, "title": "Jam"}"#])
  }

  @Test func anActionThatChangesNothingIsLoggedWithNoChanges() {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogTodoList(), reducer: logTodoReducer,
      middleware: [.logging(to: recorder.logger())])

    store.dispatch(LogNothingChanged())
    store.dispatch(LogUnhandled())

    #expect(recorder.records.count == 1, "an action the store does not handle is not logged")
    #expect(recorder.records.first?.strings("sluice.changes") == [])
    #expect(recorder.records.first?.message.description.hasSuffix(", 0 changes") == true)
  }

  @Test func manyChangesAreCutAfterAHundredWithACount() throws {
    let recorder = LogRecorder()
    let store = Store(
      initialState: [Int](repeating: 0, count: 150),
      reducer: Reducer<[Int]>().on(LogNothingChanged.self) { state, _ in
        state = state.map { $0 + 1 }
      },
      middleware: [.logging(to: recorder.logger())])

    store.dispatch(LogNothingChanged())

    let changes = try #require(recorder.records.first?.strings("sluice.changes"))
    #expect(changes.count == 101)
    #expect(changes.first == "0: 0 → 1")
    #expect(changes.last == "… and 50 more")
    #expect(recorder.records.first?.message.description.hasSuffix(", 150 changes") == true)
  }

  @Test func aStateThatIsNotEncodableIsLoggedWithItsChanges() throws {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogOpaque(),
      reducer: Reducer<LogOpaque>().on(LogNothingChanged.self) { state, _ in state.count += 1 },
      middleware: [.logging(to: recorder.logger())])

    store.dispatch(LogNothingChanged())

    let record = try #require(recorder.records.first)
    #expect(record.string("sluice.action") == "LogNothingChanged")
    #expect(record.string("sluice.duration") != nil)
    #expect(record.strings("sluice.changes") == ["count: 0 → 1"])
  }

  @Test func noStateIsReadWhenTheLoggerFiltersTheLevelOut() {
    let recorder = LogRecorder()
    let counter = LogEncodeCounter()
    let reducer = Reducer<LogCountedState>().on(LogNothingChanged.self) { state, _ in
      state.count += 1
    }
    let quiet = Store(
      initialState: LogCountedState(counter: counter), reducer: reducer,
      middleware: [.logging(to: recorder.logger(level: .info), level: .debug)])

    quiet.dispatch(LogNothingChanged())
    quiet.dispatch(LogNothingChanged())

    #expect(counter.count == 0)
    #expect(recorder.records.isEmpty)

    let verbose = Store(
      initialState: LogCountedState(counter: counter), reducer: reducer,
      middleware: [.logging(to: recorder.logger(level: .debug), level: .debug)])
    verbose.dispatch(LogNothingChanged())

    #expect(counter.count == 2, "the states before and after are read once each")
    #expect(recorder.records.first?.strings("sluice.changes") == ["count: 0 → 1"])
  }

  @Test func theLabelTellsTheStoresOfADispatcherApart() {
    let recorder = LogRecorder()
    let logger = recorder.logger()
    let dispatcher = Dispatcher()
    let todos = Store(
      initialState: LogTodoList(), dispatcher: dispatcher, reducer: logTodoReducer,
      middleware: [.logging(to: logger, label: "todos")])
    let counter = Store(
      initialState: LogCounter(), dispatcher: dispatcher,
      reducer: Reducer<LogCounter>().on(LogTodoAdded.self) { state, _ in state.count += 1 })
    let subscription = counter.use(.logging(to: logger, label: "counter"))

    dispatcher.dispatch(LogTodoAdded(title: "Jam"))

    let records = recorder.records.sorted {
      ($0.string("sluice.store") ?? "") < ($1.string("sluice.store") ?? "")
    }
    #expect(records.map { $0.string("sluice.store") } == ["counter", "todos"])
    #expect(records.map { $0.string("sluice.action") } == ["LogTodoAdded", "LogTodoAdded"])
    #expect(records.first?.message.description.hasPrefix("counter reduced LogTodoAdded") == true)
    #expect(todos.state.todos.count == 5)
    subscription.cancel()
  }

  @Test func aCommittedTransactionIsLoggedAsItsEvent() throws {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogTodoList(), reducer: logTodoReducer,
      middleware: [.logging(to: recorder.logger())])

    store.dispatcher.transaction { tx in
      try tx.update(store) { $0.todos[0].title = "Oat milk" }
    }

    let record = try #require(recorder.records.first)
    #expect(record.string("sluice.action") == "TransactionCommitted")
    #expect(record.strings("sluice.changes") == [#"todos.0.title: "Milk" → "Oat milk""#])
    #expect(record.string("sluice.duration") != nil)
  }
}
