#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes a line to standard error (progress and warnings never go to stdout, which carries
/// the JSON in `--json` mode).
func printError(_ message: String) {
  var line = message + "\n"
  line.withUTF8 { bytes in
    var offset = 0
    while offset < bytes.count {
      let written = write(2, bytes.baseAddress! + offset, bytes.count - offset)
      if written <= 0 { return }
      offset += written
    }
  }
}

/// `value` with exactly `decimals` digits after the point (no Foundation needed).
func formatFixed(_ value: Double, decimals: Int) -> String {
  guard value.isFinite else { return "nan" }
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let scaled = (abs(value) * scale).rounded()
  let whole = Int(scaled / scale)
  let fraction = Int(scaled - Double(whole) * scale)
  let sign = value < 0 && scaled != 0 ? "-" : ""
  guard decimals > 0 else { return "\(sign)\(whole)" }
  var digits = String(fraction)
  while digits.count < decimals { digits = "0" + digits }
  return "\(sign)\(whole).\(digits)"
}

func padLeft(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

func padRight(_ text: String, _ width: Int) -> String {
  text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

enum Report {
  static func table(_ measurements: [Measurement]) -> String {
    let nameWidth = max(4, measurements.map(\.name.count).max() ?? 0)
    var lines: [String] = []
    lines.append(
      padRight("name", nameWidth) + "  " + padLeft("ns/op", 12) + "  "
        + padLeft("x floor.lock", 12) + "  " + padLeft("allocs/op", 10) + "  "
        + padLeft("iterations", 10))
    lines.append(String(repeating: "-", count: nameWidth + 2 + 12 + 2 + 12 + 2 + 10 + 2 + 10))
    for measurement in measurements {
      let ratio = measurement.ratioToLockFloor.map { formatFixed($0, decimals: 2) } ?? "-"
      let allocs = measurement.allocsPerOp.map { formatFixed($0, decimals: 2) } ?? "n/a"
      lines.append(
        padRight(measurement.name, nameWidth) + "  "
          + padLeft(formatFixed(measurement.nsPerOp, decimals: 2), 12) + "  "
          + padLeft(ratio, 12) + "  " + padLeft(allocs, 10) + "  "
          + padLeft(String(measurement.iterations), 10))
      if let instructions = measurement.instructionsPerOp {
        lines.append("    instructions_per_op: \(formatFixed(instructions, decimals: 1))")
      }
      for metric in measurement.metrics {
        lines.append("    \(metric.name): \(formatFixed(metric.value, decimals: 2))")
      }
    }
    return lines.joined(separator: "\n")
  }

  /// `{"cases":[{"name":…,"ns_per_op":…,"ratio_to_lock_floor":…,"allocs_per_op":…}]}`, with
  /// `instructions_per_op` when counted.
  /// - Parameter counted: Whether instructions were counted (`--instructions`): each row then
  ///   has `instructions_per_op`, `null` where it could not be counted.
  static func json(_ measurements: [Measurement], counted: Bool = false) -> String {
    let cases = measurements.map { measurement in
      let ratio = measurement.ratioToLockFloor.map { formatFixed($0, decimals: 4) } ?? "null"
      let allocs = measurement.allocsPerOp.map { formatFixed($0, decimals: 4) } ?? "null"
      let metrics = measurement.metrics.map { metric in
        ",\(jsonString(metric.name)):\(formatFixed(metric.value, decimals: 3))"
      }.joined()
      let instructions = measurement.instructionsPerOp.map { formatFixed($0, decimals: 1) }
      return "{\"name\":\(jsonString(measurement.name)),"
        + "\"ns_per_op\":\(formatFixed(measurement.nsPerOp, decimals: 3)),"
        + "\"ratio_to_lock_floor\":\(ratio),"
        + "\"allocs_per_op\":\(allocs)"
        + (counted ? ",\"instructions_per_op\":\(instructions ?? "null")" : "") + "\(metrics)}"
    }
    return "{\"cases\":[" + cases.joined(separator: ",") + "]}"
  }

  private static func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }
}
