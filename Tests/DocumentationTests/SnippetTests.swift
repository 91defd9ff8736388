import Foundation
import Testing

// The documentation cannot rot: every Swift snippet of the DocC catalogs
// (Sources/*/*.docc/*.md) appears, line for line, in a test file of this folder, where it is
// compiled and run. In the migration guides (MigratingFrom*.md), which also show the other
// libraries' code, the Sluice snippets are the code blocks in a column or section headed
// `**Sluice**`; in every other article, every ```swift block is one. Editing an article
// without its test, or the test without its article, fails here.

@Suite("Documentation snippets stay compiled")
struct SnippetTests {
  static let guides = [
    "MigratingFromFlask", "MigratingFromMiniSwift", "MigratingFromRxStateFlow",
    "MigratingFromJBFlux", "MigratingFromUnicore",
  ]

  @Test("every migration guide exists, with a concept table and Sluice snippets", arguments: guides)
  func guideIsComplete(name: String) throws {
    let url = DocumentationFiles.root.appendingPathComponent(
      "Sources/Sluice/Sluice.docc/\(name).md")
    let text = try #require(
      try? String(contentsOf: url, encoding: .utf8), "no migration guide at \(url.path)")
    #expect(text.contains("\n| "), "\(name).md has no concept table")
    let snippets = DocumentationFiles.snippets(in: text, labelledOnly: true)
    #expect(snippets.count >= 3, "\(name).md has \(snippets.count) Sluice snippets")
  }

  @Test("every Swift snippet of every catalog is in a test")
  func snippetsAreTested() throws {
    let tests = try DocumentationFiles.testSources()
    let articles = try DocumentationFiles.articles()
    #expect(!articles.isEmpty)
    for article in articles {
      let text = try String(contentsOf: article, encoding: .utf8)
      let isGuide = article.lastPathComponent.hasPrefix("MigratingFrom")
      let relative = article.path.replacingOccurrences(
        of: DocumentationFiles.root.path + "/", with: "")
      for (index, snippet) in DocumentationFiles.snippets(in: text, labelledOnly: isGuide)
        .enumerated()
      {
        let lines = DocumentationFiles.normalized(snippet)
        let code = lines.joined(separator: "\n")
        let isTested = DocumentationFiles.contains(tests, lines)
        #expect(
          isTested,
          "snippet \(index + 1) of \(relative) is in no test of Tests/DocumentationTests:\n\(code)")
      }
    }
  }

  @Test("the extraction takes Swift blocks, and in guides the Sluice-labelled ones only")
  func extraction() {
    let text = """
      **Flask**

      ```swift
      let seed = 1
      ```

      @Column {
        **Sluice**

        ```swift
        let sluice = 2
          .doubled()
        ```
      }

      ```sh
      swift run
      ```

      ```swift apple-only
      import SwiftUI
      ```
      """
    let sluice = "let sluice = 2\n  .doubled()"
    #expect(DocumentationFiles.snippets(in: text, labelledOnly: true) == [sluice])
    #expect(DocumentationFiles.snippets(in: text, labelledOnly: false) == ["let seed = 1", sluice])
    let lines = ["let sluice = 2", ".doubled()"]
    #expect(DocumentationFiles.contains(["a", "let sluice = 2", ".doubled()", "b"], lines))
    #expect(!DocumentationFiles.contains(["let sluice = 2", "b", ".doubled()"], lines))
  }
}

enum DocumentationFiles {
  /// The package root, three levels above this file.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The articles of every DocC catalog under `Sources/`.
  static func articles() throws -> [URL] {
    let manager = FileManager.default
    let sources = root.appendingPathComponent("Sources")
    var articles: [URL] = []
    for module in try manager.contentsOfDirectory(atPath: sources.path).sorted() {
      let moduleURL = sources.appendingPathComponent(module)
      let entries = (try? manager.contentsOfDirectory(atPath: moduleURL.path)) ?? []
      for catalog in entries.sorted() where catalog.hasSuffix(".docc") {
        let catalogURL = moduleURL.appendingPathComponent(catalog)
        let enumerator = manager.enumerator(atPath: catalogURL.path)
        while let file = enumerator?.nextObject() as? String {
          if file.hasSuffix(".md") { articles.append(catalogURL.appendingPathComponent(file)) }
        }
      }
    }
    return articles
  }

  /// Every line of the Swift files of this folder and its subfolders, normalized.
  static func testSources() throws -> [String] {
    let folder = root.appendingPathComponent("Tests/DocumentationTests")
    var lines: [String] = []
    let enumerator = FileManager.default.enumerator(atPath: folder.path)
    while let file = enumerator?.nextObject() as? String {
      guard file.hasSuffix(".swift"), file != "SnippetTests.swift" else { continue }
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      lines += normalized(text)
    }
    return lines
  }

  /// The ```swift blocks of `text`, with their common indentation removed; with
  /// `labelledOnly`, those whose nearest label line (a line starting with `**`) before them is
  /// `**Sluice**`. A heading or a `@Row` clears the label.
  static func snippets(in text: String, labelledOnly: Bool) -> [String] {
    var snippets: [String] = []
    var label = ""
    var block: (lines: [Substring], indentation: Int, isSwift: Bool)?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if let open = block {
        guard trimmed.hasPrefix("```") else {
          block?.lines.append(line)
          continue
        }
        if open.isSwift && (!labelledOnly || label == "**Sluice**") {
          let lines = open.lines.map { $0.dropFirst(min(open.indentation, leading($0))) }
          snippets.append(lines.joined(separator: "\n"))
        }
        block = nil
      } else if trimmed.hasPrefix("```") {
        // A block marked `apple-only` (view code that needs SwiftUI) is shown, not compiled.
        let info = trimmed.dropFirst(3)
        block = ([], leading(line), info.hasPrefix("swift") && !info.contains("apple-only"))
      } else if trimmed.hasPrefix("**") {
        label = trimmed
      } else if trimmed.hasPrefix("#") || trimmed.hasPrefix("@Row") {
        label = ""
      }
    }
    return snippets
  }

  static func leading(_ line: Substring) -> Int {
    line.prefix { $0 == " " }.count
  }

  /// The non-blank lines of `text`, without their leading and trailing whitespace.
  static func normalized(_ text: String) -> [String] {
    text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
      !$0.isEmpty
    }
  }

  /// Whether `needle` occurs as consecutive lines of `haystack`.
  static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
    guard let first = needle.first else { return true }
    guard needle.count <= haystack.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start] == first {
      if Array(haystack[start..<start + needle.count]) == needle { return true }
    }
    return false
  }
}
