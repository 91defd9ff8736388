import Dispatch
import Foundation
import Sluice
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/Observation.md, compiled and run.
// Inside `ObservationArticle`, `print` is the namespace's own (used by `ScoreBoard` only);
// the tests declare a local `print` that records what the snippets print.

enum ObservationArticle {
  struct Player: Codable, Equatable, Sendable {
    var name = "Ada"
    var score = 0
    var level = 1
  }

  struct Scored: Action { let points: Int }
  struct LevelUp: Action {}

  static let reducer = Reducer<Player>()
    .on(Scored.self) { state, action in state.score += action.points }
    .on(LevelUp.self) { state, _ in state.level += 1 }

  /// What `ScoreBoard` printed.
  static let scoreBoardOutput = ArticleSupport.Output()

  static func print(_ line: String) { scoreBoardOutput.append(line) }

  final class ScoreBoard: Sendable {
    private let bag = SubscriptionBag()

    init(store: Store<Player>) {
      store.observe(\.score, from: .nextChange) { change in
        print("score \(change.new)")
      }.store(in: bag)
      store.observe(\.level, from: .nextChange) { change in
        print("level \(change.new)")
      }.store(in: bag)
    }
  }

  final class LevelBadge: Sendable {
    let title: String
    init(title: String) { self.title = title }
  }

  @Suite("Article: Observing State Changes")
  struct Tests {
    @Test func theReducerOfTheArticle() {
      let reducer = Reducer<Player>()
        .on(Scored.self) { state, action in state.score += action.points }
        .on(LevelUp.self) { state, _ in state.level += 1 }
      var player = Player()
      let store = Store(initialState: player, reducer: reducer)
      store.dispatch(Scored(points: 4))
      store.dispatch(LevelUp())
      player.score = 4
      player.level = 2
      #expect(store.state == player)
    }

    @Test func aWholeStateObserverSkipsActionsThatChangeNothing() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }

      let store = Store(initialState: Player(), reducer: reducer)
      let subscription = store.observe { player in
        print("\(player.name): \(player.score) points, level \(player.level)")
      }
      store.dispatch(Scored(points: 10))
      store.dispatch(Scored(points: 0))  // changes nothing: not delivered

      #expect(output.lines == ["Ada: 0 points, level 1", "Ada: 10 points, level 1"])
      subscription.cancel()
    }

    @Test func aKeyPathObserverFiresOnlyWhenItsValueChanged() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(initialState: Player(), reducer: reducer)

      let subscription = store.observe(\.level, from: .nextChange) { change in
        print("level \(change.old) → \(change.new)")
      }
      store.dispatch(Scored(points: 5))  // the level did not change: not called
      store.dispatch(LevelUp())

      #expect(output.lines == ["level 1 → 2"])
      subscription.cancel()
    }

    @Test func aSelectorObservesAnElementOfACollection() {
      struct Awarded: Action { let badge: String }
      struct Trophies: Equatable, Sendable { var badges: [String: Int] = [:] }
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(
        initialState: Trophies(),
        reducer: Reducer<Trophies>().on(Awarded.self) { state, action in
          state.badges[action.badge, default: 0] += 1
        })

      let subscription = store.observe(.select { $0.badges["gold"] }, from: .nextChange) { change in
        print("gold \(change.old ?? 0) → \(change.new ?? 0)")
      }
      store.dispatch(Awarded(badge: "gold"))

      store.dispatch(Awarded(badge: "silver"))  // another entry: not called
      #expect(output.lines == ["gold 0 → 1"])
      subscription.cancel()
    }

    @Test func anObserverOnAQueueGetsTheCurrentValueThenEachChange() async {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(initialState: Player(), reducer: reducer)

      let updates = DispatchQueue(label: "score-updates")
      let subscription = store.observe(\.score, on: .queue(updates)) { change in
        print("score \(change.new)")
      }
      store.dispatch(Scored(points: 7))

      #expect(await output.wait { $0.count == 2 })
      #expect(output.lines == ["score 0", "score 7"])
      subscription.cancel()
    }

    @Test func mainActorDeliveryRunsOnTheMainQueue() async {
      // On Linux the main actor runs its jobs on the main dispatch queue, which the test
      // process services (not necessarily on the main thread).
      let key = DispatchSpecificKey<String>()
      DispatchQueue.main.setSpecific(key: key, value: "main")
      let output = ArticleSupport.Output()
      let store = Store(initialState: Player(), reducer: reducer)
      let subscription = store.observe(\.score, on: .mainActor) { change in
        output.append(
          "score \(change.new) on \(DispatchQueue.getSpecific(key: key) ?? "another queue")")
      }
      store.dispatch(Scored(points: 1))
      #expect(await output.wait { $0.count == 2 })
      #expect(output.lines == ["score 0 on main", "score 1 on main"])
      subscription.cancel()
    }

    @Test func valuesOfAPathYieldTheCurrentValueThenEachChange() async {
      let store = Store(initialState: Player(), reducer: reducer)

      var seen: [Int] = []
      do {
        let levels = store.values(of: \.level)
        store.dispatch(LevelUp())
        store.dispatch(LevelUp())
        for await level in levels {
          seen.append(level)
          if level == 3 { break }
        }
      }  // nothing holds `levels` any more: its observer is removed
      // seen == [1, 2, 3]

      #expect(seen == [1, 2, 3])
      #expect(await ArticleSupport.eventually { store.observerCount == 0 })
    }

    @Test func aBagKeepsItsSubscriptionsAndCancelsThemWhenItGoes() {
      let store = Store(initialState: Player(), reducer: reducer)
      var board: ScoreBoard? = ScoreBoard(store: store)
      #expect(store.observerCount == 2)
      store.dispatch(Scored(points: 3))
      store.dispatch(LevelUp())
      #expect(scoreBoardOutput.lines == ["score 3", "level 2"])
      #expect(board != nil)
      board = nil
      #expect(store.observerCount == 0)
      store.dispatch(LevelUp())
      #expect(scoreBoardOutput.lines == ["score 3", "level 2"])
    }

    @Test func anOwnerBoundObserverEndsWithItsOwner() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(initialState: Player(), reducer: reducer)

      var badge: LevelBadge? = LevelBadge(title: "Level")
      if let badge {
        store.react(owner: badge) { badge, reaction in
          reaction.on(\.level) { change in print("\(badge.title) \(change.new)") }
        }
      }
      store.dispatch(LevelUp())  // prints "Level 2"
      badge = nil  // the observer ends with its owner
      store.dispatch(LevelUp())  // prints nothing

      #expect(output.lines == ["Level 2"])
      #expect(store.observerCount == 0)
      #expect(store.state.level == 3)
    }

    @Test func aReactorAnswersKeyPathAndDottedPathQueries() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(initialState: Player(), reducer: reducer)

      let subscription = store.react { reaction in
        reaction.on(\.score) { change in print("score \(change.old) → \(change.new)") }
        reaction.on("level") { change in print("level is now \(change.new)") }
      }
      store.dispatch(Scored(points: 3))
      store.dispatch(LevelUp())

      #expect(output.lines == ["score 0 → 3", "level is now 2"])
      subscription.cancel()
      store.dispatch(LevelUp())
      #expect(output.lines.count == 2)
    }

    @Test func aTapSeesEachActionWithTheStateBeforeIt() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let store = Store(initialState: Player(), reducer: reducer)

      let tap = store.onAction { action, before in
        print("\(action) at score \(before.score)")
      }
      store.dispatch(Scored(points: 2))
      tap.cancel()

      #expect(output.lines == ["Scored(points: 2) at score 0"])
      #expect(store.state.score == 2)
    }
  }
}
