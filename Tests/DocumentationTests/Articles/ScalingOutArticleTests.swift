#if canImport(SluicePostgres)
  import Sluice
  import SluicePostgres
  import Testing

  // The Swift snippet of Sources/SluicePostgres/SluicePostgres.docc/ScalingOut.md, compiled
  // and run: engines are made without connecting, so no server is needed.

  @Suite struct ScalingOutArticleTests {
    @Test func lanesAreRoutedToServersByNameEvenlyAndTheSameInEveryProcess() async throws {
      let actions = SharedActions().register(AddNote.self, as: "note")
      /// The servers, by names that never change: a lane's server depends on the names, not on their
      /// order in this list.
      let servers: [(name: String, engine: PostgresLogEngine)] = try ["pg-a", "pg-b", "pg-c"].map {
        let url = "postgres://app@\($0).internal/sluice?sslmode=verify-full"
        return ($0, PostgresLogEngine(configuration: try .init(url: url)))
      }

      /// The engine of `lane`'s server: the server whose score for the lane is highest.
      func engine(for lane: String) -> PostgresLogEngine {
        var best = servers[0]
        for server in servers.dropFirst()
        where score(server.name, lane) > score(best.name, lane) {
          best = server
        }
        return best.engine
      }

      /// FNV-1a over the two names, then MurmurHash3's finalizer, which spreads the scores evenly
      /// (without it, 3 servers got 43 %, 37 % and 20 % of 3,000 lanes `room-0`…`room-2999`; with it,
      /// a third each). Not Swift's `Hasher`: it is seeded anew in every process, so two processes
      /// would route one lane to two servers.
      func score(_ server: String, _ lane: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in server.utf8 + [0] + lane.utf8 {
          hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 33)) &* 0xff51_afd7_ed55_8ccd
        hash = (hash ^ (hash >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        return hash ^ (hash >> 33)
      }

      let room = try SharedLane(engine: engine(for: "room-42"), lane: "room-42", actions: actions)

      #expect(room.lane == "room-42")
      // The same lane always goes to the same server; the servers share the lanes evenly.
      #expect(engine(for: "room-42") === engine(for: "room-42"))
      var lanes: [String: Int] = [:]
      for index in 0..<3_000 {
        let name = servers.first { $0.engine === engine(for: "room-\(index)") }?.name ?? "none"
        lanes[name, default: 0] += 1
      }
      #expect(lanes.keys.sorted() == ["pg-a", "pg-b", "pg-c"])
      #expect(lanes.values.allSatisfy { (800...1_200).contains($0) }, "\(lanes)")
      // Scores are fixed numbers, not a per-process seed: this one is FNV-1a and the
      // finalizer, computed by hand (Python).
      #expect(score("", "") == 0xb903_4ad3_7056_f5fb)
      for (_, engine) in servers { await engine.close() }
    }
  }
#endif
