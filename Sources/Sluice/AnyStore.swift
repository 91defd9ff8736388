/// A store of any state type, for APIs that take several stores (`waitFor`, and later
/// transactions and reactors over several stores).
///
/// Every ``Store`` is an `AnyStore`; the class cannot be subclassed outside Sluice.
public class AnyStore: @unchecked Sendable {
  // @unchecked Sendable: immutable; the core and the dispatcher are Sendable.
  let anyCore: AnyStoreCore

  /// The dispatcher whose lane this store is on: the lane's one dispatcher, the same object for
  /// the lane's whole life.
  ///
  /// Every store keeps its dispatcher alive, registered or not (see "Identity and lifetime" in
  /// ``Dispatcher``).
  public let dispatcher: Dispatcher

  /// Attaches a reactor that sees this store's changes as ``MultiReaction``s: made by
  /// ``Store``'s initializer, which knows the state type (the store is its first argument).
  private let multiReactorMaker: MultiReactorMaker

  @usableFromInline typealias MultiReactorMaker =
    @Sendable (
      AnyStore, (@Sendable () -> Bool)?, @escaping @Sendable (MultiReaction) -> Bool
    ) -> Subscription

  @usableFromInline
  init(
    anyCore: AnyStoreCore, dispatcher: Dispatcher,
    multiReactorMaker: @escaping MultiReactorMaker
  ) {
    self.anyCore = anyCore
    self.dispatcher = dispatcher
    self.multiReactorMaker = multiReactorMaker
  }

  /// Attaches a reactor that sees this store's changes as ``MultiReaction``s.
  func addMultiReactor(
    ownerGone: (@Sendable () -> Bool)?, handler: @escaping @Sendable (MultiReaction) -> Bool
  ) -> Subscription {
    multiReactorMaker(self, ownerGone, handler)
  }

  /// Declares that this store reduces every action after `stores` did (Flux's `waitFor`).
  ///
  /// Without a declaration, stores on one dispatcher reduce an action in the order they were
  /// created. A declaration that would close a cycle, or that names a store on another
  /// dispatcher, is reported and ignored.
  ///
  /// ```swift
  /// let prices = Store(initialState: Prices(), dispatcher: dispatcher, reducer: pricesReducer)
  /// let cart = Store(initialState: Cart(), dispatcher: dispatcher, reducer: cartReducer)
  /// prices.waitFor(cart)  // prices reduces after cart, whatever their creation order
  /// ```
  public func waitFor(_ stores: AnyStore..., file: StaticString = #fileID, line: UInt = #line) {
    for other in stores {
      guard other.anyCore.lane === anyCore.lane else {
        anyCore.lane.report(
          .foreignStore,
          "waitFor named a store on another dispatcher; the ordering was ignored.", file: file,
          line: line)
        continue
      }
      if !anyCore.lane.order(anyCore, after: other.anyCore) {
        anyCore.lane.report(
          .storeOrderCycle,
          "waitFor would make an ordering cycle between stores; it was ignored.", file: file,
          line: line)
      }
    }
  }
}
