/// One link of an action chain: the action type that was being processed when the next action
/// was dispatched from inside the lane.
final class ChainLink: @unchecked Sendable {
  // @unchecked Sendable: immutable.
  let type: (any Action.Type)?
  let parent: ChainLink?

  init(type: (any Action.Type)?, parent: ChainLink?) {
    self.type = type
    self.parent = parent
  }

  /// "A → B → A → … → B (64 actions)": the first and last few types of the chain.
  static func describe(_ chain: ChainLink?, then last: any Action.Type) -> String {
    var names = ["\(last)"]
    var link = chain
    while let current = link {
      names.append(current.type.map { "\($0)" } ?? "lane work")
      link = current.parent
    }
    names.reverse()
    let shown =
      names.count <= 12 ? names : names.prefix(6) + ["…"] + names.suffix(6)
    return shown.joined(separator: " → ") + " (\(names.count) actions)"
  }
}
