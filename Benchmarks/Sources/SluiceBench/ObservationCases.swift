import Sluice

/// `keypath.observers1000.one_changed` and `bigstate.{10k,100k}`, plus diagnostic extras.
enum ObservationCases {
  static let all: [BenchCase] = [
    BenchCase(name: "keypath.observers1000.one_changed") { keyPathPanel() },
    BenchCase(name: "select.observers100.one_changed") { cells(observers: 100, selectors: true) },
    BenchCase(name: "bigstate.10k") { bigState(entries: 10_000, wholeObservers: 0) },
    BenchCase(name: "bigstate.100k") { bigState(entries: 100_000, wholeObservers: 0) },
  ]

  /// Diagnostic cases (`--extra`): how the costs above scale, and what a whole-state observer
  /// does to a large state.
  static let extra: [BenchCase] = [
    BenchCase(name: "extra.keypath.subscript_observers1000.one_changed") {
      cells(observers: 1_000)
    },
    BenchCase(name: "extra.keypath.observers1.one_changed") { cells(observers: 1) },
    BenchCase(name: "extra.select.observers1.one_changed") {
      cells(observers: 1, selectors: true)
    },
    BenchCase(name: "extra.keypath.observers10.one_changed") { cells(observers: 10) },
    BenchCase(name: "extra.keypath.observers100.one_changed") { cells(observers: 100) },
    BenchCase(name: "extra.bigstate.10k.whole_observer1") {
      bigState(entries: 10_000, wholeObservers: 1)
    },
    BenchCase(name: "extra.bigstate.100k.whole_observer1") {
      bigState(entries: 100_000, wholeObservers: 1)
    },
    BenchCase(name: "extra.bigstate.10k.keypaths") {
      bigState(entries: 10_000, wholeObservers: 0, keyPaths: true)
    },
    BenchCase(name: "extra.keypath.observer1") { modelOrObserver(.keyPathObserver) },
    BenchCase(name: "extra.model.unread") { modelOrObserver(.unreadModel) },
    BenchCase(name: "extra.model.reader1") { modelOrObserver(.modelReadingOnePath) },
  ]

  enum Observing {
    case keyPathObserver, unreadModel, modelReadingOnePath
  }

  /// `dispatch.observers0`'s store observed by one key-path observer of `\.value`, by a
  /// `StoreModel` nobody reads, or by a model whose one reader read `\.value`: what the
  /// SwiftUI projection costs per action. (The model's main-actor hop does not run while the
  /// loop holds the main thread: this is the lane's side of the cost, paid on every action.)
  static func modelOrObserver(_ observing: Observing) -> (Int) -> Void {
    let store = Store(
      initialState: Counter(value: 0),
      reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })
    let keep: [any Sendable]
    switch observing {
    case .keyPathObserver:
      keep = [store.observe(\.value, from: .nextChange) { change in consume(change.new) }]
    case .unreadModel:
      keep = [MainActor.assumeIsolated { StoreModel(store) }]
    case .modelReadingOnePath:
      keep = [
        MainActor.assumeIsolated {
          let model = StoreModel(store)
          consume(model.value)
          return model
        }
      ]
    }
    return { iterations in
      withExtendedLifetime(keep) {
        for _ in 0..<iterations { store.dispatch(Increment()) }
      }
    }
  }

  /// 1,000 key-path observers on the 1,000 distinct stored paths of a `Panel`; each action
  /// changes one leaf, rotating through them, so exactly one observer fires.
  static func keyPathPanel() -> (Int) -> Void {
    let paths = Panel.leafPaths
    let offsets = paths.map { MemoryLayout<Panel>.offset(of: $0) ?? 0 }
    let store = Store(
      initialState: Panel(),
      reducer: Reducer<Panel>().on(BumpPanel.self) { state, action in
        withUnsafeMutableBytes(of: &state) { bytes in
          let old = bytes.load(fromByteOffset: action.offset, as: Int.self)
          bytes.storeBytes(of: old &+ 1, toByteOffset: action.offset, as: Int.self)
        }
      })
    let subscriptions = paths.map { path in
      store.observe(path, from: .nextChange) { change in consume(change.new) }
    }
    verifyFires("keypath.observers1000", expectedFires: 2 * paths.count) {
      for index in 0..<(2 * paths.count) {
        store.dispatch(BumpPanel(offset: offsets[index % paths.count]))
      }
    }
    return { iterations in
      withExtendedLifetime(subscriptions) {
        var index = 0
        for _ in 0..<iterations {
          store.dispatch(BumpPanel(offset: offsets[index]))
          index += 1
          if index == offsets.count { index = 0 }
        }
      }
    }
  }

  /// A state of `observers` distinct cells with one observer per cell: a key path
  /// (`\.cells[i]`), or with `selectors` a ``StateSelector`` (`.select { $0.cells[i] }`), the
  /// same read without the key-path runtime. Each action changes exactly one cell, rotating
  /// through them, so exactly one observer fires.
  static func cells(observers: Int, selectors: Bool = false) -> (Int) -> Void {
    let store = Store(
      initialState: Grid(cells: Array(0..<observers)),
      reducer: Reducer<Grid>().on(BumpCell.self) { state, action in
        state.cells[action.index] &+= 1
      })
    let subscriptions = (0..<observers).map { index in
      selectors
        ? store.observe(.select { $0.cells[index] }, from: .nextChange) { consume($0.new) }
        : store.observe(\.cells[index], from: .nextChange) { consume($0.new) }
    }
    let name = "\(selectors ? "select" : "keypath").observers\(observers)"
    verifyFires(name, expectedFires: 2 * observers) {
      for index in 0..<(2 * observers) { store.dispatch(BumpCell(index: index % observers)) }
    }
    return { iterations in
      withExtendedLifetime(subscriptions) {
        var index = 0
        for _ in 0..<iterations {
          store.dispatch(BumpCell(index: index))
          index += 1
          if index == observers { index = 0 }
        }
      }
    }
  }

  /// A `[Int: Int]` of `entries` entries and 10 observers on 10 of them
  /// (`.select { $0.entries[key] }`, or `\.entries[key]` with `keyPaths`). Each action changes
  /// one entry; the changed key rotates over 100 keys spread over the key range, every tenth of
  /// which is observed, so one action in ten fires one observer. The per-action cost should
  /// not depend on `entries`.
  static func bigState(entries: Int, wholeObservers: Int, keyPaths: Bool = false) -> (Int) -> Void {
    let store = Store(
      initialState: Ledger(
        entries: Dictionary(uniqueKeysWithValues: (0..<entries).map { ($0, $0) })),
      reducer: Reducer<Ledger>().on(BumpEntry.self) { state, action in
        state.entries[action.key, default: 0] &+= 1
      })
    let changedKeys = (0..<100).map { $0 * (entries / 100) }
    let observedKeys = stride(from: 0, to: changedKeys.count, by: 10).map { changedKeys[$0] }
    var subscriptions = observedKeys.map { key in
      keyPaths
        ? store.observe(\.entries[key], from: .nextChange) { change in consume(change.new ?? 0) }
        : store.observe(.select { $0.entries[key] }, from: .nextChange) { change in
          consume(change.new ?? 0)
        }
    }
    for _ in 0..<wholeObservers {
      subscriptions.append(
        store.observe(from: .nextChange) { state in consume(state.entries.count) })
    }
    verifyFires(
      "bigstate.\(entries)", expectedFires: 10 + 100 * wholeObservers
    ) {
      for key in changedKeys { store.dispatch(BumpEntry(key: key)) }
    }
    return { iterations in
      withExtendedLifetime(subscriptions) {
        var index = 0
        for _ in 0..<iterations {
          store.dispatch(BumpEntry(key: changedKeys[index]))
          index += 1
          if index == changedKeys.count { index = 0 }
        }
      }
    }
  }
}
