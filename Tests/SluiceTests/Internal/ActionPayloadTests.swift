import Foundation
import Testing

@testable import Sluice

/// The action handed to the lane by reference (``ActionPayload``): what the typed handlers read
/// through the pointer, and what the paths that box it (catch-alls, middleware, effects, the
/// queue) receive, must be the same action, on the shortcut and on the queued path.
@Suite struct ActionPayloadTests {
  @Test func boxingAPayloadGivesBackTheActionWithItsDynamicType() {
    let wide = WideAction(a: 1, b: 2, c: 3, d: 4, e: 5, label: "five words and a string")
    let boxed = ActionPayload.with(wide) { $0.boxed() }
    #expect((boxed as? WideAction) == wide)

    let move: BaseMove = LabelledMove(label: "sub")
    let boxedMove = ActionPayload.with(move) { payload -> any Action in
      #expect(payload.id == ObjectIdentifier(LabelledMove.self))
      return payload.boxed()
    }
    #expect(ObjectIdentifier(type(of: boxedMove)) == ObjectIdentifier(LabelledMove.self))
    #expect((boxedMove as? LabelledMove) === move)

    let reopened = ActionPayload.with(boxed: boxedMove) { $0.boxed() }
    #expect((reopened as? LabelledMove) === move)
  }

  @Test func typedAndCatchAllHandlersSeeTheSameActionInTheOrderTheyWereAdded() async {
    let reducer = Reducer<[String]>()
      .on(WideAction.self) { state, action in state.append("typed1:\(action.e):\(action.label)") }
      .combined(
        with: Reducer { state, action in
          if let wide = action as? WideAction { state.append("any:\(wide.e):\(wide.label)") }
        }
      )
      .on(WideAction.self) { state, action in state.append("typed2:\(action.a)") }
    let store = Store(initialState: [String](), reducer: reducer)
    let action = WideAction(a: 7, b: 0, c: 0, d: 0, e: 9, label: "x")

    store.dispatch(action)  // the shortcut: an idle lane
    let expected = ["typed1:9:x", "any:9:x", "typed2:7"]
    #expect(store.state == expected)

    store.dispatch(action, mode: .async)  // the queue: boxed
    await store.send(action)
    #expect(store.state == expected + expected + expected)
  }

  @Test func aSubclassActionThroughItsSuperclassTypeReachesTheSubclassHandlerIntact() {
    let store = Store(
      initialState: [String](),
      reducer: Reducer<[String]>()
        .on(BaseMove.self) { state, _ in state.append("base") }
        .on(LabelledMove.self) { state, action in state.append(action.label) })
    let seen = Recorder<String>()
    let subscription = store.onAction { action, _ in
      seen.append("\(type(of: action))")
    }
    let move: BaseMove = LabelledMove(label: "through the superclass")
    store.dispatch(move)
    #expect(store.state == ["through the superclass"])
    #expect(seen.values == ["LabelledMove"])
    subscription.cancel()
  }

  @Test func middlewareAndEffectsReceiveTheActionTheReducerRead() async {
    let effectSaw = Recorder<String>()
    let done = DispatchSemaphore(value: 0)
    let store = Store(
      initialState: [String](),
      reducer: Reducer<[String]>().on(WideAction.self) { state, action in
        state.append(action.label)
      },
      middleware: [
        Middleware(intercept: { action, _ in
          guard let wide = action as? WideAction, wide.a == 0 else { return .proceed }
          var replaced = wide
          replaced.a = 1
          replaced.label = "replaced"
          return .replace(replaced)
        })
      ],
      effects: Effects<[String]>().on(WideAction.self) { action, _ in
        effectSaw.append(action.label)
        done.signal()
      })
    store.dispatch(WideAction(a: 0, b: 0, c: 0, d: 0, e: 0, label: "original"))
    #expect(store.state == ["replaced"])
    #expect(await wait(for: done))
    #expect(effectSaw.values == ["replaced"])
  }
}

/// An action wider than an existential's inline buffer.
struct WideAction: Action, Equatable {
  var a: Int
  var b: Int
  var c: Int
  var d: Int
  var e: Int
  var label: String
}

final class LabelledMove: BaseMove, @unchecked Sendable {
  // @unchecked Sendable: immutable.
  let label: String

  init(label: String) {
    self.label = label
  }
}
