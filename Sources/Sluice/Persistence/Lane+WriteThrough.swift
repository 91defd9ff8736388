/// A persistence in write-through mode, as the lane sees it.
protocol WriteThroughTarget: AnyObject, Sendable {
  var storage: any PersistenceStorage { get }
  /// Whether the target is in the lane's list (lane only).
  var awaitsWriteThrough: Bool { get set }
  func prepareWrite(force: Bool) -> Result<PersistedRecord, PersistenceError>?
  func finishWrite(_ failure: PersistenceError?)
  func syncStorage() throws
}

extension Lane {
  /// Writes `target`'s state before the current item's waiter is woken, or before the lane is
  /// let go (lane only).
  func writeThroughLater(_ target: any WriteThroughTarget) {
    guard !target.awaitsWriteThrough else { return }
    target.awaitsWriteThrough = true
    writeThroughPending.append(target)
  }

  /// Writes every state waiting for write-through: one backend transaction per storage
  /// object, covering every store and every action processed since the last one (drainer only).
  func flushWriteThrough() {
    let targets = writeThroughPending
    writeThroughPending.removeAll(keepingCapacity: true)
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
    for group in groups {
      var records: [PersistedRecord] = []
      var writers: [any WriteThroughTarget] = []
      for target in group.members {
        switch target.prepareWrite(force: false) {
        case nil: continue
        case .failure(let failure)?: target.finishWrite(failure)
        case .success(let record)?:
          records.append(record)
          writers.append(target)
        }
      }
      guard !records.isEmpty else { continue }
      var failure: (any Error)?
      do {
        try group.storage.write(records)
        try group.storage.synchronize()
      } catch {
        failure = error
      }
      for (target, record) in zip(writers, records) {
        target.finishWrite(
          failure.map { .storage(key: record.key, operation: "write", underlying: $0) })
      }
    }
  }
}
