import PropertyBased

/// One step of a random script, run against two stores on one lane (``TwinLane``) and against
/// the reference model (``ReferenceLane``).
///
/// Operations carry no ids: ``command(at:)`` numbers the actions from the operation's position
/// in the script, so a shrunk script still tells its actions apart.
enum LaneOperation: Hashable, Sendable, CustomStringConvertible {
  /// An action without its id.
  enum Act: Hashable, Sendable, CustomStringConvertible {
    case append
    case level(TwinSide, Int)
    /// Makes store A's observer dispatch a follow-up from inside the lane.
    case mark

    func action(id: Int) -> TwinAction {
      switch self {
      case .append: .append(id: id)
      case .level(let side, let level): .level(side, level)
      case .mark: .mark(id: id)
      }
    }

    var description: String {
      switch self {
      case .append: "append"
      case .level(let side, let level): "level \(side)=\(level)"
      case .mark: "mark"
      }
    }
  }

  /// Which object a synchronous dispatch goes through; all three share the lane.
  enum Route: CaseIterable, Hashable, Sendable {
    case dispatcher, storeA, storeB
  }

  /// One change made inside a transaction.
  enum Edit: Hashable, Sendable, CustomStringConvertible {
    case update(TwinSide, level: Int)
    case dispatch(Act)
    /// An update that dispatches, then sets the level.
    case updateDispatching(TwinSide, level: Int, Act)

    var description: String {
      switch self {
      case .update(let side, let level): "update \(side).level=\(level)"
      case .dispatch(let act): "tx.dispatch \(act)"
      case .updateDispatching(let side, let level, let act):
        "update \(side) { tx.dispatch \(act); level=\(level) }"
      }
    }
  }

  /// How a transaction's closure ends.
  enum Ending: CaseIterable, Hashable, Sendable {
    case commit, abort, throwing
  }

  /// Which `transaction` overload runs it.
  enum Form: CaseIterable, Hashable, Sendable {
    /// Returns `.queued` while the lane is paused.
    case sync
    /// Resumes once the transaction ran, after the release when the lane is paused.
    case async
  }

  case dispatch(Act, Route)
  case dispatchAsync(Act)
  case send(Act)
  case transaction([Edit], Ending, Form)
  case pause
  /// Releases the lock taken at this index modulo the number taken (released ones too).
  case release(Int)
  /// Drops the last reference to the lock taken at this index modulo the number taken: its
  /// deinit releases it.
  case forget(Int)
  /// `dispatcher.removeAllLocks()`.
  case removeAllLocks
  case exclusive(Act)
  case reset(TwinSide)
  case capture(TwinSide)
  case rollback(TwinSide)
  case commitCapture(TwinSide)

  /// The operation with its actions numbered: `10 × (index + 1)`, plus the edit's position in a
  /// transaction. Positive, so the follow-ups (negative) never collide with them.
  func command(at index: Int) -> LaneCommand {
    let id = 10 * (index + 1)
    switch self {
    case .dispatch(let act, let route): return .dispatch(act.action(id: id), route)
    case .dispatchAsync(let act): return .dispatchAsync(act.action(id: id))
    case .send(let act): return .send(act.action(id: id), ticket: id)
    case .transaction(let edits, let ending, let form):
      let resolved = edits.enumerated().map { offset, edit -> LaneCommand.Edit in
        switch edit {
        case .update(let side, let level): .update(side, level: level)
        case .dispatch(let act): .dispatch(act.action(id: id + 1 + offset))
        case .updateDispatching(let side, let level, let act):
          .updateDispatching(side, level: level, act.action(id: id + 1 + offset))
        }
      }
      return .transaction(
        LaneCommand.Plan(id: id, edits: resolved, ending: ending, form: form))
    case .pause: return .pause
    case .release(let index): return .release(index)
    case .forget(let index): return .forget(index)
    case .removeAllLocks: return .removeAllLocks
    case .exclusive(let act): return .exclusive(act.action(id: id))
    case .reset(let side): return .reset(side)
    case .capture(let side): return .capture(side)
    case .rollback(let side): return .rollback(side)
    case .commitCapture(let side): return .commitCapture(side)
    }
  }

  var description: String {
    switch self {
    case .dispatch(let act, let route): "dispatch(\(act)) via \(route)"
    case .dispatchAsync(let act): "dispatch(\(act), mode: .async)"
    case .send(let act): "send(\(act))"
    case .transaction(let edits, let ending, let form):
      "\(form) transaction [\(edits.map(\.description).joined(separator: ", "))] \(ending)"
    case .pause: "pause"
    case .release(let index): "release lock #\(index)"
    case .forget(let index): "forget lock #\(index)"
    case .removeAllLocks: "removeAllLocks"
    case .exclusive(let act): "exclusive(\(act))"
    case .reset(let side): "reset \(side)"
    case .capture(let side): "keep the state of \(side) (a transaction)"
    case .rollback(let side): "write back the state kept of \(side) (a transaction)"
    case .commitCapture(let side): "forget the state kept of \(side) (a transaction)"
    }
  }
}

extension LaneOperation {
  private static let act = Gen<Act>.frequency(
    (3, Gen.always(Act.append)),
    (2, zip(Gen<TwinSide>.case, Gen.int(in: 0...2)).map { Act.level($0, $1) }),
    (1, Gen.always(Act.mark)))

  private static let side = Gen<TwinSide>.case

  private static let edit = Gen<Edit>.frequency(
    (2, zip(side, Gen.int(in: 0...2)).map { Edit.update($0, level: $1) }),
    (2, act.map { Edit.dispatch($0) }),
    (1, zip(side, Gen.int(in: 0...2), act).map { Edit.updateDispatching($0.0, level: $0.1, $0.2) }))

  private static let ending = Gen<Ending>.frequency(
    (3, Gen.always(Ending.commit)), (1, Gen.always(Ending.abort)),
    (1, Gen.always(Ending.throwing)))

  private static let transaction = zip(edit.array(of: 0...4), ending, Gen<Form>.case)
    .map { LaneOperation.transaction($0.0, $0.1, $0.2) }

  /// Scripts of 1 to 30 operations, weighted so that a script often pauses the lane with
  /// several kinds of work queued, and releases it.
  static let scripts = Gen<LaneOperation>.frequency(
    (6, zip(act, Gen<Route>.case).map { LaneOperation.dispatch($0, $1) }),
    (3, act.map { LaneOperation.dispatchAsync($0) }),
    (3, act.map { LaneOperation.send($0) }),
    (4, transaction),
    (2, Gen.always(LaneOperation.pause)),
    (3, Gen.int(in: 0...3).map { LaneOperation.release($0) }),
    (1, Gen.int(in: 0...3).map { LaneOperation.forget($0) }),
    (0.5, Gen.always(LaneOperation.removeAllLocks)),
    (2, act.map { LaneOperation.exclusive($0) }),
    (1, side.map { LaneOperation.reset($0) }),
    (1, side.map { LaneOperation.capture($0) }),
    (1, side.map { LaneOperation.rollback($0) }),
    (1, side.map { LaneOperation.commitCapture($0) })
  )
  .array(of: 1...30)
}
