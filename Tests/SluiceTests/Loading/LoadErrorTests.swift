import Foundation
import Sluice
import Testing

@Suite struct LoadErrorTests {
  @Test func aCopiedFailureIsEqualToItself() {
    let failure = LoadError(LdFailure("offline"))
    let copy = failure
    #expect(copy == failure)
    #expect(failure == failure)
  }

  @Test func twoNonEquatableErrorsAreDifferentEvenWithOneMessage() {
    let first = LoadError(LdFailure("offline"))
    let second = LoadError(LdFailure("offline"))
    #expect(first.description == second.description)
    #expect(first != second)
    #expect(second != first)
  }

  @Test func wrappingOneNonEquatableErrorTwiceMakesTwoFailures() {
    let underlying = LdFailure("offline")
    #expect(LoadError(underlying) != LoadError(underlying))
  }

  @Test func equalEquatableErrorsAreEqual() {
    #expect(LoadError(LdCode.notFound) == LoadError(LdCode.notFound))
    #expect(LoadError(LdCode.offline(retryIn: 3)) == LoadError(LdCode.offline(retryIn: 3)))
  }

  @Test func differentEquatableErrorsAreNotEqual() {
    #expect(LoadError(LdCode.notFound) != LoadError(LdCode.offline(retryIn: 3)))
    #expect(LoadError(LdCode.offline(retryIn: 1)) != LoadError(LdCode.offline(retryIn: 3)))
    // Same spelling, different types.
    #expect(LoadError(LdCode.notFound) != LoadError(LdOtherCode.notFound))
    #expect(LoadError(LdOtherCode.notFound) != LoadError(LdCode.notFound))
  }

  @Test func equatableAndNonEquatableErrorsAreNeverEqual() {
    #expect(LoadError(LdCode.notFound) != LoadError(LdFailure("notFound")))
    #expect(LoadError(LdFailure("notFound")) != LoadError(LdCode.notFound))
  }

  @Test func wrappingALoadErrorGivesTheSameFailure() {
    let original = LoadError(LdFailure("offline"))
    let rewrapped = LoadError(original)
    #expect(rewrapped == original)
    #expect(LoadError(LoadError(rewrapped)) == original)
    #expect(rewrapped.underlying is LdFailure)
    #expect(!(rewrapped.underlying is LoadError))

    // Also through an `any Error` existential.
    let erased: any Error = original
    #expect(LoadError(erased) == original)
  }

  @Test func keepsTheUnderlyingErrorAndItsDescription() {
    let failure = LoadError(LdFailure("disk full"))
    #expect((failure.underlying as? LdFailure)?.message == "disk full")
    #expect(failure.description == "disk full")
    #expect("\(LoadError(LdCode.notFound))" == "notFound")
  }

  @Test func resultLoadingWrapsThrownErrors() async throws {
    let success = await Result<Int, LoadError>(loading: { 4 })
    #expect(try success.get() == 4)

    let failure = await Result<Int, LoadError>(loading: { throw LdCode.notFound })
    guard case .failure(let error) = failure else {
      Issue.record("expected a failure, got \(failure)")
      return
    }
    #expect(error == LoadError(LdCode.notFound))
    #expect(error.underlying as? LdCode == .notFound)
  }

  @Test func resultLoadingDoesNotWrapALoadErrorTwice() async {
    let original = LoadError(LdFailure("x"))
    let result = await Result<Int, LoadError>(loading: { throw original })
    guard case .failure(let error) = result else {
      Issue.record("expected a failure, got \(result)")
      return
    }
    #expect(error == original)
    #expect(error.underlying is LdFailure)
  }
}
