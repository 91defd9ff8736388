// sluice-bench: micro-benchmarks of Sluice's dispatch and observation paths.
//
//   swift run -c release --package-path Benchmarks sluice-bench [--json] [--filter S] ...
//
// See Benchmarks/README.md for what each case measures and the targets.

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

let allCases =
  DispatchCases.all + ObservationCases.all + TransactionCases.all + ReactionCases.all
  + EffectCases.all + PersistenceCases.all + YardstickCases.all + QueueCases.all
  + SharedLaneCases.all + SharedPostgresCases.all + InspectorCases.all
let lockFloorName = "floor.lock"
/// The cases whose instructions carry a budget (DESIGN.md §4, Benchmarks/README.md): the only
/// ones `--instructions` counts. The others report time and allocations.
let instructionBudgeted = [
  "floor.", "dispatch.", "select.", "keypath.", "bigstate.", "transaction.", "yardstick.",
  "inspector.",
]

let options = Options.parseOrExit()
if options.list {
  for benchCase in allCases + (options.extra ? ObservationCases.extra + DispatchCases.extra : []) {
    print(benchCase.name)
  }
  exit(0)
}

let candidates = allCases + (options.extra ? ObservationCases.extra + DispatchCases.extra : [])
// A filter that names a case exactly selects only that case ("dispatch.observers1" would
// otherwise also select "dispatch.observers100"); any other filter is a substring match.
var selected = candidates.filter { benchCase in
  guard let filter = options.filter else { return true }
  if candidates.contains(where: { $0.name == filter }) { return benchCase.name == filter }
  return benchCase.name.contains(filter)
}
if selected.isEmpty {
  printError("sluice-bench: no case matches '\(options.filter ?? "")'; see --list")
  exit(2)
}
// The ratios need the lock floor; keep it unless only profiling one loop.
if !options.once, !selected.contains(where: { $0.name == lockFloorName }),
  let floor = allCases.first(where: { $0.name == lockFloorName })
{
  selected.insert(floor, at: 0)
}

// Cases that cannot run here (PostgreSQL not installed) are skipped with a note.
selected = selected.filter { benchCase in
  guard let reason = benchCase.unavailable?() else { return true }
  printError("note: skipping \(benchCase.name): \(reason)")
  return false
}

if !AllocationCounter.isReliable {
  printError("note: allocation counting is unavailable here; allocs/op is reported as null")
}

var measurements: [Measurement] = []
for benchCase in selected {
  if !options.json { printError("running \(benchCase.name)…") }
  measurements.append(Harness.measure(benchCase, options: options))
}

if let floor = measurements.first(where: { $0.name == lockFloorName }), floor.nsPerOp > 0 {
  for index in measurements.indices {
    measurements[index].ratioToLockFloor = measurements[index].nsPerOp / floor.nsPerOp
  }
}

if options.instructions, !options.once, let counter = InstructionCounter.make(extra: options.extra)
{
  for index in measurements.indices {
    let name = measurements[index].name
    // Custom cases measure a rate or memory, not a loop of operations.
    guard allCases.first(where: { $0.name == name })?.custom == nil,
      instructionBudgeted.contains(where: { name.hasPrefix($0) })
    else { continue }
    if !options.json { printError("counting instructions of \(name)…") }
    measurements[index].instructionsPerOp = counter.perOperation(
      of: name, nsPerOp: measurements[index].nsPerOp)
  }
  counter.cleanUp()
}

if options.json {
  print(Report.json(measurements, counted: options.instructions))
} else {
  print(Report.table(measurements))
}
