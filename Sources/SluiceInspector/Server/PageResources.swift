import Foundation

/// The page's files, read once from the package's resources.
struct PageResources: Sendable {
  struct File: Sendable {
    let contentType: String
    let bytes: [UInt8]
  }

  /// By request path (`/`, `/inspector.js`, `/inspector.css`).
  let files: [String: File]

  /// Reads the page's files; an error names the one that is missing.
  static func load() throws(InspectorError) -> PageResources {
    let names: [(path: String, file: String, type: String)] = [
      ("/", "index.html", "text/html; charset=utf-8"),
      ("/inspector.js", "inspector.js", "text/javascript; charset=utf-8"),
      ("/inspector.css", "inspector.css", "text/css; charset=utf-8"),
    ]
    var files: [String: File] = [:]
    for name in names {
      guard
        let url = Bundle.module.url(
          forResource: name.file, withExtension: nil, subdirectory: "Page"),
        let data = try? Data(contentsOf: url)
      else {
        throw InspectorError(
          .cannotListen, "the page's \(name.file) is missing from SluiceInspector's resources")
      }
      files[name.path] = File(contentType: name.type, bytes: [UInt8](data))
    }
    return PageResources(files: files)
  }
}
