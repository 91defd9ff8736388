import Foundation
import Sluice
import Testing

/// A thread-safe list of events, in the order they were recorded.
final class RegLog<Element: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `items` is only touched under `lock`.
  private let lock = NSLock()
  private var items: [Element] = []

  init() {}

  func append(_ item: Element) { lock.withLock { items.append(item) } }

  var all: [Element] { lock.withLock { items } }
}

/// Holds an object weakly, to check lifetimes (a class property, not a local `weak var`).
final class RegWeak<Object: AnyObject>: @unchecked Sendable {
  // @unchecked Sendable: `object` is only touched under `lock`.
  private let lock = NSLock()
  private weak var reference: Object?

  init(_ object: Object? = nil) { reference = object }

  var object: Object? {
    get { lock.withLock { reference } }
    set { lock.withLock { reference = newValue } }
  }
}

struct RegCartState: Equatable, Sendable {
  var items: [String] = []
}

struct RegWishlistState: Equatable, Sendable {
  var items: [String] = []
}

/// Two namespaces whose action types have the same name.
enum RegCart {
  struct Added: Action { let item: String }
}

enum RegWishlist {
  struct Added: Action { let item: String }
}

struct RegCleared: Action {}
struct RegNobodyHandlesThis: Action {}

let regCartReducer = Reducer<RegCartState>()
  .on(RegCart.Added.self) { state, action in state.items.append(action.item) }
  .on(RegCleared.self) { state, _ in state.items.removeAll() }

let regWishlistReducer = Reducer<RegWishlistState>()
  .on(RegWishlist.Added.self) { state, action in state.items.append(action.item) }
  .on(RegCleared.self) { state, _ in state.items.removeAll() }

@Suite("Multi-store")
struct MultiStoreTests {
  @Test func oneActionReachesEveryStoreThatHandlesIt() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let cart = Store(
      initialState: RegCartState(items: ["tea"]), dispatcher: dispatcher, reducer: regCartReducer)
    let wishlist = Store(
      initialState: RegWishlistState(items: ["kettle"]), dispatcher: dispatcher,
      reducer: regWishlistReducer)

    dispatcher.dispatch(RegCleared())

    #expect(cart.state.items.isEmpty)
    #expect(wishlist.state.items.isEmpty)
  }

  @Test func anActionDispatchedThroughOneStoreReachesTheOthersOnItsDispatcher() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let cart = Store(
      initialState: RegCartState(items: ["tea"]), dispatcher: dispatcher, reducer: regCartReducer)
    let wishlist = Store(
      initialState: RegWishlistState(items: ["kettle"]), dispatcher: dispatcher,
      reducer: regWishlistReducer)

    cart.dispatch(RegCleared())

    #expect(wishlist.state.items.isEmpty)
    #expect(cart.dispatcher === dispatcher)
    #expect(wishlist.dispatcher === dispatcher)
  }

  @Test func observersOfEveryStoreSeeAllStoresUpdatedInTheSameLaneStep() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let cart = Store(
      initialState: RegCartState(items: ["tea"]), dispatcher: dispatcher, reducer: regCartReducer)
    let wishlist = Store(
      initialState: RegWishlistState(items: ["kettle"]), dispatcher: dispatcher,
      reducer: regWishlistReducer)
    let seen = RegLog<String>()
    // Each observer reads the *other* store: the one notified first (the cart, created first)
    // sees the wishlist already reduced, and the other way round.
    let cartObserver = cart.observe(\.items, from: .nextChange) { [weak wishlist] _ in
      seen.append("cart observer sees wishlist \(wishlist?.state.items ?? ["gone"])")
    }
    let wishlistObserver = wishlist.observe(\.items, from: .nextChange) { [weak cart] _ in
      seen.append("wishlist observer sees cart \(cart?.state.items ?? ["gone"])")
    }

    dispatcher.dispatch(RegCleared())

    #expect(
      seen.all == [
        "cart observer sees wishlist []",
        "wishlist observer sees cart []",
      ])
    cartObserver.cancel()
    wishlistObserver.cancel()
  }

  @Test func routingIsByTypeIdentityNotByTypeName() {
    // Both action types print as "Added"; a name-based router would mix them up.
    #expect("\(RegCart.Added.self)" == "\(RegWishlist.Added.self)")
    let dispatcher = Dispatcher(reporter: .ignoring)
    let cart = Store(initialState: RegCartState(), dispatcher: dispatcher, reducer: regCartReducer)
    let wishlist = Store(
      initialState: RegWishlistState(), dispatcher: dispatcher, reducer: regWishlistReducer)

    dispatcher.dispatch(RegCart.Added(item: "tea"))
    dispatcher.dispatch(RegWishlist.Added(item: "kettle"))
    dispatcher.dispatch(RegCart.Added(item: "milk"))

    #expect(cart.state.items == ["tea", "milk"])
    #expect(wishlist.state.items == ["kettle"])
  }

  @Test func aCatchAllReducerAlsoTellsSameNamedTypesApart() {
    let reducer = Reducer<RegCartState> { state, action in
      switch action {
      case let added as RegCart.Added: state.items.append("cart: \(added.item)")
      case let added as RegWishlist.Added: state.items.append("wishlist: \(added.item)")
      default: break
      }
    }
    let store = Store(initialState: RegCartState(), reducer: reducer)

    store.dispatch(RegWishlist.Added(item: "kettle"))
    store.dispatch(RegCart.Added(item: "tea"))

    #expect(store.state.items == ["wishlist: kettle", "cart: tea"])
  }

  @Test func anActionNoStoreHandlesChangesNothingAndCallsNoObserver() {
    /// A state that is not `Equatable`: its whole-state observers run on every action its store
    /// handles, so a call would show even if nothing changed.
    struct Untracked: Sendable { var touches = 0 }
    let dispatcher = Dispatcher(reporter: .ignoring)
    let cart = Store(
      initialState: RegCartState(items: ["tea"]), dispatcher: dispatcher, reducer: regCartReducer)
    let untracked = Store(
      initialState: Untracked(), dispatcher: dispatcher,
      reducer: Reducer<Untracked>().on(RegCleared.self) { state, _ in state.touches += 1 })
    let calls = RegLog<String>()
    let subscriptions = [
      cart.observe(from: .nextChange) { _ in calls.append("cart") },
      cart.observe(\.items, from: .nextChange) { _ in calls.append("cart items") },
      untracked.observe(from: .nextChange) { _ in calls.append("untracked") },
    ]

    dispatcher.dispatch(RegNobodyHandlesThis())
    cart.dispatch(RegNobodyHandlesThis())

    #expect(calls.all.isEmpty)
    #expect(cart.state.items == ["tea"])
    #expect(untracked.state.touches == 0)

    dispatcher.dispatch(RegCleared())
    #expect(calls.all == ["cart", "cart items", "untracked"])
    for subscription in subscriptions { subscription.cancel() }
  }

  @Test func storesOnOneDispatcherReduceInCreationOrderByDefault() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let order = RegLog<String>()
    func recorder(_ name: String) -> Store<RegCartState> {
      Store(
        initialState: RegCartState(), dispatcher: dispatcher,
        reducer: Reducer<RegCartState>().on(RegCleared.self) { _, _ in order.append(name) })
    }
    let stores = [recorder("a"), recorder("b"), recorder("c")]

    dispatcher.dispatch(RegCleared())

    #expect(order.all == ["a", "b", "c"])
    withExtendedLifetime(stores) {}
  }

  @Test func aStoreLeavesItsDispatcherWhenItIsDeinitialized() {
    let dispatcher = Dispatcher(reporter: .ignoring)
    let reduced = RegLog<String>()
    let weakStore = RegWeak<Store<RegCartState>>()
    do {
      let store = Store(
        initialState: RegCartState(), dispatcher: dispatcher,
        reducer: Reducer<RegCartState>().on(RegCleared.self) { _, _ in reduced.append("reduced") })
      weakStore.object = store
      dispatcher.dispatch(RegCleared())
    }

    dispatcher.dispatch(RegCleared())

    #expect(weakStore.object == nil, "a dispatcher does not keep an unregistered store alive")
    #expect(reduced.all == ["reduced"])
  }
}
