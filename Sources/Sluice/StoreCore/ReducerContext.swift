import CSluiceSupport

/// What the state reads need to know about the reducers running on the calling thread.
///
/// A reducer runs under its store's lock, and reducers nest when one dispatches into an idle
/// lane, so a thread may hold several store locks at once. Each store records which thread runs
/// its reducer (``AnyStoreCore/reducingThread``) and each thread counts the reducers it runs: a
/// read uses them to tell whether the lock it wants is held by its own thread (waiting would
/// never end), and whether it holds any store lock (then it never waits for another store's
/// reducer).
///
/// A store marks its reducer's thread with ``ThreadContext/currentID``, the address of the
/// thread's reducer depth.
@usableFromInline
enum ReducerContext {
  /// The calling thread's reducer depth; its address is the thread's tag.
  @inlinable
  static var depth: UnsafeMutablePointer<Int> { sluice_reducer_depth_pointer() }

  /// Whether a reducer runs on the calling thread (it holds at least one store lock).
  static var isInsideReducer: Bool { sluice_reducer_depth_pointer().pointee > 0 }
}
