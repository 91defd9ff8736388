import Foundation
import Sluice
import Testing

@Suite struct LoadableTests {
  // MARK: - Statuses

  @Test func idleIsNothingAskedForYet() {
    let loadable = Loadable<Int>.idle
    #expect(loadable.status == .idle)
    #expect(loadable.isIdle)
    #expect(!loadable.isLoading)
    #expect(!loadable.isLoaded)
    #expect(!loadable.isFailed)
    #expect(!loadable.isFinished)
    #expect(loadable.value == nil)
    #expect(loadable.error == nil)
    #expect(loadable.startedAt == nil)
    #expect(loadable.finishedAt == nil)
    #expect(loadable.metadata.isEmpty)
    #expect(Loadable<Int>() == .idle)
  }

  @Test func loadingIsInFlightWithoutAValue() {
    let loadable = Loadable<Int>.loading(since: LdDates.t0)
    #expect(loadable.status == .loading)
    #expect(!loadable.isIdle)
    #expect(loadable.isLoading)
    #expect(!loadable.isLoaded)
    #expect(!loadable.isFailed)
    #expect(!loadable.isFinished)
    #expect(loadable.value == nil)
    #expect(loadable.error == nil)
    #expect(loadable.startedAt == LdDates.t0)
    #expect(loadable.finishedAt == nil)
  }

  @Test func loadedHasItsValue() {
    let loadable = Loadable.loaded(3, at: LdDates.t1)
    #expect(loadable.status == .loaded(3))
    #expect(!loadable.isIdle)
    #expect(!loadable.isLoading)
    #expect(loadable.isLoaded)
    #expect(!loadable.isFailed)
    #expect(loadable.isFinished)
    #expect(loadable.value == 3)
    #expect(loadable.error == nil)
    #expect(loadable.startedAt == LdDates.t1)
    #expect(loadable.finishedAt == LdDates.t1)
  }

  @Test func failedHasItsError() throws {
    let loadable = Loadable<Int>.failed(LdFailure("offline"), at: LdDates.t2)
    #expect(!loadable.isIdle)
    #expect(!loadable.isLoading)
    #expect(!loadable.isLoaded)
    #expect(loadable.isFailed)
    #expect(loadable.isFinished)
    #expect(loadable.value == nil)
    let error = try #require(loadable.error)
    #expect((error.underlying as? LdFailure)?.message == "offline")
    guard case .failed(let statusError) = loadable.status else {
      Issue.record("status is \(loadable.status), expected failed")
      return
    }
    #expect(statusError == error)
    #expect(loadable.finishedAt == LdDates.t2)
  }

  // MARK: - Stale values

  @Test func reloadKeepsTheLatestValueWhileSayingItIsStale() {
    var loadable = Loadable.loaded(1, at: LdDates.t0)
    loadable.start(at: LdDates.t1)
    #expect(loadable.isLoading)
    #expect(!loadable.isLoaded)
    #expect(loadable.status == .loading)
    #expect(loadable.value == 1)
    #expect(loadable.error == nil)
    #expect(loadable == .loading(keeping: 1))
    #expect(loadable != .loading())
    #expect(loadable != .loaded(1))

    loadable.fill(2, at: LdDates.t2)
    #expect(loadable == .loaded(2))
    #expect(loadable.value == 2)
  }

  @Test func failureKeepsTheLatestValueAndShowsTheError() throws {
    var loadable = Loadable.loaded(1)
    loadable.start()
    loadable.fail(LdFailure("timeout"))
    #expect(loadable.isFailed)
    #expect(loadable.isFinished)
    #expect(loadable.value == 1)
    let error = try #require(loadable.error)
    #expect(error.description == "timeout")

    // A retry still keeps it; success replaces it.
    loadable.start()
    #expect(loadable.isLoading)
    #expect(loadable.value == 1)
    #expect(loadable.error == nil)
    loadable.fill(5)
    #expect(loadable == .loaded(5))
  }

  @Test func failingTwiceKeepsTheValueAndTheNewestError() {
    var loadable = Loadable.loaded(1)
    loadable.fail(LdCode.offline(retryIn: 1))
    loadable.fail(LdCode.offline(retryIn: 2))
    #expect(loadable.value == 1)
    #expect(loadable.error == LoadError(LdCode.offline(retryIn: 2)))
  }

  @Test func failWithFallbackFillsOnErrorAndKeepsTheErrorVisible() {
    var empty = Loadable<[String]>.idle
    empty.start()
    empty.fail(LdFailure("offline"), fallback: ["cached"])
    #expect(empty.isFailed)
    #expect(!empty.isLoaded)
    #expect(empty.value == ["cached"])
    #expect(empty.error?.description == "offline")

    // A fallback replaces the kept value.
    var loaded = Loadable.loaded(["old"])
    loaded.fail(LdFailure("offline"), fallback: ["fallback"])
    #expect(loaded.value == ["fallback"])
    #expect(loaded.isFailed)

    // Without a fallback the kept value stays; nil fallback means "no fallback".
    var kept = Loadable.loaded(["old"])
    kept.fail(LdFailure("offline"), fallback: nil)
    #expect(kept.value == ["old"])

    let made = Loadable<Int>.failed(LdCode.notFound, fallback: 7)
    #expect(made.value == 7)
    #expect(made.error == LoadError(LdCode.notFound))
  }

  // MARK: - Completing with a result

  @Test func completeWithSuccessFills() {
    var loadable = Loadable<Int>.loading(keeping: 1)
    loadable.complete(with: Result<Int, LoadError>.success(4), at: LdDates.t1)
    #expect(loadable == .loaded(4))
    #expect(loadable.finishedAt == LdDates.t1)
  }

  @Test func completeWithFailureFailsKeepingTheValue() {
    var loadable = Loadable<Int>.loading(keeping: 1)
    loadable.complete(with: Result<Int, LdCode>.failure(.notFound), at: LdDates.t1)
    #expect(loadable.isFailed)
    #expect(loadable.value == 1)
    #expect(loadable.error == LoadError(LdCode.notFound))
    #expect(loadable.finishedAt == LdDates.t1)

    var withFallback = Loadable<Int>.loading()
    withFallback.complete(with: Result<Int, LdCode>.failure(.notFound), fallback: 9)
    #expect(withFallback.value == 9)
    #expect(withFallback.isFailed)

    // On success the fallback is not used.
    var ignoredFallback = Loadable<Int>.loading()
    ignoredFallback.complete(with: Result<Int, LdCode>.success(2), fallback: 9)
    #expect(ignoredFallback == .loaded(2))
  }

  @Test func completeWithALoadErrorKeepsThatVerySameFailure() throws {
    let failure = LoadError(LdFailure("not equatable"))
    var loadable = Loadable<Int>.loading()
    loadable.complete(with: Result<Int, LoadError>.failure(failure))
    let error = try #require(loadable.error)
    #expect(error == failure)
  }

  // MARK: - Reset

  @Test func resetForgetsValueErrorAndTimestampsButKeepsMetadata() {
    var loadable = Loadable.loaded(1, at: LdDates.t0)
    loadable.metadata[String.self] = "kept"
    loadable.start(at: LdDates.t1)
    loadable.fail(LdFailure("x"), at: LdDates.t2)
    loadable.reset()
    #expect(loadable.isIdle)
    #expect(loadable.value == nil)
    #expect(loadable.error == nil)
    #expect(loadable.startedAt == nil)
    #expect(loadable.finishedAt == nil)
    #expect(loadable.metadata[String.self] == "kept")
    #expect(loadable != .idle)  // the metadata differs
    loadable.metadata[String.self] = nil
    #expect(loadable == .idle)
  }

  // MARK: - Timestamps

  @Test func timestampsFollowTheLoad() {
    var loadable = Loadable<Int>.idle
    loadable.start(at: LdDates.t0)
    #expect(loadable.startedAt == LdDates.t0)
    #expect(loadable.finishedAt == nil)

    loadable.fill(1, at: LdDates.t1)
    #expect(loadable.startedAt == LdDates.t0)
    #expect(loadable.finishedAt == LdDates.t1)

    loadable.start(at: LdDates.t2)
    #expect(loadable.startedAt == LdDates.t2)
    #expect(loadable.finishedAt == nil)

    loadable.fail(LdFailure("x"), at: LdDates.t3)
    #expect(loadable.startedAt == LdDates.t2)
    #expect(loadable.finishedAt == LdDates.t3)
  }

  @Test func finishingWithoutStartingStartsAndFinishesAtOnce() {
    var filled = Loadable<Int>.idle
    filled.fill(1, at: LdDates.t1)
    #expect(filled.startedAt == LdDates.t1)
    #expect(filled.finishedAt == LdDates.t1)

    var failed = Loadable<Int>.idle
    failed.fail(LdFailure("x"), at: LdDates.t2)
    #expect(failed.startedAt == LdDates.t2)
    #expect(failed.finishedAt == LdDates.t2)

    let made = Loadable<Int>.failed(LdFailure("x"), at: LdDates.t3)
    #expect(made.startedAt == LdDates.t3)
    #expect(made.finishedAt == LdDates.t3)
  }

  @Test func timestampsDoNotTakePartInEquality() {
    #expect(Loadable.loaded(1, at: LdDates.t0) == Loadable.loaded(1, at: LdDates.t3))
    #expect(Loadable<Int>.loading(since: LdDates.t0) == Loadable<Int>.loading(since: LdDates.t1))
    #expect(
      Loadable<Int>.loading(keeping: 2, since: LdDates.t0)
        == Loadable<Int>.loading(keeping: 2, since: LdDates.t2))

    let failure = LoadError(LdFailure("x"))
    #expect(
      Loadable<Int>.failed(failure, at: LdDates.t0) == Loadable<Int>.failed(failure, at: LdDates.t1)
    )

    var started = Loadable<Int>.idle
    started.start(at: LdDates.t0)
    var restarted = started
    restarted.start(at: LdDates.t3)
    #expect(started == restarted)
  }

  @Test func equalityComparesStatusAndKeptValue() {
    #expect(Loadable.loaded(1) != Loadable.loaded(2))
    #expect(Loadable<Int>.loading(keeping: 1) != Loadable<Int>.loading(keeping: 2))
    #expect(Loadable<Int>.loading(keeping: 1) != Loadable<Int>.loading())
    #expect(Loadable<Int>.idle != Loadable<Int>.loading())
    #expect(Loadable<Int>.loaded(1) != Loadable<Int>.loading(keeping: 1))

    let failure = LoadError(LdFailure("x"))
    #expect(Loadable<Int>.failed(failure, fallback: 1) != Loadable<Int>.failed(failure))
    #expect(
      Loadable<Int>.failed(failure, fallback: 1) == Loadable<Int>.failed(failure, fallback: 1))
    #expect(Loadable<Int>.failed(failure, fallback: 1) != Loadable<Int>.loading(keeping: 1))
  }

  @Test func aNewFailureIsAlwaysAChange() {
    #expect(Loadable<Int>.failed(LdFailure("x")) != Loadable<Int>.failed(LdFailure("x")))
    #expect(Loadable<Int>.failed(LdCode.notFound) == Loadable<Int>.failed(LdCode.notFound))
  }

  @Test func copiesAreIndependentValues() {
    let original = Loadable.loaded(1)
    var copy = original
    copy.start()
    copy.fail(LdFailure("x"))
    #expect(original == .loaded(1))
    #expect(copy.isFailed)
  }

  // MARK: - map

  @Test func mapTransformsValuesAndKeepsStatusTimestampsAndMetadata() throws {
    #expect(Loadable<Int>.idle.map { "\($0)" } == .idle)
    #expect(Loadable<Int>.loading().map { "\($0)" } == .loading())
    #expect(Loadable<Int>.loading(keeping: 1).map { "\($0)" } == .loading(keeping: "1"))

    var loaded = Loadable.loaded(2, at: LdDates.t1)
    loaded.metadata[String.self] = "note"
    let mappedLoaded = loaded.map { $0 * 10 }
    #expect(mappedLoaded.status == .loaded(20))
    #expect(mappedLoaded.startedAt == LdDates.t1)
    #expect(mappedLoaded.finishedAt == LdDates.t1)
    #expect(mappedLoaded.metadata[String.self] == "note")
    #expect(mappedLoaded.metadata == loaded.metadata)

    var failed = Loadable.loaded(3, at: LdDates.t0)
    failed.start(at: LdDates.t1)
    failed.fail(LdFailure("x"), at: LdDates.t2)
    let mappedFailed = failed.map { "\($0)" }
    #expect(mappedFailed.isFailed)
    #expect(mappedFailed.value == "3")
    #expect(mappedFailed.error == failed.error)  // the same failure
    #expect(mappedFailed.startedAt == LdDates.t1)
    #expect(mappedFailed.finishedAt == LdDates.t2)
  }

  @Test func mapRethrows() throws {
    #expect(throws: LdCode.notFound) {
      _ = try Loadable.loaded(1).map { _ -> Int in throw LdCode.notFound }
    }
    // Nothing to transform, nothing thrown.
    let idle = try Loadable<Int>.idle.map { _ -> Int in throw LdCode.notFound }
    #expect(idle == .idle)
  }

  // MARK: - TaskStatus

  @Test func taskStatusRunsAndSucceeds() {
    var task: TaskStatus = .idle
    #expect(task.isIdle)
    task.start(at: LdDates.t0)
    #expect(task.isLoading)
    task.succeed(at: LdDates.t1)
    #expect(task.isLoaded)
    #expect(task.isFinished)
    #expect(task.value == Done())
    #expect(task.startedAt == LdDates.t0)
    #expect(task.finishedAt == LdDates.t1)
    #expect(task == .succeeded())
    #expect(task == .loaded(Done()))
    #expect(TaskStatus.succeeded(at: LdDates.t2).finishedAt == LdDates.t2)
  }

  @Test func taskStatusFails() {
    var task: TaskStatus = .succeeded()
    task.start()
    task.fail(LdCode.offline(retryIn: 3))
    #expect(task.isFailed)
    #expect(task.error == LoadError(LdCode.offline(retryIn: 3)))
    #expect(task != .succeeded())
  }

  // MARK: - Description

  @Test func describesItself() {
    #expect(Loadable<Int>.idle.description == "idle")
    #expect(Loadable<Int>.loading().description == "loading")
    #expect(Loadable<Int>.loading(keeping: 1).description == "loading (keeping 1)")
    #expect(Loadable.loaded(1).description == "loaded(1)")
    #expect(Loadable<Int>.failed(LdFailure("boom")).description == "failed(boom)")
    #expect(
      Loadable<Int>.failed(LdFailure("boom"), fallback: 1).description == "failed(boom, keeping 1)")
    #expect(TaskStatus.succeeded().description == "loaded(done)")
    #expect(Done().description == "done")
    #expect("\(Loadable.loaded("text"))" == "loaded(text)")
  }
}
