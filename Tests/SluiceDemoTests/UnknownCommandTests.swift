import Testing

@testable import SluiceDemo

/// Which words on the command line are unknown commands, and which are left to the parser.
@Suite("sluice-demo unknown commands")
struct UnknownCommandTests {
  @Test(
    "every command, option and argument the demo takes is known",
    arguments: [
      [], ["tour"], ["todo"], ["todo", "add", "Buy", "milk"], ["todo", "list", "--in-memory"],
      ["todo", "done", "1"], ["todo", "clear", "--all"], ["--store", "x.sqlite"], ["--help"],
      ["--version"], ["help", "todo"], ["todo", "help", "add"], ["tour", "extra"],
    ])
  func knownWordsAreLeftToTheParser(arguments: [String]) {
    #expect(UnknownCommand(in: arguments, under: SluiceDemo.self) == nil)
  }

  @Test func aWordThatNamesNoCommandIsUnknown() {
    let top = UnknownCommand(in: ["frobnicate", "now"], under: SluiceDemo.self)
    #expect(top == UnknownCommand(parents: ["sluice-demo"], word: "frobnicate"))
    #expect(top?.description == "Unknown command 'frobnicate'.")
    #expect(top?.help == "sluice-demo --help lists the commands.")
    let nested = UnknownCommand(in: ["todo", "remove", "1"], under: SluiceDemo.self)
    #expect(nested?.description == "Unknown command 'todo remove'.")
    #expect(nested?.help == "sluice-demo todo --help lists the commands.")
  }
}
