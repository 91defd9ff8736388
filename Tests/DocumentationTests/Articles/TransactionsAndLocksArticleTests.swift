import Foundation
import Sluice
import Testing

// The Swift snippets of Sources/Sluice/Sluice.docc/TransactionsAndLocks.md, compiled and run.

enum TransactionsArticle {
  struct Cart: Equatable, Sendable { var items: [String] = [] }
  struct Orders: Equatable, Sendable { var placed: [[String]] = [] }
  struct AddItem: Action { let name: String }

  struct Session: Equatable, Sendable { var user: String? }
  struct LoggedIn: Action { let user: String }

  /// The two stores of the article, with the two items it starts with.
  struct Fixture {
    let dispatcher: Dispatcher
    let cart: Store<Cart>
    let orders: Store<Orders>
  }

  static func fixture() -> Fixture {
    let dispatcher = Dispatcher()
    let cart = Store(
      initialState: Cart(), dispatcher: dispatcher,
      reducer: Reducer<Cart>().on(AddItem.self) { state, action in
        state.items.append(action.name)
      })
    let orders = Store(initialState: Orders(), dispatcher: dispatcher)
    cart.dispatch(AddItem(name: "tea"))
    cart.dispatch(AddItem(name: "cups"))
    return Fixture(dispatcher: dispatcher, cart: cart, orders: orders)
  }

  static func isCommitted(_ outcome: TransactionOutcome) -> Bool {
    if case .committed = outcome { return true }
    return false
  }

  static func isAborted(_ outcome: TransactionOutcome) -> Bool {
    if case .aborted = outcome { return true }
    return false
  }

  @Suite("Article: Changing Several Stores at Once and Pausing a Lane")
  struct Tests {
    @Test func aTransactionChangesTwoStoresAndEachNotifiesOnce() {
      let output = ArticleSupport.Output()
      @Sendable func print(_ line: String) { output.append(line) }
      let (dispatcher, cart, orders) = {
        let fixture = fixture()
        return (fixture.dispatcher, fixture.cart, fixture.orders)
      }()
      let ordersChanges = ArticleSupport.Output()
      let watch = orders.observe(\.placed, from: .nextChange) { change in
        ordersChanges.append("\(change.old) → \(change.new)")
      }

      let outcome = dispatcher.transaction("checkout") { tx in
        let items = tx.state(of: cart).items
        try tx.update(orders) { $0.placed.append(items) }
        try tx.update(cart) { $0.items.removeAll() }
      }
      // outcome is .committed: orders.state.placed == [["tea", "cups"]], cart.state.items == []

      #expect(isCommitted(outcome))
      #expect(orders.state.placed == [["tea", "cups"]])
      #expect(cart.state.items.isEmpty)
      #expect(ordersChanges.lines == [#"[] → [["tea", "cups"]]"#])

      let subscription = cart.observe(\.items, from: .nextChange) { change in
        print("cart: \(change.old) → \(change.new)")
      }
      dispatcher.transaction { tx in
        try tx.update(cart) { $0.items.append("pot") }
        try tx.update(cart) { $0.items.append("lid") }
      }

      #expect(output.lines == [#"cart: [] → ["pot", "lid"]"#])

      do {
        let outcome = dispatcher.transaction { tx in
          try tx.update(cart) { $0.items.append("saucer") }
          if tx.state(of: cart).items.count > 2 { try tx.abort() }
        }
        // outcome is .aborted: the cart is as it was, and no observer was called

        #expect(isAborted(outcome))
        #expect(cart.state.items == ["pot", "lid"])
        #expect(output.lines.count == 1)
      }
      subscription.cancel()
      watch.cancel()
    }

    @Test func actionsReducedInATransactionCommitWithIt() {
      let (dispatcher, cart, orders) = {
        let fixture = fixture()
        return (fixture.dispatcher, fixture.cart, fixture.orders)
      }()
      let taps = ArticleSupport.Output()
      let tap = cart.onAction { action, _ in taps.append("\(type(of: action))") }
      orders.dispatch(AddItem(name: "ignored by orders"))
      #expect(taps.lines == ["AddItem"])

      dispatcher.transaction("restore") { tx in
        tx.dispatch(AddItem(name: "kettle"))  // reduced into the staged cart
        try tx.update(orders) { $0.placed.removeAll() }
      }

      #expect(cart.state.items == ["tea", "cups", "ignored by orders", "kettle"])
      #expect(taps.lines == ["AddItem", "TransactionCommitted"])
      tap.cancel()
    }

    @Test func theAsyncFormCommitsWithoutBlockingAThread() async {
      let (dispatcher, cart) = {
        let fixture = fixture()
        return (fixture.dispatcher, fixture.cart)
      }()

      let outcome = await dispatcher.transaction { tx in
        try tx.update(cart) { $0.items.removeAll() }
      }

      #expect(isCommitted(outcome))
      #expect(cart.state.items.isEmpty)
    }

    @Test func aTransactionAskedForWhilePausedIsQueued() {
      let fixture = fixture()
      let lock = fixture.dispatcher.pause()
      let outcome = fixture.dispatcher.transaction { tx in
        try tx.update(fixture.cart) { $0.items.removeAll() }
      }
      if case .queued = outcome {
      } else {
        Issue.record("expected .queued, got \(outcome)")
      }
      #expect(fixture.cart.state.items == ["tea", "cups"])
      lock.release()
      #expect(fixture.cart.state.items.isEmpty)
    }

    @Test func aPausedLaneQueuesActionsAndReplaysThemOnRelease() {
      let (dispatcher, cart) = {
        let fixture = fixture()
        return (fixture.dispatcher, fixture.cart)
      }()

      let lock = dispatcher.pause()
      cart.dispatch(AddItem(name: "mug"))  // queued: the lane is paused
      let paused = cart.state.items.contains("mug")  // false
      lock.release()  // the queued action runs now, before release() returns
      let resumed = cart.state.items.contains("mug")  // true

      #expect(!paused)
      #expect(resumed)
      #expect(!dispatcher.isPaused)
      #expect(lock.isReleased)
    }

    @Test func anExclusiveActionHoldsTheLaneUntilItsReactionReleasesTheLock() async {
      let output = ArticleSupport.Output()
      @Sendable func loadHome(for user: String?) async {
        await Task.yield()
        output.append("home loaded for \(user ?? "nobody")")
      }
      let (dispatcher, cart) = {
        let fixture = fixture()
        return (fixture.dispatcher, fixture.cart)
      }()
      let cartWatch = cart.observe(\.items, from: .nextChange) { change in
        output.append("cart: \(change.new.last ?? "")")
      }

      let session = Store(
        initialState: Session(), dispatcher: dispatcher,
        reducer: Reducer<Session>().on(LoggedIn.self) { state, action in state.user = action.user })
      let subscription = session.react { reaction in
        reaction.on(\.user) { change in
          guard let lock = reaction.lock else { return }
          Task {
            await loadHome(for: change.new)  // the lane waits for this
            lock.release()
          }
        }
      }
      dispatcher.exclusive(LoggedIn(user: "ada"))  // runs now
      cart.dispatch(AddItem(name: "spoon"))  // queued until the lock is released

      #expect(session.state.user == "ada")
      #expect(await ArticleSupport.eventually { cart.state.items.last == "spoon" })
      #expect(output.lines == ["home loaded for ada", "cart: spoon"])
      #expect(!dispatcher.isPaused)
      subscription.cancel()
      cartWatch.cancel()
    }

    @Test func anExclusiveActionThatChangesNothingReleasesItsLock() {
      let fixture = fixture()
      let lock = fixture.dispatcher.exclusive(LoggedIn(user: "nobody handles this here"))
      #expect(lock.isReleased)
      #expect(!fixture.dispatcher.isPaused)
    }

    @Test func aSavepointIsATransactionThatAborts() {
      let fixture = fixture()
      let (dispatcher, cart) = (fixture.dispatcher, fixture.cart)
      let changes = ArticleSupport.Output()
      let watch = cart.observe(\.items, from: .nextChange) { change in
        changes.append(change.new.joined(separator: ","))
      }

      dispatcher.transaction("try a teapot") { tx in
        tx.dispatch(AddItem(name: "teapot"))
        if tx.state(of: cart).items.count > 2 { try tx.abort() }  // rollback: nothing changed
      }

      #expect(cart.state.items == ["tea", "cups"])
      #expect(changes.lines.isEmpty)
      watch.cancel()
    }

    @Test func aKeptStateWrittenBackReturnsToIt() {
      let fixture = fixture()
      let (dispatcher, cart) = (fixture.dispatcher, fixture.cart)
      let changes = ArticleSupport.Output()
      let watch = cart.observe(\.items, from: .nextChange) { change in
        changes.append(change.new.joined(separator: ","))
      }

      let saved = cart.state  // capture
      cart.dispatch(AddItem(name: "teapot"))
      dispatcher.transaction { tx in try tx.update(cart) { $0 = saved } }  // rollback

      #expect(cart.state.items == ["tea", "cups"])
      #expect(changes.lines == ["tea,cups,teapot", "tea,cups"])
      watch.cancel()
    }
  }
}
