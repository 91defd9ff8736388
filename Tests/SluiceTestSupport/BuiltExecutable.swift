import Foundation

/// Finds an executable of this package that the tests run as a process (`sluice-demo`,
/// `SluiceCrashProbe`).
public enum BuiltExecutable {
  /// The executable named `name`: the path in the environment variable `override` when it is
  /// set; else the one next to the test binary (the build products folder, whatever
  /// `--scratch-path` is); else the newest one in the package's `.build*` folders.
  public static func locate(_ name: String, override: String? = nil) -> URL? {
    let manager = FileManager.default
    if let override, let explicit = ProcessInfo.processInfo.environment[override] {
      return manager.isExecutableFile(atPath: explicit) ? URL(fileURLWithPath: explicit) : nil
    }
    var folders: [URL] = []
    if let executable = CommandLine.arguments.first {
      let url = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
      folders.append(url.deletingLastPathComponent())
    }
    folders.append(Bundle.main.bundleURL)
    folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
      folders.append(bundle.bundleURL.deletingLastPathComponent())
    }
    for folder in folders {
      let candidate = folder.appendingPathComponent(name)
      if manager.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    // The package root is three levels above this file.
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let scratch = (try? manager.contentsOfDirectory(atPath: root.path)) ?? []
    var candidates: [URL] = []
    for entry in scratch where entry.hasPrefix(".build") {
      let base = root.appendingPathComponent(entry)
      candidates.append(base.appendingPathComponent("debug/\(name)"))
      for triple in (try? manager.contentsOfDirectory(atPath: base.path)) ?? [] {
        candidates.append(base.appendingPathComponent("\(triple)/debug/\(name)"))
      }
    }
    func modified(_ url: URL) -> Date {
      let attributes = try? manager.attributesOfItem(atPath: url.path)
      return attributes?[.modificationDate] as? Date ?? .distantPast
    }
    return
      candidates
      .filter { manager.isExecutableFile(atPath: $0.path) }
      .max { modified($0) < modified($1) }
  }
}
