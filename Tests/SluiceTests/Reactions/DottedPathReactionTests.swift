import Foundation
import Testing

@testable import Sluice

/// S9: dotted paths (`"info.nest.foo"`, `"items.2.name"`) over `Codable` states and dynamic
/// dictionaries; an unknown path is reported, never a crash; `_` properties never change.
@Suite struct DottedPathReactionTests {
  struct Item: Codable, Equatable, Sendable {
    var name = ""
    var _draft = ""
  }

  struct Inner: Codable, Equatable, Sendable {
    var foo = 1
    var maybe: Int?
    var _cache = 0
  }

  struct Shelf: Codable, Equatable, Sendable {
    var counter = 0
    var inner = Inner()
    var items: [Item] = [Item(name: "zero"), Item(name: "one")]
    var tags: [String: Int] = ["a": 1]
    var extra: StateValue = ["nest": ["data": 1]]
  }

  struct Mutate: Action {
    let body: @Sendable (inout Shelf) -> Void
  }

  static let reducer = Reducer<Shelf>().on(Mutate.self) { state, mutate in mutate.body(&state) }

  static func store(_ reporter: IssueReporter = .ignoring) -> Store<Shelf> {
    Store(
      initialState: Shelf(), dispatcher: Dispatcher(reporter: reporter), reducer: Self.reducer)
  }

  @Test func aDottedPathReactionStillFiresAfterAStepThatChangedSomethingElse() {
    let store = Self.store()
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on("inner.foo") { change in heard.append("foo \(change.old)->\(change.new)") }
    }
    store.dispatch(Mutate { $0.counter += 1 })  // not queried: no reaction
    store.dispatch(Mutate { $0.inner.foo = 2 })
    store.dispatch(Mutate { $0.counter += 1 })
    store.dispatch(Mutate { $0.inner.foo = 3 })
    #expect(heard.values == ["foo 1->2", "foo 2->3"])
    subscription.cancel()
  }

  @Test func arraysAreReachableByIndexAndDictionariesByKey() {
    let store = Self.store()
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on("items.1.name") { heard.append("items.1.name \($0.new)") }
      reaction.on("tags.a") { heard.append("tags.a \($0.new)") }
      reaction.on("extra.nest.data") { heard.append("extra.nest.data \($0.new)") }
      reaction.on(\.counter) { heard.append("counter \($0.new)") }
    }
    store.dispatch(
      Mutate { state in
        state.items[1].name = "uno"
        state.tags["a"] = 2
        state.extra["nest"]["data"] = "two"
        state.counter = 1
      })
    #expect(
      heard.values == [
        "items.1.name \"uno\"", "tags.a 2", "extra.nest.data \"two\"", "counter 1",
      ])
    subscription.cancel()
  }

  @Test func anOptionalReadsAsNullWhenNil() {
    let store = Self.store()
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on("inner.maybe") { change in
        heard.append("\(change.old) -> \(change.new), as Int: \(change.new(as: Int.self) ?? -1)")
      }
    }
    store.dispatch(Mutate { $0.inner.maybe = 7 })
    store.dispatch(Mutate { $0.inner.maybe = nil })
    #expect(heard.values == ["null -> 7, as Int: 7", "7 -> null, as Int: -1"])
    subscription.cancel()
  }

  @Test func anUnknownPathIsReportedOnceAndNeverCrashes() {
    let issues = TxIssues()
    let store = Self.store(issues.reporter)
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on("inner.nope") { _ in heard.append("nope") }
      // An index past the end is not unknown: arrays grow. It stays quiet until it exists.
      reaction.on("items.9.name") { _ in heard.append("out of range") }
      reaction.on("counter.deeper") { _ in heard.append("through a number") }
      reaction.on("") { _ in heard.append("empty") }
      reaction.on("inner..foo") { _ in heard.append("empty segment") }
      reaction.on(\.counter) { heard.append("counter \($0.new)") }
    }
    store.dispatch(Mutate { $0.counter = 1 })
    store.dispatch(Mutate { $0.counter = 2 })
    #expect(heard.values == ["counter 1", "counter 2"])
    #expect(issues.kinds == Array(repeating: .unknownPath, count: 4))
    subscription.cancel()
  }

  @Test func underscoredPropertiesAreInvisibleToDottedPathsAtAnyDepth() {
    let issues = TxIssues()
    let store = Self.store(issues.reporter)
    let heard = Recorder<String>()
    let handlerCalls = TxCount()
    let subscription = store.react { reaction in
      handlerCalls.increment()
      reaction.on("inner") { _ in heard.append("inner") }
      reaction.on("inner._cache") { _ in heard.append("inner._cache") }
      reaction.on("items") { _ in heard.append("items") }
      reaction.on(\.inner._cache) { _ in heard.append("key path inner._cache") }
    }
    let atAttach = handlerCalls.value
    store.dispatch(
      Mutate { state in
        state.inner._cache = 99
        state.items[0]._draft = "typing…"
      })
    #expect(heard.values.isEmpty)
    #expect(handlerCalls.value == atAttach)
    #expect(issues.kinds.isEmpty)
    store.dispatch(Mutate { $0.inner.foo = 5 })
    #expect(heard.values == ["inner"])
    subscription.cancel()
  }

  /// Flask §1.10.7: the parent of a `_` property decodes from its change, `_` properties and
  /// all, old and new; a step that changed only `_` properties is still no change.
  @Test func theParentOfAnUnderscoredPropertyDecodesWithItsUnderscoredProperties() {
    let store = Self.store()
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on("inner") { change in
        let old = change.old(as: Inner.self)
        let new = change.new(as: Inner.self)
        heard.append(
          "inner \(old.map { "\($0.foo)/\($0._cache)" } ?? "nil") -> "
            + "\(new.map { "\($0.foo)/\($0._cache)" } ?? "nil")")
      }
      reaction.on("items.0") { change in
        heard.append("item \(change.new(as: Item.self).map { "\($0.name)/\($0._draft)" } ?? "nil")")
      }
    }
    store.dispatch(Mutate { $0.inner._cache = 7 })  // only `_`: no change
    store.dispatch(Mutate { $0.inner.foo = 2 })
    store.dispatch(
      Mutate { state in
        state.items[0].name = "first"
        state.items[0]._draft = "typing"
      })
    #expect(heard.values == ["inner 1/7 -> 2/7", "item first/typing"])
    #expect(store.state.inner == Inner(foo: 2, maybe: nil, _cache: 7))
    subscription.cancel()
  }

  @Test func aDottedPathChangeCarriesItsPathAndStore() {
    let store = Self.store()
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on("inner.foo") { change in
        heard.append("\(change.path) same store: \(change.store === store)")
      }
    }
    store.dispatch(Mutate { $0.inner.foo = 10 })
    #expect(heard.values == ["inner.foo same store: true"])
    subscription.cancel()
  }

  @Test func aStateThatIsNotEncodableReportsInsteadOfCrashing() {
    struct Opaque: Equatable, Sendable { var value = 0 }
    struct SetValue: Action { let value: Int }
    let issues = TxIssues()
    let store = Store(
      initialState: Opaque(), dispatcher: Dispatcher(reporter: issues.reporter),
      reducer: Reducer<Opaque>().on(SetValue.self) { state, action in state.value = action.value })
    let heard = Recorder<String>()
    let subscription = store.react { reaction in
      reaction.on("value") { _ in heard.append("dotted") }
      reaction.on(\.value) { heard.append("key path \($0.new)") }
    }
    store.dispatch(SetValue(value: 1))
    #expect(heard.values == ["key path 1"])
    #expect(issues.kinds.contains(.unencodableState))
    subscription.cancel()
  }
}
