import PropertyBased
import Sluice

/// The steps a property test may take with a store: the actions it may send, each with a
/// weight, the moves of the test clock that let effects end, and custom steps (transactions,
/// locks).
///
/// Actions come from PropertyBased's generators, or from the current state:
///
/// ```swift
/// let steps = ActionGenerator<TodoList>()
///   .action(weight: 3, Gen.letterOrNumber.string(of: 0...8).map { AddTodo(title: $0) })
///   .action { list in  // one of the existing todos; nil while there is none
///     list.items.isEmpty
///       ? nil : Gen.int(in: 0...(list.items.count - 1)).map { ToggleTodo(id: list.items[$0].id) }
///   }
///   .action(ClearCompleted())
///   .advanceClock(by: Gen.int(in: 1...500).map { .milliseconds($0) })
/// ```
///
/// Each step picks one of the choices that are possible in the current state, by weight. The
/// shrinker makes a step simpler by making its random choices smaller, so the first choice
/// added, and the smallest value of each generator, are the simplest.
public struct ActionGenerator<State: Sendable>: Sendable {
  struct Choice: Sendable {
    let weight: Int
    /// The step to take in `state`, drawing from the random source; `nil` when impossible.
    let make: @Sendable (State, inout ChoiceRandom) -> PropertyStep<State>?
  }

  var choices: [Choice] = []

  /// No steps yet.
  public init() {}

  /// Adds actions drawn from `generator`.
  ///
  /// - Parameters:
  ///   - weight: How often this choice is picked, relative to the others (at least 1).
  ///   - generator: The actions.
  public func action<A: Action, Shrinks>(
    weight: Int = 1, _ generator: Generator<A, Shrinks>
  ) -> Self {
    adding(weight) { _, random in .send(generator.run(using: &random)) }
  }

  /// Adds one fixed action.
  ///
  /// - Parameters:
  ///   - weight: How often this choice is picked, relative to the others (at least 1).
  ///   - action: The action.
  public func action<A: Action>(weight: Int = 1, _ action: A) -> Self {
    adding(weight) { _, _ in .send(action) }
  }

  /// Adds actions that depend on the current state: `make` returns their generator, or `nil`
  /// when no such action is possible now (the choice is then skipped).
  ///
  /// - Parameters:
  ///   - weight: How often this choice is picked, relative to the others (at least 1).
  ///   - make: The generator of the actions possible in a state.
  public func action<A: Action, Shrinks>(
    weight: Int = 1, _ make: @escaping @Sendable (State) -> Generator<A, Shrinks>?
  ) -> Self {
    adding(weight) { state, random in
      make(state).map { .send($0.run(using: &random)) }
    }
  }

  /// Adds moves of the property's ``ManualClock``: the effects whose deadline passes run, one
  /// at a time and earliest first, each until it ended or sleeps again.
  ///
  /// - Parameters:
  ///   - weight: How often this choice is picked, relative to the others (at least 1).
  ///   - generator: How far the clock moves.
  public func advanceClock<Shrinks>(
    weight: Int = 1, by generator: Generator<Duration, Shrinks>
  ) -> Self {
    adding(weight) { _, random in .advance(generator.run(using: &random)) }
  }

  /// Adds a custom step: anything done to the store, such as a transaction or a lock.
  ///
  /// The actions the store processes during the step are checked like the others, and appear
  /// in the printed test as received actions. A step that pauses the lane must release its
  /// locks before it returns (test the queueing of S12 within one step): a run whose lane is
  /// left paused fails, since its next send would wait for ever.
  ///
  /// ```swift
  /// .step(
  ///   "reset the counts in a transaction",
  ///   code: "await store.store.dispatcher.transaction { tx in "
  ///     + "try tx.update(store.store) { $0.doneCount = 0 } }"
  /// ) { store in
  ///   await store.dispatcher.transaction { tx in try tx.update(store) { $0.doneCount = 0 } }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - name: What the step does, for messages.
  ///   - weight: How often this choice is picked, relative to the others (at least 1).
  ///   - code: The Swift code of the step for the printed `TestStore` test, where `store` is
  ///     the test store.
  ///   - perform: The step.
  public func step(
    _ name: String, weight: Int = 1, code: String,
    _ perform: @escaping @Sendable (Store<State>) async -> Void
  ) -> Self {
    adding(weight) { _, _ in .custom(name: name, code: code, perform: perform) }
  }

  private func adding(
    _ weight: Int, _ make: @escaping @Sendable (State, inout ChoiceRandom) -> PropertyStep<State>?
  ) -> Self {
    var copy = self
    copy.choices.append(Choice(weight: max(weight, 1), make: make))
    return copy
  }

  /// The step to take in `state`, and the index of the choice that made it: one of the
  /// possible choices, by weight; `nil` when none is possible.
  func step(in state: State, random: inout ChoiceRandom) -> (PropertyStep<State>, Int)? {
    let total = choices.reduce(0) { $0 + $1.weight }
    guard total > 0 else { return nil }
    // Picks by weight; a choice that is impossible now passes to the next one.
    var target = random.index(below: total)
    var index = choices.startIndex
    while target >= choices[index].weight {
      target -= choices[index].weight
      index += 1
    }
    for offset in 0..<choices.count {
      let picked = (index + offset) % choices.count
      if let step = choices[picked].make(state, &random) { return (step, picked) }
    }
    return nil
  }
}

/// One step of a property run.
enum PropertyStep<State: Sendable>: Sendable {
  /// Send an action, as `TestStore.send` does.
  case send(any Action)
  /// Move the test clock.
  case advance(Duration)
  /// A custom step.
  case custom(name: String, code: String, perform: @Sendable (Store<State>) async -> Void)
}
