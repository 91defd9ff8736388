import Foundation
import Sluice
import SluiceSQLite

/// Where the demo keeps its stores: an SQLite file (by default `./.sluice/demo.sqlite`), or
/// memory.
struct DemoStorage: Sendable {
  /// The backend every persisted store of the demo shares.
  let backend: any PersistenceStorage
  /// The file, or `nil` in memory.
  let path: String?

  /// Where the state lives, for messages.
  var place: String { path ?? "memory" }

  /// Opens the SQLite file at `path`: in read-write mode, creating it and its folder when
  /// needed; in read-only mode, creating nothing, so that a file (and folder) the user cannot
  /// write can be read.
  ///
  /// - Throws: ``DemoError/cannotOpenStore(path:reason:)`` when the folder cannot be made or
  ///   the file is not an SQLite database the demo can use; the file is left as it was.
  static func open(path: String, mode: SQLiteStorage.Mode) throws(DemoError) -> DemoStorage {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
    var isFolder: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
    if exists, isFolder.boolValue {
      throw .cannotOpenStore(path: path, reason: "it is a folder")
    }
    switch mode {
    case .readWrite:
      try makeFolder(folder, for: path)
    case .readOnly:
      if let obstacle = obstacle(to: folder) {
        throw .cannotOpenStore(path: path, reason: obstacle)
      }
      // Nothing stored yet: nothing to read, and nothing to create.
      if !exists { return DemoStorage(backend: InMemoryStorage(), path: path) }
    }
    do {
      return DemoStorage(backend: try SQLiteStorage(path: path, mode: mode), path: path)
    } catch {
      throw .onStore(error, at: path) { .cannotOpenStore(path: path, reason: $0) }
    }
  }

  /// Storage that keeps nothing once the process ends.
  static func inMemory() -> DemoStorage {
    DemoStorage(backend: InMemoryStorage(), path: nil)
  }

  /// A key for a store of the demo.
  func key<State>(_ name: String, namespace: String) -> PersistenceKey<State> {
    PersistenceKey(name, namespace: namespace, storage: backend)
  }

  /// Creates `folder` and its parents, or says which part of the path is in the way.
  private static func makeFolder(_ folder: URL, for path: String) throws(DemoError) {
    if let obstacle = obstacle(to: folder) {
      throw .cannotOpenStore(path: path, reason: obstacle)
    }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw .cannotOpenStore(
        path: path,
        reason: "the folder \(folder.path) cannot be created (\(DemoError.cause(of: error)))")
    }
  }

  /// Why `folder` cannot be a folder: the part of its path that is a file; `nil` when it is a
  /// folder, or can be made one.
  private static func obstacle(to folder: URL) -> String? {
    let manager = FileManager.default
    var isFolder: ObjCBool = false
    if manager.fileExists(atPath: folder.path, isDirectory: &isFolder) {
      return isFolder.boolValue ? nil : "\(folder.path) is a file, not a folder"
    }
    // The nearest existing parent tells the most useful reason.
    var parent = folder.deletingLastPathComponent()
    while parent.path != "/", !manager.fileExists(atPath: parent.path, isDirectory: &isFolder) {
      parent = parent.deletingLastPathComponent()
    }
    if manager.fileExists(atPath: parent.path, isDirectory: &isFolder), !isFolder.boolValue {
      return "\(parent.path) is a file, not a folder"
    }
    return nil
  }
}

extension RestoreOutcome {
  /// Throws when the stored state must not be overwritten: it is newer than this code, or the
  /// backend could not be read. Returns a warning for data that was set aside (quarantined).
  func check(what: String, in storage: DemoStorage) throws(DemoError) -> String? {
    switch self {
    case .empty, .restored, .migrated:
      return nil
    case .refused(let error), .unreadable(let error):
      throw .onStore(error, at: storage.path, place: storage.place) {
        .storedStateUnusable(what: what, path: storage.place, reason: $0)
      }
    case .discarded(let error, let quarantineKey):
      return
        "the stored \(what) could not be read (\(DemoError.cause(of: error, at: storage.path))); it was set aside as "
        + "'\(quarantineKey ?? "nothing")' and \(what) starts empty."
    }
  }
}
