/// A persistence in write-through mode, as its lane's ``WriteThroughBatch`` sees it.
protocol WriteThroughTarget: AnyObject, Sendable {
  var storage: any PersistenceStorage { get }
  /// Whether the target is in its lane's batch (lane only).
  var awaitsWriteThrough: Bool { get set }
  func prepareWrite(force: Bool) -> Result<PersistedRecord, PersistenceError>?
  func finishWrite(_ failure: PersistenceError?)
  func syncStorage() throws
}

/// The write-through saves a lane owes: the states of the stores that changed since the last
/// write, written before the lane wakes the caller waiting for the change or lets go (a
/// ``BeforeWakeHook``), one backend transaction per storage object, covering every store and
/// every action processed since the last one.
///
/// One per lane, kept by the lane for the persistence code (``Lane/local(_:make:)``); touched
/// on the lane only.
final class WriteThroughBatch: BeforeWakeHook, @unchecked Sendable {
  // @unchecked Sendable: every field is touched by the thread holding the lane only, and the
  // lane's lock hands the lane (and so the batch) from one holder to the next.
  var isArmed = false
  private var pending: [any WriteThroughTarget] = []

  /// Adds `target` to the batch of `lane` and arms the batch (lane only).
  static func add(_ target: any WriteThroughTarget, on lane: Lane) {
    guard !target.awaitsWriteThrough else { return }
    target.awaitsWriteThrough = true
    let batch = lane.local(WriteThroughBatch.self, make: WriteThroughBatch.init)
    batch.pending.append(target)
    lane.arm(batch)
  }

  func beforeWake() {
    let targets = pending
    pending.removeAll(keepingCapacity: true)
    for group in Self.groupedByStorage(targets) { write(group.members, to: group.storage) }
  }

  /// `targets` grouped by storage object (a storage that is a value is a group of its own).
  private static func groupedByStorage(
    _ targets: [any WriteThroughTarget]
  ) -> [(storage: any PersistenceStorage, members: [any WriteThroughTarget])] {
    var groups: [(storage: any PersistenceStorage, members: [any WriteThroughTarget])] = []
    var byIdentity: [ObjectIdentifier: Int] = [:]
    for target in targets {
      target.awaitsWriteThrough = false
      let storage = target.storage
      if type(of: storage) is AnyClass {
        let identity = ObjectIdentifier(storage as AnyObject)
        if let index = byIdentity[identity] {
          groups[index].members.append(target)
          continue
        }
        byIdentity[identity] = groups.count
      }
      groups.append((storage, [target]))
    }
    return groups
  }

  /// Writes the records of `targets` to `storage` in one transaction, and tells each target
  /// how it went.
  private func write(_ targets: [any WriteThroughTarget], to storage: any PersistenceStorage) {
    var records: [PersistedRecord] = []
    var writers: [any WriteThroughTarget] = []
    for target in targets {
      switch target.prepareWrite(force: false) {
      case nil: continue
      case .failure(let failure)?: target.finishWrite(failure)
      case .success(let record)?:
        records.append(record)
        writers.append(target)
      }
    }
    guard !records.isEmpty else { return }
    var failure: (any Error)?
    do {
      try storage.write(records)
      try storage.synchronize()
    } catch {
      failure = error
    }
    for (target, record) in zip(writers, records) {
      target.finishWrite(
        failure.map { .storage(key: record.key, operation: "write", underlying: $0) })
    }
  }
}
