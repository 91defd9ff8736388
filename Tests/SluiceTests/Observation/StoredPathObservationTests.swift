import Sluice
import Testing

/// Key paths made only of stored properties are read by offset; these check that the fast read
/// sees exactly what the key path would, for values with references and optionals too.
@Suite struct StoredPathObservationTests {
  struct Profile: Equatable, Sendable {
    var name = "Ada"
    var nickname: String?
    var tags: [String] = []
    var address = Address()
  }
  struct Address: Equatable, Sendable {
    var city = "London"
    var zip: Int?
  }
  enum Edit: Action {
    case rename(String)
    case nickname(String?)
    case tag(String)
    case move(String)
    case zip(Int?)
  }

  static let reducer = Reducer<Profile>().on(Edit.self) { state, edit in
    switch edit {
    case .rename(let name): state.name = name
    case .nickname(let nickname): state.nickname = nickname
    case .tag(let tag): state.tags.append(tag)
    case .move(let city): state.address.city = city
    case .zip(let zip): state.address.zip = zip
    }
  }

  @Test func storedPathsWithReferencesAndOptionalsReportExactChanges() {
    let store = Store(initialState: Profile(), reducer: Self.reducer)
    let names = Recorder<Change<String>>()
    let nicknames = Recorder<Change<String?>>()
    let tags = Recorder<Change<[String]>>()
    let cities = Recorder<Change<String>>()
    let zips = Recorder<Change<Int?>>()
    let subscriptions = [
      store.observe(\.name, from: .nextChange) { names.append($0) },
      store.observe(\.nickname, from: .nextChange) { nicknames.append($0) },
      store.observe(\.tags, from: .nextChange) { tags.append($0) },
      store.observe(\.address.city, from: .nextChange) { cities.append($0) },
      store.observe(\.address.zip, from: .nextChange) { zips.append($0) },
    ]
    store.dispatch(Edit.rename("Grace"))
    store.dispatch(Edit.nickname("Amazing"))
    store.dispatch(Edit.tag("navy"))
    store.dispatch(Edit.move("Arlington"))
    store.dispatch(Edit.zip(22201))
    store.dispatch(Edit.zip(nil))
    store.dispatch(Edit.rename("Grace"))  // no change: nobody fires
    #expect(names.values == [Change(old: "Ada", new: "Grace")])
    #expect(nicknames.values == [Change(old: nil, new: "Amazing")])
    #expect(tags.values == [Change(old: [], new: ["navy"])])
    #expect(cities.values == [Change(old: "London", new: "Arlington")])
    #expect(zips.values == [Change(old: nil, new: 22201), Change(old: 22201, new: nil)])
    for subscription in subscriptions { subscription.cancel() }
  }

  final class Session: Sendable {
    let user: String
    init(user: String) { self.user = user }
  }
  struct Swap: Action { let session: Session }

  @Test func aClassStateIsObservedThroughItsKeyPaths() {
    let store = Store(
      initialState: Session(user: "a"),
      reducer: Reducer<Session>().on(Swap.self) { state, action in state = action.session })
    let users = Recorder<Change<String>>()
    let subscription = store.observe(\.user, from: .nextChange) { users.append($0) }
    store.dispatch(Swap(session: Session(user: "b")))
    store.dispatch(Swap(session: Session(user: "b")))
    #expect(users.values == [Change(old: "a", new: "b")])
    subscription.cancel()
  }
}
