#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The one lock type of Sluice: a non-recursive `pthread_mutex_t` (`Synchronization.Mutex` gets
/// false races from the thread sanitizer on Linux). A thread that waits under it waits on an
/// ``InternalCondition`` of its own. No user code runs while a Sluice lock is held, except
/// reducers, which run under their store's lock and are pure. Every module of the package uses it.
@usableFromInline package final class InternalLock: @unchecked Sendable {
  // @unchecked Sendable: the pointer is allocated once, never reassigned, and every access to
  // the memory it points to goes through the pthread calls, which are thread-safe.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

  @usableFromInline package init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  @inlinable
  package func lock() { pthread_mutex_lock(mutex) }

  @inlinable
  package func unlock() { pthread_mutex_unlock(mutex) }

  /// Takes the lock if it is free; returns `false` at once otherwise.
  @inlinable
  package func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

  /// Runs `body` under the lock.
  @inlinable
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// Waits on `condition`, which belongs to this lock; the lock must be held, and is held again
  /// on return.
  func wait(on condition: InternalCondition) { pthread_cond_wait(condition.condition, mutex) }
}

/// A condition variable of its own for one waiting thread, used with an ``InternalLock``, so a
/// wake-up reaches only the thread it is for.
final class InternalCondition: @unchecked Sendable {
  // @unchecked Sendable: the pointer is allocated once and only used through the pthread
  // calls, which are thread-safe.
  fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>

  init() {
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deinitialize(count: 1)
    condition.deallocate()
  }

  /// Wakes the thread waiting on the condition, if any.
  func signal() { pthread_cond_signal(condition) }
}
