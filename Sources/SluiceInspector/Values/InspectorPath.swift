import Foundation
import Sluice

/// Where a value sits inside a state, as the inspector's protocol writes it: `items[2].done`,
/// `byID["42"].title`; empty for the whole state.
struct InspectorPath: Sendable, Hashable, CustomStringConvertible {
  /// One step into a value: a property or a dictionary key as text, or an array element.
  typealias Component = StateValueChange.Step

  /// The steps, outermost first.
  var components: [Component]

  /// A path of `components`.
  init(_ components: [Component] = []) {
    self.components = components
  }

  /// Parses `items[2].done`, `["a key"].x` or `.a.b`; `nil` when the text is not a path.
  init?(parsing text: String) {
    var components: [Component] = []
    var index = text.startIndex
    func isIdentifier(_ character: Character) -> Bool {
      character.isLetter || character.isNumber || character == "_" || character == "$"
    }
    while index < text.endIndex {
      let character = text[index]
      if character == "."
        || (components.isEmpty && index == text.startIndex && isIdentifier(character))
      {
        if character == "." { index = text.index(after: index) }
        let start = index
        while index < text.endIndex, isIdentifier(text[index]) { index = text.index(after: index) }
        guard start < index else { return nil }
        components.append(.key(String(text[start..<index])))
      } else if character == "[" {
        index = text.index(after: index)
        guard index < text.endIndex else { return nil }
        if text[index] == "\"" {
          // A quoted key, a JSON string: `\"`, `\\`, `\n`, `\u00e9` and the other escapes.
          let start = index
          index = text.index(after: index)
          var escaped = false
          while index < text.endIndex, escaped || text[index] != "\"" {
            escaped = !escaped && text[index] == "\\"
            index = text.index(after: index)
          }
          guard index < text.endIndex else { return nil }
          index = text.index(after: index)
          guard index < text.endIndex, text[index] == "]",
            let key = try? JSONDecoder().decode(String.self, from: Data(text[start..<index].utf8))
          else { return nil }
          components.append(.key(key))
        } else {
          let start = index
          while index < text.endIndex, text[index].isASCII, text[index].isNumber {
            index = text.index(after: index)
          }
          guard start < index, index < text.endIndex, text[index] == "]",
            let number = Int(text[start..<index])
          else { return nil }
          components.append(.index(number))
        }
        index = text.index(after: index)
      } else {
        return nil
      }
    }
    self.components = components
  }

  /// Whether `self` is `other` or lies inside it.
  func isInside(_ other: InspectorPath) -> Bool {
    components.count >= other.components.count
      && zip(components, other.components).allSatisfy(InspectorPath.same)
  }

  /// `[2]` and `["2"]` name the same step: the page cannot always tell an array from an object.
  private static func same(_ left: Component, _ right: Component) -> Bool {
    switch (left, right) {
    case (.key(let a), .key(let b)): a == b
    case (.index(let a), .index(let b)): a == b
    case (.key(let key), .index(let index)), (.index(let index), .key(let key)): key == "\(index)"
    }
  }

  /// `items[2].done`.
  var description: String {
    var text = ""
    for component in components {
      switch component {
      case .index(let index): text += "[\(index)]"
      case .key(let key):
        if InspectorPath.isPlainName(key) {
          text += text.isEmpty ? key : "." + key
        } else {
          text += "[" + StateValue.string(key).jsonText + "]"
        }
      }
    }
    return text
  }

  private static func isPlainName(_ key: String) -> Bool {
    guard let first = key.first, first.isLetter || first == "_" else { return false }
    return key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
  }
}
