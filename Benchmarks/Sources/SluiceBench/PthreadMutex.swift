#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A plain `pthread_mutex_t`, like Sluice's internal lock (which is not public), for the
/// `floor.lock` reference case.
final class PthreadMutex: @unchecked Sendable {
  // @unchecked Sendable: the pointer is allocated once and only used through pthread calls.
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  @inline(__always)
  func lock() { pthread_mutex_lock(mutex) }

  @inline(__always)
  func unlock() { pthread_mutex_unlock(mutex) }
}
