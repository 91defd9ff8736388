/// The steps that bring an older record to the current schema, one version at a time.
///
/// A step gets the record's JSON as a ``StateValue`` and changes it in place:
///
/// ```swift
/// let migrations = PersistenceMigrations()
///   .from(1) { state in state["title"] = state["name"]; state["name"] = nil }  // v1 → v2
///   .from(2) { state in state["tags"] = [] }                                      // v2 → v3
/// let key = PersistenceKey<Note>.jsonFile("note", in: folder).version(3, migrations: migrations)
/// ```
///
/// A record of version 1 runs both steps, then decodes as the state.
public struct PersistenceMigrations: Sendable {
  var steps: [Int: @Sendable (inout StateValue) throws -> Void] = [:]

  /// No migrations.
  public init() {}

  /// Adds the step from `version` to `version + 1`.
  public func from(
    _ version: Int, _ step: @escaping @Sendable (inout StateValue) throws -> Void
  ) -> PersistenceMigrations {
    var copy = self
    copy.steps[version] = step
    return copy
  }
}
