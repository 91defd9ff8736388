// swift-tools-version: 6.2
import PackageDescription

// Benchmarks for Sluice, kept in their own package so the library's manifest stays free of
// benchmark-only targets. Run from the repository root:
//
//   swift run -c release --package-path Benchmarks sluice-bench
//   swift run -c release --package-path Benchmarks sluice-bench --json
/// `SLUICE_CORE_ONLY=1`, as in the library's manifest: without the inspector's and PostgreSQL's
/// cases (`inspector.attached`, `shared.postgres.*`), so that a release build of SwiftNIO,
/// BoringSSL and Hummingbird is not needed. CI's benchmark step uses it.
let coreOnly = Context.environment["SLUICE_CORE_ONLY"] == "1"

let package = Package(
  name: "SluiceBenchmarks",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .executable(name: "sluice-bench", targets: ["SluiceBench"])
  ],
  dependencies: [
    .package(name: "Sluice", path: ".."),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
  ],
  targets: [
    // Counts calls to malloc and friends by defining them in the executable (glibc only; on other
    // platforms the counter reports itself unavailable and allocs_per_op is null).
    .target(name: "CAllocCounter"),
    .executableTarget(
      name: "SluiceBench",
      dependencies: [
        .product(name: "Sluice", package: "Sluice"),
        .product(name: "SluiceSQLite", package: "Sluice"),
        "CAllocCounter",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
        + (coreOnly
          ? []
          : [
            // The shared.postgres.* cases; their server is started with initdb and pg_ctl.
            .product(name: "SluicePostgres", package: "Sluice"),
            // inspector.attached.
            .product(name: "SluiceInspector", package: "Sluice"),
          ]),
      swiftSettings: coreOnly ? [] : [.define("SLUICE_NETWORK_CASES")]),
  ],
  swiftLanguageModes: [.v6]
)
