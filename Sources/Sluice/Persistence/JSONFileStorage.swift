import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A backend of JSON files, one per key (`<directory>/<key>.json`), replaced atomically:
/// each write goes to a temporary file in the same directory, is flushed to disk (`fsync`),
/// then renamed over the old file, and the directory is flushed too. A crash leaves either
/// the old file or the new one, never half of one.
struct JSONFileStorage: PersistenceStorage, EnvelopeStorage {
  /// The folder holding the files; made on the first write when missing.
  let directory: URL

  /// The file of `key`.
  func fileURL(for key: String) -> URL {
    directory.appendingPathComponent("\(key).json")
  }

  func read(_ key: String) throws -> PersistedRecord? {
    guard let bytes = try storedBytes(key) else { return nil }
    return try RecordEnvelope.decode(bytes, key: key)
  }

  package func storedBytes(_ key: String) throws -> Data? {
    let url = fileURL(for: key)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    return try Data(contentsOf: url)
  }

  func write(_ records: [PersistedRecord]) throws {
    for record in records {
      try replace(fileURL(for: record.key), with: RecordEnvelope.encode(record))
    }
  }

  func quarantine(_ bytes: Data, of key: String, reason: String) throws -> String {
    // A long key would give a file name past the 255 bytes of most file systems: shorten it,
    // keeping a hash of the whole key.
    let base = key.utf8.count <= 180 ? key : "\(key.prefix(120))-\(stableHash(of: key))"
    let target = quarantineKey(for: base) {
      FileManager.default.fileExists(atPath: fileURL(for: $0).path)
    }
    try replace(fileURL(for: target), with: bytes)
    return target
  }

  /// FNV-1a of `text`, in hex: the same in every process (unlike `Hasher`).
  private func stableHash(of text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(hash, radix: 16)
  }

  /// Writes `bytes` to a temporary file, syncs it, renames it over `url`, syncs the folder.
  private func replace(_ url: URL, with bytes: Data) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // Named apart from the key, so that any key whose file name fits has a temporary name
    // that fits too.
    let temporary = directory.appendingPathComponent(".sluice-\(UUID().uuidString).tmp")
    let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
    guard fd >= 0 else { throw FileError.posix("open \(temporary.path)", errno) }
    var closed = false
    defer {
      if !closed { close(fd) }
      if FileManager.default.fileExists(atPath: temporary.path) {
        try? FileManager.default.removeItem(at: temporary)
      }
    }
    try bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let written = posixWrite(fd, base + offset, buffer.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          throw FileError.posix("write \(temporary.path)", errno)
        }
        offset += written
      }
    }
    guard fsync(fd) == 0 else { throw FileError.posix("fsync \(temporary.path)", errno) }
    closed = true
    guard close(fd) == 0 else { throw FileError.posix("close \(temporary.path)", errno) }
    guard rename(temporary.path, url.path) == 0 else {
      throw FileError.posix("rename to \(url.path)", errno)
    }
    let directoryFD = open(directory.path, O_RDONLY)
    if directoryFD >= 0 {
      _ = fsync(directoryFD)
      close(directoryFD)
    }
  }
}

/// A failed system call.
struct FileError: Error, CustomStringConvertible {
  let description: String

  static func posix(_ operation: String, _ code: Int32) -> FileError {
    FileError(description: "\(operation): \(String(cString: strerror(code))) (errno \(code))")
  }
}

/// `write(2)`, named apart from the methods called `write`.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, buffer, count)
}

extension PersistenceKey {
  /// A key in a JSON file, `<directory>/<namespace>.<name>.json` (the folder is made on the
  /// first write). The file is replaced atomically: each write goes to a temporary file in the
  /// same folder, is flushed to disk (`fsync`), then renamed over the old file, and the folder
  /// is flushed too. A crash leaves either the old file or the new one, never half of one.
  public static func jsonFile(_ name: String, in directory: URL) -> PersistenceKey {
    PersistenceKey(name, storage: JSONFileStorage(directory: directory))
  }
}
