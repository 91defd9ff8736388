import Observation
import Testing

@testable import Sluice

/// A model lets go of the paths no longer read, and tracks them again when they are read again.
@MainActor
@Suite struct StoreModelReleaseTests {
  struct Grid: Equatable, Sendable {
    var cells = [Int](repeating: 0, count: 10_000)
    var tick = 0
  }

  struct Tick: Action {}
  struct SetCell: Action {
    let index: Int
    let value: Int
  }

  static func store() -> Store<Grid> {
    Store(
      initialState: Grid(),
      reducer: Reducer<Grid>()
        .on(Tick.self) { state, _ in state.tick += 1 }
        .on(SetCell.self) { state, action in state.cells[action.index] = action.value })
  }

  /// Dispatches enough ticks for the model to release what was not read meanwhile, reading
  /// `tick` and the first `cells` cells after each.
  static func update(_ model: StoreModel<Grid>, readingCells cells: Int) {
    for _ in 0..<StoreModel<Grid>.releaseAfter {
      model.dispatch(Tick())
      _ = model.tick
      for index in 0..<cells { _ = model[\.cells[index]] }
    }
  }

  @Test func pathsNoLongerReadAreReleasedAndTrackedAgainWhenRead() {
    let store = Self.store()
    let model = StoreModel(store)
    for index in 0..<10_000 { _ = model[\.cells[index]] }
    #expect(store.observerCount == 10_000)

    Self.update(model, readingCells: 9)
    #expect(store.observerCount == 10)

    #expect(model[\.cells[5_000]] == 0)
    #expect(store.observerCount == 11)
    let invalidated = ModelFlag()
    withObservationTracking {
      _ = model[\.cells[5_000]]
    } onChange: {
      invalidated.set()
    }
    model.dispatch(SetCell(index: 5_000, value: 7))
    #expect(invalidated.isSet)
    #expect(model[\.cells[5_000]] == 7)
  }

  @Test func aReaderOfAReleasedPathIsInvalidatedSoItReadsItAgain() {
    let store = Self.store()
    let model = StoreModel(store)
    let invalidated = ModelFlag()
    withObservationTracking {
      _ = model[\.cells[1]]
    } onChange: {
      invalidated.set()
    }

    Self.update(model, readingCells: 0)
    #expect(invalidated.isSet, "a reader kept tracking a path the model no longer observes")
    #expect(store.observerCount == 1)
  }

  @Test func aReaderOfOnePathIsNotInvalidatedByAnotherTrackedPath() {
    let model = StoreModel(Self.store())
    let invalidated = ModelFlag()
    withObservationTracking {
      _ = model[\.cells[1]]
    } onChange: {
      invalidated.set()
    }
    _ = model.tick
    model.dispatch(Tick())
    model.dispatch(Tick())
    #expect(model.tick == 2)
    #expect(!invalidated.isSet)
  }

  @Test func aPathReadDuringEveryUpdateStays() {
    let store = Self.store()
    let model = StoreModel(store)
    _ = model[\.cells[0]]
    Self.update(model, readingCells: 1)
    Self.update(model, readingCells: 1)
    #expect(store.observerCount == 2)
  }
}
