import Foundation
import Sluice
import Testing

@Suite struct RefCodingTests {
  final class Presenter: Sendable {}
  struct Screen: Codable, Equatable, Sendable {
    var title = "Home"
    var presenter = Ref<Presenter>.empty
  }

  @Test func aRefPropertyIsLeftOutOfTheEncodingAndDecodesEmpty() throws {
    let presenter = Presenter()
    let screen = Screen(title: "Feed", presenter: .strong(presenter))
    let data = try JSONEncoder().encode(screen)
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    #expect(object?.keys.sorted() == ["title"])
    let decoded = try JSONDecoder().decode(Screen.self, from: data)
    #expect(decoded.title == "Feed")
    #expect(decoded.presenter.isEmpty)
    // A present key (written by an older version, say) decodes to an empty reference too.
    let withKey = Data(#"{"title":"Old","presenter":{"anything":1}}"#.utf8)
    #expect(try JSONDecoder().decode(Screen.self, from: withKey).presenter.isEmpty)
  }

  @Test func refsCompareByIdentity() {
    let a = Presenter()
    let b = Presenter()
    #expect(Ref.strong(a) == Ref.weak(a))
    #expect(Ref.strong(a) != Ref.strong(b))
    #expect(Ref<Presenter>.empty == Ref.weak(nil))
  }

  @Test func aWeakRefDoesNotKeepItsObjectAlive() {
    var object: Presenter? = Presenter()
    let ref = Ref.weak(object)
    #expect(ref.object != nil)
    object = nil
    #expect(ref.object == nil)
  }
}
