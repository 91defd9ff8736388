/// The `yardstick.*` cases: the scenarios of the `dispatch.*`, `select.*`, `keypath.*` and
/// `bigstate.*` cases on a ``YardstickStore``, so each has its hand-written reference.
enum YardstickCases {
  static let all: [BenchCase] = [
    BenchCase(name: "yardstick.dispatch.observers0") { dispatch(observers: 0) },
    BenchCase(name: "yardstick.dispatch.observers1") { dispatch(observers: 1) },
    BenchCase(name: "yardstick.dispatch.observers100") { dispatch(observers: 100) },
    BenchCase(name: "yardstick.select.observers100.one_changed") { slices(observers: 100) },
    BenchCase(name: "yardstick.keypath.observers1000.one_changed", make: panel),
    BenchCase(name: "yardstick.bigstate.10k") { bigState(entries: 10_000) },
    BenchCase(name: "yardstick.bigstate.100k") { bigState(entries: 100_000) },
  ]

  /// `dispatch.observers*`: `Increment` on a trivial state, `observers` whole-state observers.
  static func dispatch(observers: Int) -> (Int) -> Void {
    let store = YardstickStore(Counter(value: 0))
    let reduce = opaque(incrementReducer)
    for _ in 0..<observers { store.observe { state in consume(state.value) } }
    verifyFires("yardstick.dispatch.observers\(observers)", expectedFires: 10 * observers) {
      for _ in 0..<10 { store.dispatch(Increment(), reduce) }
    }
    return { iterations in
      for _ in 0..<iterations { store.dispatch(Increment(), reduce) }
    }
  }

  /// `select.observers100.one_changed`: `observers` observers each selecting one slice; each
  /// action changes one slice, rotating, so exactly one observer fires.
  static func slices(observers: Int) -> (Int) -> Void {
    let store = YardstickStore(Grid(cells: Array(0..<observers)))
    let reduce: (inout Grid, BumpCell) -> Void = opaque { state, action in
      state.cells[action.index] &+= 1
    }
    for index in 0..<observers {
      store.observe(select: { $0.cells[index] }, onChange: { value in consume(value) })
    }
    verifyFires("yardstick.select.observers\(observers)", expectedFires: 2 * observers) {
      for index in 0..<(2 * observers) {
        store.dispatch(BumpCell(index: index % observers), reduce)
      }
    }
    return { iterations in
      var index = 0
      for _ in 0..<iterations {
        store.dispatch(BumpCell(index: index), reduce)
        index += 1
        if index == observers { index = 0 }
      }
    }
  }

  /// `keypath.observers1000.one_changed`: 1,000 selecting observers on the 1,000 leaves of a
  /// `Panel`; each action changes one leaf, rotating.
  static func panel() -> (Int) -> Void {
    let paths = Panel.leafPaths
    let offsets = paths.map { MemoryLayout<Panel>.offset(of: $0) ?? 0 }
    let store = YardstickStore(Panel())
    let reduce: (inout Panel, BumpPanel) -> Void = opaque { state, action in
      withUnsafeMutableBytes(of: &state) { bytes in
        let old = bytes.load(fromByteOffset: action.offset, as: Int.self)
        bytes.storeBytes(of: old &+ 1, toByteOffset: action.offset, as: Int.self)
      }
    }
    for offset in offsets {
      store.observe(
        select: { panel in
          withUnsafeBytes(of: panel) { $0.load(fromByteOffset: offset, as: Int.self) }
        },
        onChange: { value in consume(value) })
    }
    verifyFires("yardstick.keypath.observers1000", expectedFires: 2 * offsets.count) {
      for index in 0..<(2 * offsets.count) {
        store.dispatch(BumpPanel(offset: offsets[index % offsets.count]), reduce)
      }
    }
    return { iterations in
      var index = 0
      for _ in 0..<iterations {
        store.dispatch(BumpPanel(offset: offsets[index]), reduce)
        index += 1
        if index == offsets.count { index = 0 }
      }
    }
  }

  /// `bigstate.*`: a dictionary of `entries` entries, 10 selecting observers on 10 of them;
  /// the changed key rotates over 100 keys, one in ten observed.
  static func bigState(entries: Int) -> (Int) -> Void {
    let store = YardstickStore(
      Ledger(entries: Dictionary(uniqueKeysWithValues: (0..<entries).map { ($0, $0) })))
    let reduce: (inout Ledger, BumpEntry) -> Void = opaque { state, action in
      state.entries[action.key, default: 0] &+= 1
    }
    let changedKeys = (0..<100).map { $0 * (entries / 100) }
    for key in stride(from: 0, to: changedKeys.count, by: 10).map({ changedKeys[$0] }) {
      store.observe(select: { $0.entries[key] }, onChange: { value in consume(value ?? 0) })
    }
    verifyFires("yardstick.bigstate.\(entries)", expectedFires: 10) {
      for key in changedKeys { store.dispatch(BumpEntry(key: key), reduce) }
    }
    return { iterations in
      var index = 0
      for _ in 0..<iterations {
        store.dispatch(BumpEntry(key: changedKeys[index]), reduce)
        index += 1
        if index == changedKeys.count { index = 0 }
      }
    }
  }
}
