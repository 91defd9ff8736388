import ArgumentParser
import Foundation
import Sluice

/// `sluice-demo tour` (the default): Sluice end to end, in six steps.
struct Tour: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show Sluice working end to end on a small todo app (the default command).")

  @OptionGroup var options: StoreOptions

  @Option(help: .hidden) var signInSteps = 12
  @Option(help: .hidden) var signInPauseMilliseconds = 100

  func validate() throws {
    guard (1...1000).contains(signInSteps), (0...10_000).contains(signInPauseMilliseconds) else {
      throw ValidationError("the sign-in pace is out of range.")
    }
  }

  func run() async throws {
    let storage = try options.open()
    let app = TodoApp(
      storage: storage, signInSteps: signInSteps,
      signInPause: .milliseconds(signInPauseMilliseconds))
    let guide = TourGuide(app: app, storage: storage, terminal: Terminal())
    try guide.restore()
    let reactions = guide.react()
    guide.dispatchActions()
    await guide.signIn()
    guide.transactions()
    guide.lock()
    try await guide.persist()
    reactions.cancelAll()
  }
}

/// The tour's steps, each printing what it does and what it checked.
struct TourGuide {
  let app: TodoApp
  let storage: DemoStorage
  let terminal: Terminal
  /// How many reactions ran: the aborted transaction must not add to it.
  let reactionCount = ReactionCounter()

  /// 1. What persistence restored; then a clean list for the tour.
  func restore() throws {
    terminal.line(
      terminal.styled("Sluice tour", .bold) + " — a todo app with three stores on one dispatcher")
    terminal.line(
      terminal.styled("Stores: todos and settings (persisted), session (not persisted).", .dim))
    terminal.section(1, "Restore", "Persisted stores restore their state when they are created.")
    let todos = app.todos.state
    let settings = app.settings.state
    var warnings: [String] = []
    for (what, outcome) in [
      ("todo list", app.todos.persistence?.restoreOutcome),
      ("settings", app.settings.persistence?.restoreOutcome),
    ] {
      if let warning = try outcome?.check(what: what, in: storage) { warnings.append(warning) }
    }
    for warning in warnings { StandardError.line("warning: \(warning)") }
    if storage.path == nil {
      terminal.line(
        "   In memory (--in-memory): nothing is read or written; the tour starts empty.")
    } else if settings.toursFinished == 0 && todos.items.isEmpty {
      terminal.line("   Nothing stored in \(storage.place) yet: the tour starts empty.")
      terminal.line("   Run it again afterwards to see this step restore what it saves.")
    } else {
      let when = settings.lastTourFinishedAt.map { " at \(TourGuide.format($0))" } ?? ""
      terminal.line(
        "   Restored from \(storage.place), saved by tour #\(settings.toursFinished)\(when):")
      terminal.fact("todos: \(todos.summary) — \(todos.items.map(\.title).joined(separator: ", "))")
      terminal.fact("settings: theme \(settings.theme)")
      terminal.line("   The tour starts over from an empty list; the settings stay as restored.")
      app.todos.dispatch(ClearAll())
    }
  }

  /// 2. Reactions print every change, old → new.
  func react() -> SubscriptionBag {
    let bag = SubscriptionBag()
    // Counts are computed properties: selectors read them without the key-path runtime.
    bag.insert(reaction(on: app.todos, .select { $0.openCount }, named: "todos.open"))
    bag.insert(reaction(on: app.todos, .select { $0.doneCount }, named: "todos.done"))
    bag.insert(reaction(on: app.settings, .select { $0.theme }, named: "settings.theme"))
    bag.insert(reaction(on: app.session, .select { $0.profile }, named: "session.profile"))
    return bag
  }

  /// Prints each change of the value `selector` reads as `name: old → new`, and counts it.
  private func reaction<State, Value: Equatable & Sendable & SendableMetatype>(
    on store: Store<State>, _ selector: StateSelector<State, Value>, named name: String
  ) -> Subscription {
    let terminal = self.terminal
    let counter = reactionCount
    return store.observe(selector, from: .nextChange) { change in
      counter.increment()
      terminal.change(name, "\(change.old)", "\(change.new)")
    }
  }

  /// 2. Actions go through reducers; the reactions above print what changed.
  func dispatchActions() {
    terminal.section(
      2, "Actions, reducers and reactions",
      "Each dispatch runs the reducers, then the reactions print old → new.")
    for title in ["Read the Sluice guide", "Try sluice-demo todo", "Star the repository"] {
      terminal.dispatching("AddTodo(\"\(title)\")")
      app.todos.dispatch(AddTodo(title: title))
    }
    terminal.dispatching("CompleteTodo(#1)")
    app.todos.dispatch(CompleteTodo(id: 1))
    terminal.dispatching("ChangeTheme(.\(app.settings.state.theme == .dark ? "light" : "dark"))")
    app.settings.dispatch(ChangeTheme(theme: app.settings.state.theme == .dark ? .light : .dark))
    terminal.fact("todos: \(app.todos.state.summary); settings: theme \(app.settings.state.theme)")
  }

  /// 3. An effect loads slowly; the session's `Loadable` and its progress show it.
  func signIn() async {
    terminal.section(
      3, "An effect with a slow load",
      "SignIn starts an effect outside the lane; the session shows it as a Loadable.")
    let bar = ProgressBar("signing in", on: terminal)
    let progress = app.session.observe(\.progress, from: .nextChange) { change in
      bar.update(change.new)
    }
    let started = ContinuousClock.now
    terminal.dispatching("SignIn(\"Ada\")")
    app.session.dispatch(SignIn(name: "Ada"))
    await app.session.settle()
    progress.cancel()
    bar.finish()
    let elapsed = ContinuousClock.now - started
    let milliseconds =
      elapsed.components.seconds * 1000
      + elapsed.components.attoseconds / 1_000_000_000_000_000
    terminal.fact(
      "settle() returned after \(milliseconds) ms: the effect ended and its actions were reduced")
    terminal.fact("session.profile is \(app.session.state.profile)")
  }

  /// 4. Transactions: one commits (every reaction once, at commit), one aborts (nothing).
  func transactions() {
    terminal.section(
      4, "Transactions",
      "Changes to several stores, applied as one step; an abort leaves every store as it was.")
    let todos = app.todos
    let settings = app.settings
    terminal.line("   transaction \"plan the week\": AddTodo ×2 and a theme change, committed")
    let committed = app.dispatcher.transaction("plan the week") { tx in
      tx.dispatch(AddTodo(title: "Plan the week"))
      tx.dispatch(AddTodo(title: "Book a table"))
      try tx.update(settings) { $0.theme = $0.theme == .dark ? .light : .dark }
    }
    terminal.fact("\(committed): each reaction ran once, with the states before and after")

    let before = (todos: todos.state, settings: settings.state, reactions: reactionCount.value)
    terminal.line("   transaction \"overcommit\": AddTodo ×3, aborted when more than 5 are open")
    let aborted = app.dispatcher.transaction("overcommit") { tx in
      for title in ["Learn the cello", "Run a marathon", "Write a novel"] {
        tx.dispatch(AddTodo(title: title))
      }
      if tx.state(of: todos).openCount > 5 { try tx.abort() }
    }
    let unchanged = todos.state == before.todos && settings.state == before.settings
    let silent = reactionCount.value == before.reactions
    terminal.fact(
      "\(aborted): state \(unchanged ? "unchanged" : "CHANGED") (\(todos.state.summary)), "
        + "\(silent ? "no reaction ran" : "a reaction RAN")")
  }

  /// 5. A lock holds actions; releasing it replays them in order.
  func lock() {
    terminal.section(
      5, "A lock", "While a lock is held, actions queue; released, they replay in order.")
    let order = ReplayLog()
    let tap = app.todos.onAction { action, _ in order.append(action) }
    let lock = app.dispatcher.pause("demo lock")
    let open = app.todos.state.items.filter { !$0.isDone }.map(\.id)
    for id in open.prefix(2) {
      terminal.dispatching("CompleteTodo(#\(id))  — held")
      app.todos.dispatch(CompleteTodo(id: id))
    }
    terminal.dispatching("AddTodo(\"Water the plants\")  — held")
    app.todos.dispatch(AddTodo(title: "Water the plants"))
    terminal.fact(
      "\(app.dispatcher.queueDepth) actions queued; todos unchanged (\(app.todos.state.summary))")
    terminal.line("   release()")
    lock.release()
    tap.cancel()
    terminal.fact("replayed in order: \(order.entries.joined(separator: ", "))")
  }

  /// 6. Persistence: save, and say how to see the restore.
  func persist() async throws {
    terminal.section(
      6, "Persistence",
      "Saves are coalesced off the dispatch path; flush() makes them durable now.")
    app.settings.dispatch(TourFinished(at: Date()))
    do {
      try await app.save()
    } catch {
      throw DemoError.onStore(error, at: storage.path, place: storage.place) {
        .notSaved(path: storage.place, reason: $0)
      }
    }
    let todos = app.todos.state
    if let path = storage.path {
      terminal.fact(
        "saved \(todos.summary) and the settings (tour #\(app.settings.state.toursFinished)) "
          + "to \(path) in \(app.writeCount) writes")
      terminal.line()
      terminal.line(
        terminal.styled("Next:", .bold) + " run the tour again to see step 1 restore this;")
      terminal.line(
        "      keep a list of your own, apart from the tour's: sluice-demo todo add Buy milk; "
          + "sluice-demo todo list")
    } else {
      terminal.fact("kept \(todos.summary) in memory only: nothing was written")
    }
  }

  static func format(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.string(from: date)
  }
}

/// Counts the reactions that ran.
final class ReactionCounter: Sendable {
  private let count = Guarded(0)
  func increment() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

/// The actions a tap saw, by name and payload.
final class ReplayLog: Sendable {
  private let log = Guarded<[String]>([])
  func append(_ action: any Action) { log.withLock { $0.append(ReplayLog.describe(action)) } }
  var entries: [String] { log.withLock { $0 } }

  static func describe(_ action: any Action) -> String {
    switch action {
    case let add as AddTodo: "AddTodo(\"\(add.title)\")"
    case let complete as CompleteTodo: "CompleteTodo(#\(complete.id))"
    default: "\(type(of: action))"
    }
  }
}
