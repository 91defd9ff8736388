import Foundation
import Sluice

// Fixtures of the Flask README examples, in Sluice. Every name starts with `Flx`.

/// Flask's `AppState` of the Redux-style example: `enum prop { case counter, text }`.
struct FlxAppState: Equatable, Codable, Sendable {
  var counter = 0
  var text = ""
  var title = ""
  var asyncResult = ""
  var _internal = "`_` use this prefix for internal vars "
}

/// Flask's `EnvMixers : SubstanceMixer` of the Fluxor-style example.
enum FlxEnvMixers {
  /// `Flask.substances(reactTo: EnvMixers.Login, payload: ["username": "foo"])`.
  struct Login: Action { let payload: StateValue }
  struct Logout: Action {}
  /// `Flask.lock(withMixer: EnvMixers.AsyncAction)`.
  struct AsyncAction: Action {}
  /// Mixes an internal property only.
  struct TouchInternal: Action {}
}

/// Flask's `AppReactiveSubstance : ReactiveSubstance<AppState, EnvMixers>`: a store type the
/// dispatcher owns (`Subs.appReactive`).
struct FlxAppReactive: StoreDefinition, Equatable, Codable {
  var counter = 0
  var title = ""

  static let initialState = FlxAppReactive()
  static let reducer = Reducer<FlxAppReactive>()
    .on(FlxEnvMixers.Login.self) { state, _ in
      state.title = "signed"
      state.counter += 1
    }
    .on(FlxEnvMixers.Logout.self) { state, _ in state.title = "" }
}

/// A second store on the same dispatcher that handles `Login` too (Fluxor: every store that
/// handles a mixer reduces it).
struct FlxProfile: StoreDefinition, Equatable, Codable {
  var username: String?

  static let initialState = FlxProfile()
  static let reducer = Reducer<FlxProfile>()
    .on(FlxEnvMixers.Login.self) { state, login in
      state.username = login.payload["username"].stringValue
    }
    .on(FlxEnvMixers.Logout.self) { state, _ in state.username = nil }
}

enum FlxFixtures {
  /// The `App : ReactiveSubstance<AppState, Mixers>` of the README: `Login` increments.
  static let appReducer = Reducer<FlxAppState>()
    .on(FlxEnvMixers.Login.self) { state, _ in
      state.counter += 1
      state.title = "signed"
    }
    .on(FlxEnvMixers.Logout.self) { state, _ in state.title = "" }
    .on(FlxEnvMixers.AsyncAction.self) { state, _ in state.asyncResult = "started" }
    .on(FlxEnvMixers.TouchInternal.self) { state, _ in state._internal += "!" }

  static func app(_ dispatcher: Dispatcher? = nil) -> Store<FlxAppState> {
    Store(initialState: FlxAppState(), dispatcher: dispatcher, reducer: appReducer)
  }
}

/// Flask's `ViewController: FlaskReactor`: an owner whose reactions print.
final class FlxViewController: Sendable {
  let printed = Recorder<String>()
  let handlerCalls = TxCount()
}

/// An object kept in a state by reference (Flask's `FlaskNSRef(NSObject())`).
final class FlxObject: NSObject, @unchecked Sendable {
  // @unchecked Sendable: no stored state.
}

/// Flask's nested `testStruct` example: every property `Codable`, one an object reference.
struct FlxNestedTestStruct: Codable, Equatable, Sendable {
  var foo = "bar"
  var object = Ref<FlxObject>.strong(FlxObject())
}

struct FlxTestStruct: Codable, Equatable, Sendable {
  var counter = 10
  var nest = FlxNestedTestStruct()
}

struct FlxNestState: Codable, Equatable, Sendable {
  var info = FlxTestStruct()
}

/// Flask's `FlaskDictRef?` example, with a dynamic value.
struct FlxDictState: Codable, Equatable, Sendable {
  var info: StateValue?
}

/// The same, non-optional, for key paths through subscripts.
struct FlxDictKeyPathState: Codable, Equatable, Sendable {
  var info: StateValue = [:]
}

/// Flask's `myState : State { var object = FlaskRef(NSObject()) }`.
struct FlxRefState: Codable, Equatable, Sendable {
  var object = Ref<FlxObject>.strong(nil)
  var delegate = Ref<FlxObject>.weak(nil)
  var counter = 0
}
