import Foundation
import SluiceTesting
import Testing

@testable import Sluice

@Suite struct JSONFileStorageTests {
  @Test func eachKeyIsOneFileNamedAfterIt() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      #expect(storage.directory == folder)
      #expect(
        storage.fileURL(for: "Fx.space.name") == folder.appendingPathComponent("Fx.space.name.json")
      )
      try storage.write([pstRecord("Fx.space.name", version: 2, json: #"{"value":1}"#)])
      #expect(pstFiles(in: folder) == ["Fx.space.name.json"])
    }
  }

  @Test func aRecordRoundTrips() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      let date = Date(timeIntervalSince1970: 1_700_000_000.25)
      let data = pstJSON(PstNote(title: "t", tags: ["a", "b"]))
      try storage.write([
        PersistedRecord(key: "sluice.note", version: 3, data: data, updatedAt: date)
      ])
      let record = try #require(try storage.read("sluice.note"))
      #expect(record.key == "sluice.note")
      #expect(record.version == 3)
      #expect(pstDecode(PstNote.self, record) == PstNote(title: "t", tags: ["a", "b"]))
      #expect(abs(record.updatedAt.timeIntervalSince(date)) < 0.001)
      #expect(try storage.read("sluice.missing") == nil)
    }
  }

  @Test func theFileIsASelfDescribingJSONEnvelope() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      try storage.write([pstRecord("sluice.counter", version: 2, json: #"{"value":7}"#)])
      let object = try #require(
        pstObject(try Data(contentsOf: storage.fileURL(for: "sluice.counter"))))
      #expect(Set(object.keys) == ["key", "version", "updatedAt", "state"])
      #expect(object["key"] as? String == "sluice.counter")
      #expect((object["version"] as? NSNumber)?.intValue == 2)
      #expect((object["state"] as? [String: Any])?["value"] as? Int == 7)
    }
  }

  @Test func aMissingFolderIsMadeOnTheFirstWrite() async throws {
    try await withPstFolder { folder in
      let nested = folder.appendingPathComponent("a/b/c", isDirectory: true)
      let storage = JSONFileStorage(directory: nested)
      #expect(try storage.read("sluice.counter") == nil)
      try storage.write([pstRecord("sluice.counter", version: 1, json: #"{"value":1}"#)])
      #expect(pstFiles(in: nested) == ["sluice.counter.json"])
    }
  }

  @Test func aWriteReplacesTheFileAndLeavesNoTemporaryFile() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      for value in 0..<20 {
        try storage.write([pstRecord("sluice.counter", version: 1, json: #"{"value":\#(value)}"#)])
      }
      #expect(pstFiles(in: folder) == ["sluice.counter.json"])
      let record = try #require(try storage.read("sluice.counter"))
      #expect((pstObject(record.data)?["value"] as? Int) == 19)
    }
  }

  @Test func aWriteNeverLeavesAHalfWrittenFile() async throws {
    // The old file stays whole until the new one replaces it: a reader sees one or the other.
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      let big = String(repeating: "x", count: 1 << 20)
      try storage.write([pstRecord("sluice.big", version: 1, json: #"{"text":"old"}"#)])
      let file = storage.fileURL(for: "sluice.big")
      let oldBytes = try Data(contentsOf: file)
      try storage.write([pstRecord("sluice.big", version: 1, json: #"{"text":"\#(big)"}"#)])
      let newBytes = try Data(contentsOf: file)
      #expect(newBytes.count > 1 << 20)
      #expect(newBytes != oldBytes)
      #expect(pstObject(newBytes) != nil)
    }
  }

  @Test func severalRecordsAreWrittenTogether() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      try storage.write([
        pstRecord("sluice.a", version: 1, json: #"{"value":1}"#),
        pstRecord("sluice.b", version: 1, json: #"{"value":2}"#),
      ])
      #expect(pstFiles(in: folder) == ["sluice.a.json", "sluice.b.json"])
    }
  }

  @Test func aTruncatedFileReadsAsCorruptWithItsBytes() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      try storage.write([pstRecord("sluice.counter", version: 1, json: #"{"value":1}"#)])
      let file = storage.fileURL(for: "sluice.counter")
      let truncated = try Data(contentsOf: file).dropLast(3)
      try Data(truncated).write(to: file)
      #expect {
        try storage.read("sluice.counter")
      } throws: { error in
        (error as? PersistenceError)?.pstCorruptBytes == Data(truncated)
      }
    }
  }

  @Test func aQuarantineNeverOverwritesAnything() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      var keys: [String] = []
      for index in 0..<5 {
        keys.append(
          try storage.quarantine(Data("bad \(index)".utf8), of: "sluice.c", reason: "test"))
      }
      #expect(Set(keys).count == 5)
      for (index, key) in keys.enumerated() {
        #expect(key.hasPrefix("sluice.c.quarantine."))
        #expect(try Data(contentsOf: storage.fileURL(for: key)) == Data("bad \(index)".utf8))
      }
    }
  }

  @Test func aWriteThroughARegularFileThrows() async throws {
    try await withPstFolder { folder in
      let blocker = folder.appendingPathComponent("file.txt")
      try Data("x".utf8).write(to: blocker)
      let storage = JSONFileStorage(directory: blocker.appendingPathComponent("sub"))
      #expect(throws: (any Error).self) {
        try storage.write([pstRecord("sluice.counter", version: 1, json: #"{"value":1}"#)])
      }
      #expect(try storage.read("sluice.counter") == nil)
    }
  }

  @Test func aKeyWhoseFileNameFitsCanBeWritten() async throws {
    try await withPstFolder { folder in
      let storage = JSONFileStorage(directory: folder)
      let key = "sluice." + String(repeating: "k", count: 230)  // a 242-character file name
      #expect(storage.fileURL(for: key).lastPathComponent.utf8.count <= 255)
      try storage.write([pstRecord(key, version: 1, json: #"{"value":1}"#)])
      #expect(try storage.read(key)?.version == 1)
    }
  }
}
