/// The error of a failed ``Loadable``: any error, with an equality that never calls two
/// different failures equal.
///
/// Two load errors are equal when they are the same failure (copies of one `LoadError`), or
/// when their underlying errors are of one `Equatable` type and equal. Errors that are not
/// `Equatable` are compared by identity only, so a new failure always counts as a change.
public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
  private final class Identity: Sendable {}

  /// The error that caused the failure.
  public let underlying: any Error
  private let identity: Identity

  /// Wraps an error; a `LoadError` is returned unchanged.
  public init(_ error: any Error) {
    if let existing = error as? LoadError {
      self = existing
    } else {
      underlying = error
      identity = Identity()
    }
  }

  public static func == (lhs: LoadError, rhs: LoadError) -> Bool {
    lhs.identity === rhs.identity || equalValues(lhs.underlying, rhs.underlying)
  }

  public var description: String { "\(underlying)" }
}

/// Whether `lhs` and `rhs` are of one `Equatable` type and equal.
func equalValues(_ lhs: any Sendable, _ rhs: any Sendable) -> Bool {
  guard let lhs = lhs as? any Equatable else { return false }
  return lhs.isEqual(to: rhs)
}

extension Equatable {
  fileprivate func isEqual(to other: any Sendable) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}
