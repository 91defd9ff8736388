import Foundation
import Sluice
import Testing

// The Sluice snippets of Sources/Sluice/Sluice.docc/MigratingFromJBFlux.md, compiled and run.
// Inside `JBFluxGuide`, `print` is the namespace's own: it records each line, so a test can
// assert what a snippet printed, and in what order.

enum JBFluxGuide {
  // MARK: Register a store

  struct SomeState: StoreDefinition, Equatable {
    var value = 0

    static let initialState = SomeState()
    static let reducer = Reducer<SomeState>()
  }

  // MARK: Map actions to handlers

  enum FirstHandler {
    struct CurrentUserRefreshed: Action {
      let user: UserModel
    }

    struct CurrentUserState: StoreDefinition, Equatable {
      var currentUserModel: UserModel?

      static let initialState = CurrentUserState()
      static let reducer = Reducer<CurrentUserState>()
        .on(CurrentUserRefreshed.self) { state, action in
          // action.user is a UserModel: no cast
          state.currentUserModel = action.user
        }
    }
  }

  struct UserModel: Equatable, Sendable {
    var name: String
  }

  // MARK: One action for success and failure

  struct CurrentUserRefreshed: ErrorCarrying {
    var user: UserModel?
    var error: (any Error)? = nil
  }

  struct CurrentUserState: StoreDefinition, Equatable {
    var currentUserModel: UserModel?

    static let initialState = CurrentUserState()
    static let reducer = Reducer<CurrentUserState>()
      .on(CurrentUserRefreshed.self) { state, action in
        if action.error != nil {
          // React to the action failure, for example:
          state.currentUserModel = nil
        } else {
          state.currentUserModel = action.user
        }
      }
  }

  // MARK: Register every store

  struct CurrentUserMessagesState: StoreDefinition, Equatable {
    var owner: String?
    var messages: [String] = []

    static let initialState = CurrentUserMessagesState()
    static let reducer = Reducer<CurrentUserMessagesState>()
      .on(CurrentUserRefreshed.self) { state, action in
        guard action.user?.name != state.owner else { return }
        state.owner = action.user?.name  // another user: drop the previous user's messages
        state.messages = []
      }
      .on(MessageReceived.self) { state, action in state.messages.append(action.text) }
  }

  struct MessageReceived: Action {
    let text: String
  }

  // MARK: Bind a view controller to a store

  final class SomeViewController: Sendable {
    let bag = SubscriptionBag()

    init(dispatcher: Dispatcher) {
      // Retrieve the registered store
      guard let userStore = dispatcher.store(CurrentUserState.self) else { return }

      // Bind this object to the store's changes: the binding ends when it is deallocated
      userStore.observe(owner: self) { controller, state in
        controller.render(state.currentUserModel)
      }
      // Errors carried by actions arrive on the store's error channel
      userStore.errors.observe { event in
        print("refresh failed: \(event.error)")
      }.store(in: bag)
    }

    func render(_ user: UserModel?) {
      print("user: \(user?.name ?? "none")")
    }
  }

  // MARK: Action creators

  enum UserActionCreator {
    static func currentUserRefreshed(_ user: UserModel) -> CurrentUserRefreshed {
      CurrentUserRefreshed(user: user)
    }

    static func currentUserRefreshFailed(_ error: any Error) -> CurrentUserRefreshed {
      CurrentUserRefreshed(user: nil, error: error)
    }
  }

  struct RefreshCurrentUser: Action {}

  /// A stand-in for the app's network client.
  struct UserAPI: DependencyKey, Sendable {
    let result: Result<UserModel, TokenExpired>

    /// A client whose token expired; the guide's effects are given their own.
    static let defaultValue = UserAPI(result: .failure(TokenExpired()))

    func currentUser() async throws -> UserModel { try result.get() }
  }

  struct TokenExpired: Error, CustomStringConvertible {
    var description: String { "token expired" }
  }

  // MARK: Test support

  /// The lines the snippets printed.
  static let printed = Printed()

  /// Records a line as `Swift.print` would write it.
  static func print(_ items: Any...) {
    printed.append(items.map { "\($0)" }.joined(separator: " "))
  }

  typealias Printed = PrintedLines
}

extension JBFluxGuide {
  @Suite("Migrating from JBFlux", .serialized)
  struct GuideTests {
    init() { _ = printed.take() }

    @Test func registerCreatesTheStoreAndKeepsIt() throws {
      let dispatcher = Dispatcher()
      dispatcher.register(SomeState.self)

      let store = dispatcher.store(SomeState.self)  // Store<SomeState>?, nil if not registered
      let found = try #require(store)
      #expect(found.state == SomeState.initialState)
      #expect(dispatcher.store(SomeState.self) === found, "the same instance, every time")
      #expect(dispatcher.store(CurrentUserState.self) == nil)
    }

    @Test func registeringTwiceIsReportedAndKeepsTheFirstStore() throws {
      let log = IssueReporter.collecting()
      let dispatcher = Dispatcher(reporter: log)
      let first = dispatcher.register(SomeState.self)
      let second = dispatcher.register(SomeState.self)
      #expect(first === second)
      #expect(log.issues.map(\.kind) == [.duplicateRegistration])
    }

    @Test func theHandlerReceivesATypedPayload() throws {
      let dispatcher = Dispatcher()
      let store = dispatcher.register(FirstHandler.CurrentUserState.self)
      dispatcher.dispatch(FirstHandler.CurrentUserRefreshed(user: UserModel(name: "Ada")))
      #expect(store.state.currentUserModel == UserModel(name: "Ada"))
    }

    @Test func dispatchRunsTheHandlerBeforeReturning() throws {
      let dispatcher = Dispatcher()
      dispatcher.register(CurrentUserState.self)
      let userModel = UserModel(name: "Ada")

      dispatcher.dispatch(CurrentUserRefreshed(user: userModel))
      // The handler has run: the store's state holds userModel
      #expect(dispatcher.store(CurrentUserState.self)?.state.currentUserModel == userModel)
    }

    @Test func aFailureClearsTheUserAndReachesTheErrorChannels() throws {
      let dispatcher = Dispatcher()
      let store = dispatcher.register(CurrentUserState.self)
      dispatcher.dispatch(CurrentUserRefreshed(user: UserModel(name: "Ada")))
      #expect(store.errors.totalCount == 0)

      dispatcher.dispatch(CurrentUserRefreshed(user: nil, error: TokenExpired()))
      #expect(store.state.currentUserModel == nil)
      #expect(store.errors.totalCount == 1)
      #expect(store.errors.last?.error is TokenExpired)
      #expect(store.errors.last?.source == .action("CurrentUserRefreshed"))
      #expect(dispatcher.errors.totalCount == 1)
    }

    @Test func oneActionReachesEveryRegisteredStore() throws {
      let dispatcher = Dispatcher()
      dispatcher.register(CurrentUserState.self)
      dispatcher.register(CurrentUserMessagesState.self)

      dispatcher.dispatch(CurrentUserRefreshed(user: UserModel(name: "Ada")))
      dispatcher.dispatch(MessageReceived(text: "hello"))
      let user = try #require(dispatcher.store(CurrentUserState.self))
      let messages = try #require(dispatcher.store(CurrentUserMessagesState.self))
      #expect(user.state.currentUserModel?.name == "Ada")
      #expect(messages.state == CurrentUserMessagesState(owner: "Ada", messages: ["hello"]))

      dispatcher.dispatch(CurrentUserRefreshed(user: UserModel(name: "Alan")))
      #expect(user.state.currentUserModel?.name == "Alan")
      #expect(messages.state == CurrentUserMessagesState(owner: "Alan", messages: []))
    }

    @Test func theViewControllerIsUnboundWhenItIsDeallocated() throws {
      let dispatcher = Dispatcher()
      let userStore = dispatcher.register(CurrentUserState.self)
      var controller: SomeViewController? = SomeViewController(dispatcher: dispatcher)
      weak let weakController = controller

      dispatcher.dispatch(UserActionCreator.currentUserRefreshed(UserModel(name: "Ada")))
      dispatcher.dispatch(UserActionCreator.currentUserRefreshFailed(TokenExpired()))
      #expect(
        printed.take() == [
          "user: none", "user: Ada", "user: none", "refresh failed: token expired",
        ])
      #expect(userStore.observerCount == 1)

      controller = nil
      #expect(weakController == nil, "the store does not keep the controller alive")
      dispatcher.dispatch(UserActionCreator.currentUserRefreshed(UserModel(name: "Alan")))
      dispatcher.dispatch(UserActionCreator.currentUserRefreshFailed(TokenExpired()))
      #expect(printed.take().isEmpty)
      #expect(userStore.observerCount == 0)
    }

    @Test func aControllerWithoutARegisteredStoreBindsNothing() {
      let dispatcher = Dispatcher()
      let controller = SomeViewController(dispatcher: dispatcher)
      #expect(controller.bag.count == 0)
      #expect(printed.take().isEmpty)
    }

    @Test func actionCreatorsMakeSuccessAndFailure() {
      let ada = UserModel(name: "Ada")
      #expect(UserActionCreator.currentUserRefreshed(ada).user == ada)
      #expect(UserActionCreator.currentUserRefreshed(ada).error == nil)
      #expect(UserActionCreator.currentUserRefreshFailed(TokenExpired()).user == nil)
      #expect(UserActionCreator.currentUserRefreshFailed(TokenExpired()).error is TokenExpired)
    }

    @Test(arguments: [true, false])
    func anEffectIsTheAsynchronousActionCreator(succeeds: Bool) async throws {
      let dispatcher = Dispatcher()
      let store = dispatcher.register(CurrentUserState.self)
      let api = UserAPI(result: succeeds ? .success(UserModel(name: "Ada")) : .failure(.init()))

      let userEffects = Effects<Void>()
        .on(RefreshCurrentUser.self, policy: .latest) { _, context in
          do {
            let user = try await context.dependencies.userAPI.currentUser()
            context.dispatch(UserActionCreator.currentUserRefreshed(user))
          } catch {
            context.dispatch(UserActionCreator.currentUserRefreshFailed(error))
          }
        }
      dispatcher.addEffects(userEffects) { $0.userAPI = api }
      dispatcher.dispatch(RefreshCurrentUser())
      await dispatcher.store(CurrentUserState.self)?.settle()  // the effect ran, its action reduced

      #expect(store.state.currentUserModel == (succeeds ? UserModel(name: "Ada") : nil))
      #expect(store.errors.totalCount == (succeeds ? 0 : 1))
    }
  }
}

extension Dependencies {
  /// The guide's network client.
  var userAPI: JBFluxGuide.UserAPI {
    get { self[JBFluxGuide.UserAPI.self] }
    set { self[JBFluxGuide.UserAPI.self] = newValue }
  }
}
