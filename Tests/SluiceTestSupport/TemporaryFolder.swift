import Foundation

/// A new folder under the temporary directory, removed by ``remove()`` or when the last
/// reference to it goes.
public final class TemporaryFolder: Sendable {
  /// The folder.
  public let url: URL

  /// Creates the folder, its name starting with `prefix`.
  public init(prefix: String = "sluice-tests") throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { remove() }

  /// A path in the folder.
  public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  /// Removes the folder and what it holds.
  public func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}
