extension Effects {
  /// These effects, for a store whose state holds their state at `path`: they read that part.
  func scoped<Parent>(to path: KeyPath<Parent, State> & Sendable) -> Effects<Parent> {
    var lifted = Effects<Parent>()
    lifted.specs = specs.map { spec in
      Effects<Parent>.Spec(
        actionType: spec.actionType, actionName: spec.actionName, id: spec.id, kind: spec.kind
      ) { action, context in
        spec.operation(
          action,
          EffectContext(
            lane: context.lane, readState: { context.readState()[keyPath: path] },
            errors: context.errors, source: context.source, trigger: context.trigger,
            dependencies: context.dependencies))
      }
    }
    return lifted
  }
}
