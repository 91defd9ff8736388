import Foundation
import Sluice

/// `queue.async1m`: the memory a queue of one million actions costs.
enum QueueCases {
  static let all: [BenchCase] = [
    BenchCase(name: "queue.async1m", make: { { _ in } }, custom: asyncMillion)
  ]

  /// How many actions the case queues.
  static let count = 1_000_000

  /// Queues one million `Increment`s with `dispatch(_:mode: .async)` while the lane is paused,
  /// then releases it and waits until they were processed. Reports the time per queued action
  /// (queueing, then draining), the peak resident memory over the process baseline
  /// (`peak_rss_mib`: Linux's high-water mark, reset before the case), and what stays resident
  /// after the drain (`rss_after_drain_mib`).
  static func asyncMillion(options: Options) -> Measurement {
    let count = options.once ? (options.iterations ?? Self.count) : Self.count
    let dispatcher = Dispatcher()
    let store = Store(
      initialState: Counter(value: 0), dispatcher: dispatcher,
      reducer: Reducer<Counter>().on(Increment.self) { state, _ in state.value += 1 })
    ResidentMemory.resetPeak()
    let baseline = ResidentMemory.current
    let lock = dispatcher.pause()
    let elapsed = Harness.time {
      for _ in 0..<count { store.dispatch(Increment(), mode: .async) }
      lock.release()
      while dispatcher.queueDepth > 0 { usleep(100) }
    }
    let peak = ResidentMemory.peak
    let after = ResidentMemory.current
    if store.state.value != count {
      printError("warning: queue.async1m: \(store.state.value) of \(count) actions were processed")
    }
    let mebibyte = 1_048_576.0
    return Measurement(
      name: "queue.async1m", nsPerOp: elapsed / Double(count), ratioToLockFloor: nil,
      allocsPerOp: nil, iterations: count, repetitions: 1,
      metrics: [
        ("peak_rss_mib", peak.map { Double(max($0 - (baseline ?? 0), 0)) / mebibyte } ?? -1),
        (
          "rss_after_drain_mib", after.map { Double(max($0 - (baseline ?? 0), 0)) / mebibyte } ?? -1
        ),
      ])
  }
}

/// The process's resident memory, from `/proc/self/status` (Linux); `nil` elsewhere.
enum ResidentMemory {
  /// Resident bytes now (`VmRSS`).
  static var current: Int? { field("VmRSS:") }
  /// The peak of resident bytes since the last reset (`VmHWM`).
  static var peak: Int? { field("VmHWM:") }

  /// Resets the peak to the current value (writing 5 to `/proc/self/clear_refs`).
  static func resetPeak() {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
    try? handle.write(contentsOf: Data("5".utf8))
    try? handle.close()
  }

  private static func field(_ name: String) -> Int? {
    // Read through a file handle: /proc files report a size of 0, which whole-file readers
    // take at its word.
    guard let handle = FileHandle(forReadingAtPath: "/proc/self/status"),
      let data = try? handle.readToEnd(), let status = String(data: data, encoding: .utf8)
    else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix(name) {
      let kilobytes = line.dropFirst(name.count).split(whereSeparator: \.isWhitespace).first
        .flatMap { Int($0) }
      return kilobytes.map { $0 * 1_024 }
    }
    return nil
  }
}
