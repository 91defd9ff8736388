import Logging
import Sluice
import SluiceLogging
import Testing

struct LogSession: Codable, Equatable, Sendable {
  var user: String
  var token: String
}

struct LogAccount: Codable, Equatable, Sendable {
  var name: String
  var password: String
}

struct LogAppState: Codable, Equatable, Sendable {
  var session: LogSession?
  var accounts: [LogAccount] = []
  var visits = 0
}

struct LogSignedIn: Action {
  let user: String
  let token: String
}
struct LogTokenRefreshed: Action { let token: String }
struct LogAccountAdded: Action { let account: LogAccount }

let logAppReducer = Reducer<LogAppState>()
  .on(LogSignedIn.self) { state, action in
    state.session = LogSession(user: action.user, token: action.token)
    state.visits += 1
  }
  .on(LogTokenRefreshed.self) { state, action in state.session?.token = action.token }
  .on(LogAccountAdded.self) { state, action in state.accounts.append(action.account) }

/// A state whose encoding calls its token otherwise.
struct LogRenamedSession: Codable, Equatable, Sendable {
  var token = ""

  enum CodingKeys: String, CodingKey { case token = "access_token" }
}

struct LogTokenSet: Action { let token: String }

@Suite("Logging redaction")
struct RedactionTests {
  /// The middleware reads a state as the inspector does, by its properties: one `Redaction`
  /// hides the same parts in both, whatever the state's `Encodable` conformance calls them.
  @Test func aRedactedPropertyStaysHiddenWhenTheStatesEncodingRenamesIt() {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogRenamedSession(),
      reducer: Reducer<LogRenamedSession>().on(LogTokenSet.self) { state, action in
        state.token = action.token
      },
      middleware: [.logging(to: recorder.logger(), redacting: ["token"])])

    store.dispatch(LogTokenSet(token: "s3cr3t"))

    #expect(recorder.records.first?.strings("sluice.changes") == ["token: <redacted> → <redacted>"])
    #expect(!recorder.records.contains { LogRecorder.text(of: $0).contains("s3cr3t") })
  }

  @Test func aRedactedPathNeverShowsItsValueInAnyRecord() {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogAppState(), reducer: logAppReducer,
      middleware: [.logging(to: recorder.logger(), redacting: ["session.token"])])

    store.dispatch(LogSignedIn(user: "ann", token: "s3cr3t-1"))
    store.dispatch(LogTokenRefreshed(token: "s3cr3t-2"))
    store.dispatch(LogTokenRefreshed(token: "s3cr3t-2"))

    let changes = recorder.records.map { $0.strings("sluice.changes") }
    #expect(
      changes == [
        [#"session: null → {"token": <redacted>, "user": "ann"}"#, "visits: 0 → 1"],
        ["session.token: <redacted> → <redacted>"],
        [],
      ])
    for record in recorder.records {
      #expect(!LogRecorder.text(of: record).contains("s3cr3t"))
    }
  }

  @Test func redactingAParentHidesEverythingUnderIt() {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogAppState(), reducer: logAppReducer,
      middleware: [.logging(to: recorder.logger(), redacting: ["session"])])

    store.dispatch(LogSignedIn(user: "ann", token: "s3cr3t"))
    store.dispatch(LogTokenRefreshed(token: "other-s3cr3t"))

    #expect(
      recorder.records.map { $0.strings("sluice.changes") } == [
        ["session: <redacted> → <redacted>", "visits: 0 → 1"],
        ["session: <redacted> → <redacted>"],
      ])
    #expect(!recorder.records.contains { LogRecorder.text(of: $0).contains("ann") })
  }

  @Test func aWildcardSegmentRedactsEveryElement() {
    let recorder = LogRecorder()
    let store = Store(
      initialState: LogAppState(), reducer: logAppReducer,
      middleware: [.logging(to: recorder.logger(), redacting: ["accounts.*.password"])])

    store.dispatch(LogAccountAdded(account: LogAccount(name: "ann", password: "hunter2")))

    #expect(
      recorder.records.first?.strings("sluice.changes") == [
        #"accounts.0: null → {"name": "ann", "password": <redacted>}"#
      ])
  }

  @Test func aPredicateRedactsThePathsItMatches() {
    let recorder = LogRecorder()
    let redaction = Redaction.matching { $0.hasSuffix("password") || $0.hasSuffix("token") }
    let store = Store(
      initialState: LogAppState(), reducer: logAppReducer,
      middleware: [.logging(to: recorder.logger(), redacting: redaction)])

    store.dispatch(LogAccountAdded(account: LogAccount(name: "bob", password: "hunter2")))
    store.dispatch(LogSignedIn(user: "bob", token: "s3cr3t"))

    #expect(
      recorder.records.first?.strings("sluice.changes") == [
        #"accounts.0: null → {"name": "bob", "password": <redacted>}"#
      ])
    let text = recorder.records.map(LogRecorder.text(of:)).joined(separator: "\n")
    #expect(!text.contains("hunter2"))
    #expect(!text.contains("s3cr3t"))
  }

  @Test func redactionsMatchExactPathsPatternsAndPredicates() {
    let paths: Redaction = ["session.token", "accounts.*.password"]
    #expect(paths.redacts("session.token"))
    #expect(!paths.redacts("session.tokenExpiry"))
    #expect(!paths.redacts("session"), "a path above a redacted one is not itself redacted")
    #expect(paths.redacts("accounts.12.password"))
    #expect(!paths.redacts("accounts.12.name"))
    #expect(!paths.redacts("accounts.password"))

    let both = Redaction.paths(["session"]).union(.matching { $0.hasPrefix("secret") })
    #expect(both.redacts("session"))
    #expect(both.redacts("secretNotes"))
    #expect(!both.redacts("visits"))
    #expect(!Redaction.none.redacts(""))
  }
}
