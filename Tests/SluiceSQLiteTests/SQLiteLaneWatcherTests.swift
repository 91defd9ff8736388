import Foundation
import SluiceTestSupport
import Synchronization
import Testing

@testable import SluiceSQLite

/// The thread that watches an SQLite log's file for an engine (`SQLiteLaneWatcher`) ends once
/// the engine lets the watcher go, whether its watch on the file was in place or not yet.
@Suite struct SQLiteLaneWatcherTests {
  @Test func theThreadOfAReleasedWatcherEnds() async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let watchers = 20
    let left = Mutex(watchers)
    let (allEnded, ended) = AsyncStream<Void>.makeStream()
    for index in 0..<watchers {
      // The thread looks at the heads once its watch is in place.
      let (looked, look) = AsyncStream<Void>.makeStream()
      let watcher = SQLiteLaneWatcher(
        path: folder.path("log.sqlite"),
        heads: { _ in
          look.yield()
          return [:]
        },
        ended: {
          if left.withLock({ left in
            left -= 1
            return left
          }) == 0 {
            ended.yield()
          }
        })
      let wait = watcher.register(lane: "a", after: 0)
      // Every other watcher goes once its thread watches the file, the others at once.
      if index.isMultiple(of: 2) {
        #expect(await sqlFirst(of: looked) != nil, "watcher \(index) never looked")
      }
      watcher.finish(wait)
    }
    #expect(await sqlFirst(of: allEnded) != nil, "\(left.withLock { $0 }) threads still run")
  }
}
