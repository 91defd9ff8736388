/// What went wrong in the inspector: starting it, or a command a client sent.
public struct InspectorError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The kind of error; also the `code` of the protocol's `error` message.
  public enum Code: String, Sendable {
    /// The message is not a JSON object with a `command` string.
    case malformed
    /// The message is larger than the inspector reads.
    case tooLarge
    /// The command is not one the protocol knows.
    case unknownCommand
    /// An argument is missing or of the wrong kind.
    case badArgument
    /// The record named is not (or no longer) kept.
    case unknownRecord
    /// The command was understood but could not be carried out.
    case failed
    /// The inspector could not start: another inspector is attached to the lane.
    case alreadyAttached
    /// The inspector could not start: the server could not listen.
    case cannotListen
  }

  /// The kind of error.
  public let code: Code
  /// What happened, in words.
  public let message: String

  /// Creates an error.
  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code.rawValue): \(message)" }
}
