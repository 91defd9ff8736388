import CPseudoTerminal
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A pseudo-terminal pair: what the child writes to `secondary` is read from `primary`.
struct PseudoTerminal {
  let primary: FileHandle
  let secondary: FileHandle

  /// Opens a new pair, through `posix_openpt`, `grantpt`, `unlockpt` and `ptsname_r` (in the C
  /// target `CPseudoTerminal`, since glibc hides them from Swift).
  init() throws {
    var name = [CChar](repeating: 0, count: 128)
    let primaryDescriptor = sluice_open_pseudo_terminal(&name, name.count)
    guard primaryDescriptor >= 0 else {
      throw DemoProcess.Failure(description: "no pseudo-terminal: errno \(errno)")
    }
    let path = String(
      decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let secondaryDescriptor = open(path, O_RDWR | O_NOCTTY)
    guard secondaryDescriptor >= 0 else {
      let error = errno
      close(primaryDescriptor)
      throw DemoProcess.Failure(description: "cannot open \(path): errno \(error)")
    }
    primary = FileHandle(fileDescriptor: primaryDescriptor, closeOnDealloc: true)
    secondary = FileHandle(fileDescriptor: secondaryDescriptor, closeOnDealloc: true)
  }
}
