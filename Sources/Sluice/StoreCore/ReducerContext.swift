import CSluiceSupport

/// The reducers running on the calling thread, for state reads: a reducer runs under its
/// store's lock, and reducers nest (one dispatches into an idle lane). With the store's
/// ``AnyStoreCore/reducingThread``, a read tells whether its own thread holds the lock it wants
/// (waiting would never end), and whether it holds any store lock (then it never waits).
@usableFromInline
enum ReducerContext {
  /// The calling thread's reducer depth; its address is the thread's tag.
  @inlinable
  static var depth: UnsafeMutablePointer<Int> { sluice_reducer_depth_pointer() }

  /// Whether a reducer runs on the calling thread (it holds at least one store lock).
  static var isInsideReducer: Bool { sluice_reducer_depth_pointer().pointee > 0 }
}
