import Foundation
import Sluice
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The node names this process holds in an SQLite log: each an exclusive `flock` on a file of
/// its own in `folder`, named after a hash of the lane and the node.
///
/// The kernel releases the lock when the process dies, however it dies, so a name is free again
/// at once, with no timing. `flock` locks belong to an open file, so two claims of one name in
/// one process conflict as they do across processes. A released claim removes its file; a claim
/// that locked a file removed meanwhile tries again with a new one.
final class SQLiteNodeClaims: Sendable {
  /// Where the lock files are (`<database>-nodes`).
  private let folder: String
  /// Whether claims are taken at all (not for a read-only log, which appends nothing).
  private let enabled: Bool
  /// The descriptors of the locked files, by lock file path.
  private let held = Mutex<[String: Int32]>([:])

  init(folder: String, enabled: Bool) {
    self.folder = folder
    self.enabled = enabled
  }

  /// Locks the file of `node` in `lane`.
  ///
  /// - Throws: ``SharedLaneError`` of kind ``SharedLaneError/Kind/nodeInUse(node:lane:)`` when
  ///   another open file holds the lock, or `POSIXError` when the folder or file cannot be made.
  func claim(_ node: String, of lane: String) throws {
    guard enabled else { return }
    let path = lockPath(node, lane)
    try held.withLock { held in
      guard held[path] == nil else { throw Self.inUse(node, lane) }
      if mkdir(folder, 0o755) != 0, errno != EEXIST { throw Self.posix() }
      while true {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.posix() }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
          let code = errno
          close(descriptor)
          if code == EWOULDBLOCK { throw Self.inUse(node, lane) }
          throw Self.posix(code)
        }
        // A releaser may have removed the file between the open and the lock: the lock is then
        // on a file nobody else can find.
        var locked = stat()
        var named = stat()
        if fstat(descriptor, &locked) == 0, stat(path, &named) == 0, locked.st_ino == named.st_ino,
          locked.st_dev == named.st_dev
        {
          held[path] = descriptor
          return
        }
        close(descriptor)
      }
    }
  }

  /// Unlocks and removes the file of `node` in `lane`, if this process holds it.
  func release(_ node: String, of lane: String) {
    let path = lockPath(node, lane)
    held.withLock { held in
      guard let descriptor = held.removeValue(forKey: path) else { return }
      unlink(path)
      close(descriptor)
    }
  }

  deinit {
    for descriptor in held.withLock({ $0.values }) { close(descriptor) }
  }

  /// The lock file of `node` in `lane`: two 64-bit FNV-1a hashes of the pair, in hex.
  private func lockPath(_ node: String, _ lane: String) -> String {
    let bytes = Array(lane.utf8) + [0] + Array(node.utf8)
    func fnv(_ basis: UInt64) -> String {
      var hash = basis
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
      let hex = String(hash, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }
    return folder + "/" + fnv(0xcbf2_9ce4_8422_2325) + fnv(0x8422_2325_cbf2_9ce4) + ".lock"
  }

  private static func inUse(_ node: String, _ lane: String) -> SharedLaneError {
    SharedLaneError(.nodeInUse(node: node, lane: lane), operation: "claim a node name")
  }

  private static func posix(_ code: Int32 = errno) -> POSIXError {
    POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
  }
}
