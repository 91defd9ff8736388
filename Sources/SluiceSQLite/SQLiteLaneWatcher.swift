import Foundation
import GRDB
import Sluice

#if canImport(Glibc)
  import Glibc
#endif

/// Ends the waits for new entries of an SQLite log's lanes: one thread per engine, started by
/// the first wait, sleeps until the database file or its WAL changes (inotify on Linux), then
/// reads the heads of the lanes that have waits, in one transaction, and ends only the waits
/// whose lane moved past them. A write reaches the file before its commit is visible (the
/// fsync, then the WAL index, which inotify does not see): after a change, the heads are read
/// again every 250 µs for 4 ms, then every millisecond up to 20 ms, unless another change comes
/// first. A lane nobody waits for costs nothing; an engine whose file does not change does not
/// wake. Where inotify is missing, the thread looks every 2 ms instead. The thread ends, and
/// closes its descriptor, once the watcher is released.
final class SQLiteLaneWatcher: Sendable {
  private struct Wait {
    let lane: String
    let after: UInt64
    var continuation: CheckedContinuation<Void, Never>?
  }

  private struct State {
    var waits: [UInt64: Wait] = [:]
    var nextID: UInt64 = 0
    var started = false
  }

  private let state = Guarded(State())
  /// What the watcher shares with its thread, which outlives it: the thread's inotify
  /// descriptor and watch while the thread has them open (-1 otherwise), and whether the
  /// watcher is gone.
  private let inotify = Guarded((descriptor: Int32(-1), watch: Int32(-1), released: false))
  /// Runs on the thread as it ends.
  private let ended: @Sendable () -> Void
  /// The database file's name, and its write-ahead log's, in `folder`.
  private let names: Set<String>
  private let folder: String
  /// Reads the heads of `lanes` (on the watcher's thread).
  private let heads: @Sendable (_ lanes: [String]) throws -> [String: UInt64]

  init(
    path: String, heads: @escaping @Sendable (_ lanes: [String]) throws -> [String: UInt64],
    ended: @escaping @Sendable () -> Void = {}
  ) {
    let url = URL(fileURLWithPath: path)
    folder = url.deletingLastPathComponent().path
    names = [url.lastPathComponent, url.lastPathComponent + "-wal"]
    self.heads = heads
    self.ended = ended
  }

  /// Registers a wait for an entry of `lane` after `after`, before the caller's last look at
  /// the head (so that no change between the two is missed); returns its id.
  func register(lane: String, after: UInt64) -> UInt64 {
    let (id, start) = state.withLock { state in
      defer { (state.nextID, state.started) = (state.nextID &+ 1, true) }
      state.waits[state.nextID] = Wait(lane: lane, after: after)
      return (state.nextID, !state.started)
    }
    if start { startThread() }
    return id
  }

  /// Returns once the wait `id` ended (its lane moved, or ``finish(_:)``).
  func wait(_ id: UInt64) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let waits = state.withLock { state -> Bool in
        state.waits[id]?.continuation = continuation
        return state.waits[id] != nil
      }
      if !waits { continuation.resume() }
    }
  }

  /// Ends the wait `id`, if it has not ended.
  func finish(_ id: UInt64) {
    let wait = state.withLock { $0.waits.removeValue(forKey: id) }
    wait?.continuation?.resume()
  }

  /// Ends the waits whose lane has an entry after the one they wait after.
  private func check() {
    let lanes = state.withLock { Set($0.waits.values.map(\.lane)) }
    guard !lanes.isEmpty, let heads = try? heads(Array(lanes)) else { return }
    let ready = state.withLock { state in
      let ids = state.waits.filter { (heads[$0.value.lane] ?? 0) > $0.value.after }.map(\.key)
      return ids.compactMap { state.waits.removeValue(forKey: $0) }
    }
    for wait in ready { wait.continuation?.resume() }
  }

  deinit {
    #if os(Linux)
      // The removal sends the thread an event (IN_IGNORED); it then finds the watcher gone and
      // ends. Under the lock the thread takes to publish its watch and to give up its
      // descriptor: the watch is removed while the descriptor is still the thread's, and a
      // thread that has not published it yet finds the watcher gone.
      inotify.withLock { inotify in
        inotify.released = true
        if inotify.descriptor >= 0 { inotify_rm_watch(inotify.descriptor, inotify.watch) }
      }
    #endif
  }

  private func startThread() {
    // No strong reference stays on this thread: the engine's release ends it.
    let thread = Thread { [weak self, folder, names, inotify, ended] in
      defer { ended() }
      #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        let watch =
          descriptor < 0
          ? -1 : inotify_add_watch(descriptor, folder, UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO))
        guard watch >= 0 else {
          if descriptor >= 0 { close(descriptor) }
          return Self.look(self)
        }
        defer {
          inotify.withLock { $0.descriptor = -1 }
          close(descriptor)
        }
        let published = inotify.withLock { inotify in
          if !inotify.released { (inotify.descriptor, inotify.watch) = (descriptor, watch) }
          return !inotify.released
        }
        // A watcher released before this has no watch to remove.
        guard published else { return }
        // A change between the first wait's look at the head and the watch is not missed.
        self?.check()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var events = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var rechecks = 0
        while true {
          // While rechecking: the first ones 250 µs apart (poll counts whole milliseconds), the
          // rest 1 ms apart.
          let ready = poll(&events, 1, rechecks > 16 ? 0 : rechecks > 0 ? 1 : -1)
          if ready < 0, errno == EINTR { continue }
          guard ready >= 0 else { return }
          if ready > 0 {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            // Before the names: the event of the watch's removal names no file.
            guard self != nil else { return }
            guard Self.namesAny(names, in: buffer, count: count) else { continue }
            rechecks = 32
          } else {
            if rechecks > 16 {
              var pause = timespec(tv_sec: 0, tv_nsec: 250_000)
              nanosleep(&pause, nil)
            }
            rechecks -= 1
          }
          guard let watcher = self else { return }
          watcher.check()
        }
      #else
        Self.look(self)
      #endif
    }
    thread.name = "sluice.shared-log.watcher"
    thread.start()
  }

  #if os(Linux)
    /// Whether the inotify events in the first `count` bytes of `buffer` name one of `names`.
    private static func namesAny(_ names: Set<String>, in buffer: [UInt8], count: Int) -> Bool {
      let header = MemoryLayout<inotify_event>.size
      var offset = 0
      while offset + header <= count {
        let length = buffer.withUnsafeBytes {
          Int($0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self).len)
        }
        let start = offset + header
        let end = min(count, start + length)
        let bytes = buffer[start..<end].prefix { $0 != 0 }
        if names.contains(String(decoding: bytes, as: UTF8.self)) { return true }
        offset = end
      }
      return false
    }
  #endif

  /// Looks at the heads every 2 ms while the watcher lives (where inotify is missing).
  private static func look(_ watcher: SQLiteLaneWatcher?) {
    weak let watcher = watcher
    while let current = watcher {
      current.check()
      Thread.sleep(forTimeInterval: 0.002)
    }
  }
}
