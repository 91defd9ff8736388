import CustomDump
import Sluice

// How test failures print loadables: what takes part in their equality, and nothing else.

extension Loadable: CustomDumpReflectable {
  /// The status, the value kept from an earlier load (when not loaded) and the metadata (when
  /// any): the parts of the equality. The timestamps are left out, so that a diff never shows
  /// a `startedAt` or `finishedAt` that does not make two loadables differ.
  public var customDumpMirror: Mirror {
    var children: [Mirror.Child] = [(label: "status", value: status)]
    if let kept = reflectedKept { children.append((label: "kept", value: kept)) }
    if !metadata.isEmpty { children.append((label: "metadata", value: metadata)) }
    return Mirror(self, children: children, displayStyle: .struct)
  }
}

extension LoadError: CustomDumpReflectable {
  /// The underlying error alone: `LoadError(Boom())`.
  public var customDumpMirror: Mirror {
    Mirror(self, unlabeledChildren: [underlying], displayStyle: .struct)
  }
}
