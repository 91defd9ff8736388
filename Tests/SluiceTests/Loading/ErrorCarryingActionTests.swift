import Foundation
import Sluice
import Testing

// JBFlux's `JBAction.error`: one action type for success and failure.

/// JBFlux's `CurrentUserRefreshedAction`.
struct LdCurrentUserRefreshed: ErrorCarrying {
  var user: String?
  var error: (any Error)?
}

struct LdSessionState: Equatable, Sendable {
  var user: String?
  var profile: Loadable<String> = .idle
}

/// An action of the same shape that no store handles by type.
struct LdUnrelatedRefreshed: ErrorCarrying {
  var error: (any Error)?
}

enum LdSessionFixtures {
  /// JBFlux's `onCurrentUserRefreshedAction:`: on error, clear the user.
  static let reducer = Reducer<LdSessionState>()
    .on(LdCurrentUserRefreshed.self) { state, action in
      if let error = action.error {
        state.user = nil
        state.profile.fail(error)
      } else {
        state.user = action.user
        if let user = action.user { state.profile.fill(user) }
      }
    }
}

@Suite struct ErrorCarryingActionTests {
  @Test func successReachesTheReducerWithoutAnError() {
    let store = Store(initialState: LdSessionState(), reducer: LdSessionFixtures.reducer)
    store.dispatch(LdCurrentUserRefreshed(user: "ada", error: nil))
    #expect(store.state.user == "ada")
    #expect(store.state.profile == .loaded("ada"))
    #expect(store.errors.totalCount == 0)
    #expect(store.dispatcher.errors.totalCount == 0)
  }

  @Test func failureReachesTheReducerAndTheErrorChannels() throws {
    let store = Store(
      initialState: LdSessionState(user: "ada", profile: .loaded("ada")),
      reducer: LdSessionFixtures.reducer)
    let users = Recorder<String?>()
    let reported = Recorder<String>()
    let stateSubscription = store.observe(\.user) { change in users.append(change.new) }
    let errorSubscription = store.errors.observe { event in reported.append("\(event.error)") }

    store.dispatch(LdCurrentUserRefreshed(user: "ignored", error: LdFailure("token expired")))
    stateSubscription.cancel()
    errorSubscription.cancel()

    // The reducer saw the failure and cleared the user.
    #expect(store.state.user == nil)
    #expect(users.values == ["ada", nil])
    #expect(store.state.profile.isFailed)
    #expect(store.state.profile.value == "ada")
    #expect(store.state.profile.error?.description == "token expired")

    // The error is on the store's channel (and the dispatcher's), with the action.
    #expect(reported.values == ["token expired"])
    #expect(store.errors.totalCount == 1)
    let event = try #require(store.errors.last)
    #expect((event.error as? LdFailure)?.message == "token expired")
    #expect(event.source == .action("LdCurrentUserRefreshed"))
    #expect((event.action as? LdCurrentUserRefreshed)?.user == "ignored")
    #expect(store.dispatcher.errors.totalCount == 1)
  }

  @Test func successAndFailureAlternateThroughOneActionType() {
    let store = Store(initialState: LdSessionState(), reducer: LdSessionFixtures.reducer)
    store.dispatch(LdCurrentUserRefreshed(user: "ada", error: nil))
    store.dispatch(LdCurrentUserRefreshed(user: nil, error: LdCode.offline(retryIn: 1)))
    #expect(store.state.user == nil)
    store.dispatch(LdCurrentUserRefreshed(user: "alan", error: nil))
    #expect(store.state.user == "alan")
    #expect(store.state.profile == .loaded("alan"))
    #expect(store.errors.totalCount == 1)
    #expect(store.errors.last?.error as? LdCode == .offline(retryIn: 1))
  }

  @Test func onlyStoresThatHandleTheActionGetItsError() {
    let dispatcher = Dispatcher()
    let session = Store(
      initialState: LdSessionState(), dispatcher: dispatcher, reducer: LdSessionFixtures.reducer)
    let bystander = Store(
      initialState: MiniPromiseState(), dispatcher: dispatcher, reducer: MiniPromiseFixtures.reducer
    )

    dispatcher.dispatch(LdCurrentUserRefreshed(user: nil, error: LdFailure("x")))
    #expect(session.errors.totalCount == 1)
    #expect(bystander.errors.totalCount == 0)
    #expect(dispatcher.errors.totalCount == 1)

    // An error-carrying action no store handles still reaches the dispatcher's channel.
    dispatcher.dispatch(LdUnrelatedRefreshed(error: LdFailure("y")))
    #expect(session.errors.totalCount == 1)
    #expect(dispatcher.errors.totalCount == 2)
  }

  @Test func aCatchAllReducerHandlesTheActionAndGetsItsError() {
    // RxStateFlow/Unicore style: one reducer sees every action.
    let store = Store(
      initialState: LdSessionState(user: "ada"),
      reducer: Reducer<LdSessionState> { state, action in
        if let refreshed = action as? LdCurrentUserRefreshed {
          state.user = refreshed.error == nil ? refreshed.user : nil
        }
      })

    store.dispatch(LdCurrentUserRefreshed(user: nil, error: LdFailure("token expired")))
    #expect(store.state.user == nil)  // the store handled the action
    #expect(store.errors.totalCount == 1)
    #expect(store.dispatcher.errors.totalCount == 1)
  }

  @Test func anEffectCanAnswerWithAnErrorCarryingAction() async {
    // JBFlux's action creator as an effect: one response type for both outcomes.
    struct LdRefreshUser: Action {}
    let controller = LdController<Int>()
    let effects = Effects<LdSessionState>()
      .on(LdRefreshUser.self) { _, context in
        do {
          let id = try await controller.request(0)
          context.dispatch(LdCurrentUserRefreshed(user: "user\(id)", error: nil))
        } catch {
          context.dispatch(LdCurrentUserRefreshed(user: nil, error: error))
        }
      }
    let store = Store(
      initialState: LdSessionState(), reducer: LdSessionFixtures.reducer, effects: effects)

    store.dispatch(LdRefreshUser())
    controller.succeed(1)
    await store.settle()
    #expect(store.state.user == "user1")

    store.dispatch(LdRefreshUser())
    controller.fail(LdFailure("expired"))
    await store.settle()
    #expect(store.state.user == nil)
    #expect(store.errors.totalCount == 1)
    #expect(store.errors.last?.source == .action("LdCurrentUserRefreshed"))
  }
}
