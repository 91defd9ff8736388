import Sluice

/// Who is signed in: the state of the `session` store, not persisted (every run signs in).
struct Session: Equatable, Sendable {
  var profile: Loadable<Profile> = .idle
  /// How far the sign-in got, from 0 to 1.
  var progress = 0.0
}

struct Profile: Equatable, Sendable, CustomStringConvertible {
  let name: String
  var description: String { name }
}

struct SignIn: Action { let name: String }
struct SignInProgressed: Action { let fraction: Double }
struct SignedIn: CompletableAction { let result: Result<Profile, LoadError> }

extension Session {
  static let reducer = Reducer<Session>()
    .on(SignIn.self, start: \.profile)
    .on(SignIn.self) { session, _ in session.progress = 0 }
    .on(SignInProgressed.self) { session, action in session.progress = action.fraction }
    .on(SignedIn.self, complete: \.profile)

  /// Signs in slowly: `steps` pauses of `pause` each, reporting progress after every one; an
  /// empty name fails.
  static func effects(steps: Int, pause: Duration) -> Effects<Session> {
    Effects<Session>()
      .load(SignIn.self, as: SignedIn.self, policy: .latest) { request, context in
        for step in 1...max(1, steps) {
          try await Task.sleep(for: pause)
          context.dispatch(SignInProgressed(fraction: Double(step) / Double(max(1, steps))))
        }
        guard !request.name.isEmpty else { throw SignInError.noName }
        return Profile(name: request.name)
      }
  }
}

enum SignInError: Error, CustomStringConvertible {
  case noName
  var description: String { "a profile needs a name" }
}
