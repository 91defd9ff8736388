import Foundation
import GRDB
import Sluice
import SluiceSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension DemoError {
  /// The error for a failure on the store file at `path`: ``storeBusy(path:waited:detail:)``
  /// when another program held the file, so that the sentence says so and SQLite's own text
  /// goes to the detail line; otherwise `other` with the cause in words.
  ///
  /// ```swift
  /// throw DemoError.onStore(error, at: path) { .cannotOpenStore(path: path, reason: $0) }
  /// ```
  static func onStore(
    _ error: any Error, at path: String?, place: String? = nil,
    otherwise other: (String) -> DemoError
  ) -> DemoError {
    if let (waited, detail) = busy(error) {
      return .storeBusy(path: place ?? path ?? "memory", waited: waited, detail: detail)
    }
    return other(cause(of: error, at: path))
  }

  /// How long the storage waited and SQLite's text, when `error` says that another connection
  /// held the database; `nil` for another error.
  private static func busy(_ error: any Error) -> (Duration?, String)? {
    switch error {
    case Sluice.PersistenceError.storage(_, _, let underlying):
      return busy(underlying)
    case let error as SQLiteStorageError where error.kind == .busy:
      return (error.busyTimeout, error.underlying.map { "\($0)" } ?? "\(error)")
    case let error as DatabaseError
    where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED:
      return (nil, "\(error)")
    default:
      return nil
    }
  }

  /// Why `error` happened, as words a user can act on: SQLite result codes (GRDB's
  /// `DatabaseError`) and file-system errors (Cocoa and POSIX) become phrases such as "the file
  /// is not an SQLite database", "permission denied" or "the disk is full", never
  /// `SQLite error 26` or `NSCocoaErrorDomain Code=513`. A persistence error that wraps one is
  /// unwrapped; any other error keeps its own description.
  ///
  /// - Parameters:
  ///   - error: The error to explain.
  ///   - path: The file concerned, if known: it tells a missing folder from a refused one when
  ///     SQLite only says it cannot open the file.
  /// - Returns: A phrase, without a capital or a final period, to follow a colon.
  static func cause(of error: any Error, at path: String? = nil) -> String {
    switch error {
    case Sluice.PersistenceError.storage(_, _, let underlying):
      return cause(of: underlying, at: path)
    case let error as DatabaseError:
      return cause(of: error, at: path)
    case let error as POSIXError:
      return cause(ofPOSIX: error.code.rawValue) ?? error.localizedDescription
    case let error as CocoaError:
      return cause(of: error)
    default:
      // A Foundation error that did not bridge to its Swift type.
      let bridged = error as NSError
      if bridged.domain == NSCocoaErrorDomain {
        return cause(
          of: CocoaError(CocoaError.Code(rawValue: bridged.code), userInfo: bridged.userInfo))
      }
      if bridged.domain == NSPOSIXErrorDomain, let cause = cause(ofPOSIX: Int32(bridged.code)) {
        return cause
      }
      return "\(error)"
    }
  }

  /// An SQLite failure, by its primary result code.
  private static func cause(of error: DatabaseError, at path: String?) -> String {
    switch error.resultCode {
    case .SQLITE_NOTADB: "the file is not an SQLite database"
    case .SQLITE_CORRUPT: "the database file is damaged"
    case .SQLITE_PERM, .SQLITE_AUTH: "permission denied"
    case .SQLITE_READONLY: "the database cannot be written (permission denied, or a read-only disk)"
    case .SQLITE_FULL: "the disk is full"
    case .SQLITE_BUSY, .SQLITE_LOCKED: "the database is locked by another program"
    case .SQLITE_IOERR: "the disk could not be read or written (an input/output error)"
    case .SQLITE_NOMEM: "out of memory"
    case .SQLITE_CANTOPEN: cannotOpen(path)
    // SQLite's own sentence ("database disk image is malformed"), without the code or the SQL.
    default: error.message ?? "SQLite failed"
    }
  }

  /// Why SQLite could not open the file at `path`: its folder is missing, or access is refused.
  private static func cannotOpen(_ path: String?) -> String {
    guard let path else { return "the file cannot be opened (a missing folder, or no permission)" }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
      return "the folder \(folder) does not exist"
    }
    guard isFolder.boolValue else { return "\(folder) is a file, not a folder" }
    return "the file cannot be opened (permission denied)"
  }

  /// A Foundation file error: by the POSIX error beneath it when there is one, else by its code.
  private static func cause(of error: CocoaError) -> String {
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? POSIXError,
      let cause = cause(ofPOSIX: underlying.code.rawValue)
    {
      return cause
    }
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain,
      let cause = cause(ofPOSIX: Int32(underlying.code))
    {
      return cause
    }
    switch error.code {
    case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
    case .fileWriteOutOfSpace: return "the disk is full"
    case .fileWriteVolumeReadOnly: return "the disk is read-only"
    case .fileNoSuchFile, .fileReadNoSuchFile: return "a folder on the path does not exist"
    case .fileWriteFileExists: return "a file of that name is in the way"
    case .fileLocking: return "the file is locked by another program"
    case .fileReadInvalidFileName, .fileWriteInvalidFileName: return "the name is not valid"
    default: return error.localizedDescription
    }
  }

  /// A POSIX error number, or `nil` for one without a phrase here.
  private static func cause(ofPOSIX code: Int32) -> String? {
    switch code {
    case EACCES, EPERM: "permission denied"
    case ENOSPC, EDQUOT: "the disk is full"
    case EROFS: "the disk is read-only"
    case ENOENT: "a folder on the path does not exist"
    case ENOTDIR: "a part of the path is a file, not a folder"
    case EEXIST: "a file of that name is in the way"
    case ENAMETOOLONG: "the name is too long"
    case EIO: "the disk could not be read or written (an input/output error)"
    default: nil
    }
  }
}
