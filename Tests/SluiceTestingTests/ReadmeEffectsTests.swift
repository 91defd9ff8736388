import Sluice
import SluiceTesting
import Testing

// The code of README.md's "Effects, loading and errors" and "Testing" sections, verbatim.

private struct Profile: Equatable, Sendable {
  var name: Loadable<String> = .idle
}

private struct LoadProfile: Action { let id: Int }
private struct ProfileLoaded: CompletableAction { let result: Result<String, LoadError> }

private func fetchName(id: Int) async throws -> String {
  await Task.yield()
  return id == 1 ? "Ada" : "Grace"
}

private let profileReducer = Reducer<Profile>()
  .on(LoadProfile.self, start: \.name)  // idle → loading (a reload keeps the old value)
  .on(ProfileLoaded.self, complete: \.name)  // loading → loaded("Ada"), or failed(error)

private let profileEffects = Effects<Profile>()
  .load(LoadProfile.self, as: ProfileLoaded.self, policy: .latest) { request, _ in
    try await fetchName(id: request.id)  // any async work; a newer request cancels this one
  }

@Suite struct ReadmeEffectsTests {
  @Test func theEffectsExampleLoadsTheProfile() async {
    let profile = Store(initialState: Profile(), reducer: profileReducer, effects: profileEffects)
    // The names the store went through: the effect may end before the test reads the state.
    let seen = TestLog<Loadable<String>>()
    let subscription = profile.observe(from: .nextChange) { seen.append($0.name) }
    profile.dispatch(LoadProfile(id: 1))  // name: loading
    #expect(seen.values.first?.isLoading == true)
    await profile.settle()  // the effect ran, and ProfileLoaded was reduced
    #expect(profile.state.name.value == "Ada")
    #expect(profile.state.name == .loaded("Ada"))
    #expect(seen.values.count == 2)
    subscription.cancel()
  }

  @Test func loadsTheProfile() async {
    let store = TestStore(
      initialState: Profile(), reducer: profileReducer, effects: profileEffects)
    await store.send(LoadProfile(id: 1)) { $0.name.start() }
    await store.receive(ProfileLoaded.self) { $0.name.fill("Ada") }
  }
}
