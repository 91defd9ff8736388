// swift-tools-version: 6.2
import PackageDescription

/// The network modules (`SluicePostgres` and `SluiceInspector`) build SwiftNIO, BoringSSL and
/// Hummingbird, which make up most of a cold build. `SLUICE_CORE_ONLY=1` leaves them, their tests
/// and their packages out of the manifest: CI's thread-sanitizer step uses it, since none of the
/// concurrency suites it runs touches the network modules.
let coreOnly = Context.environment["SLUICE_CORE_ONLY"] == "1"

/// `dependencies`, or nothing when the manifest is core-only.
func network<T>(_ elements: [T]) -> [T] { coreOnly ? [] : elements }

let package = Package(
  name: "Sluice",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Sluice", targets: ["Sluice"]),
    .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
    .library(name: "SluiceSQLite", targets: ["SluiceSQLite"]),
    .library(name: "SluiceLogging", targets: ["SluiceLogging"]),
    .executable(name: "sluice-demo", targets: ["SluiceDemo"]),
  ]
    + network([
      .library(name: "SluicePostgres", targets: ["SluicePostgres"]),
      .library(name: "SluiceInspector", targets: ["SluiceInspector"]),
    ]),
  // The demo's commands that need the network modules. Both are off by default, so that
  // `swift run sluice-demo` builds only the core, SQLite and ArgumentParser.
  traits: [
    .trait(
      name: "Postgres",
      description: "sluice-demo todo --postgres URL (builds postgres-nio and SwiftNIO)."),
    .trait(
      name: "Inspector",
      description: "sluice-demo inspect, the web inspector (builds Hummingbird and SwiftNIO)."),
    .default(enabledTraits: []),
  ],
  dependencies: [
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
  ]
    + network([
      .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
      .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
      .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
      .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ]),
  targets: [
    .target(name: "CSluiceSupport"),
    .target(name: "Sluice", dependencies: ["CSluiceSupport"]),
    .target(
      name: "SluiceTesting",
      dependencies: [
        "Sluice", .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    .target(
      name: "SluiceSQLite",
      dependencies: ["Sluice", .product(name: "GRDB", package: "GRDB.swift")]),
    .target(
      name: "SluiceLogging",
      dependencies: ["Sluice", .product(name: "Logging", package: "swift-log")]),
    .executableTarget(
      name: "SluiceDemo",
      dependencies: [
        "Sluice", "SluiceSQLite",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
        + network([
          .target(name: "SluicePostgres", condition: .when(traits: ["Postgres"])),
          .target(name: "SluiceInspector", condition: .when(traits: ["Inspector"])),
        ])),
    .testTarget(
      name: "SluiceTests",
      dependencies: [
        "Sluice", "SluiceTesting", "SluiceTestSupport",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    .testTarget(
      name: "SluiceTestingTests",
      dependencies: [
        "Sluice", "SluiceTesting", "SluiceTestSupport",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    .target(name: "SluiceTestSupport", dependencies: ["Sluice"], path: "Tests/SluiceTestSupport"),
    // The child processes of the crash, outbox and shared-lane tests: a test tool, not a product.
    .executableTarget(
      name: "SluiceCrashProbe",
      dependencies: [
        "Sluice", "SluiceSQLite",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ] + network(["SluicePostgres"]),
      path: "Tests/SluiceCrashProbe"),
    // Opens pseudo-terminals for the demo's tests: glibc hides posix_openpt and friends from Swift.
    .target(name: "CPseudoTerminal", path: "Tests/CPseudoTerminal"),
    .testTarget(
      name: "SluiceSQLiteTests",
      dependencies: [
        "Sluice", "SluiceSQLite", "SluiceTesting", "SluiceTestSupport",
        .product(name: "Clocks", package: "swift-clocks"),
      ]),
    .testTarget(
      name: "SluiceDemoTests",
      dependencies: [
        "Sluice", "SluiceSQLite", "SluiceDemo", "SluiceTestSupport", "SluiceTesting",
        "CPseudoTerminal", .product(name: "GRDB", package: "GRDB.swift"),
      ]
        + network([
          .target(name: "SluicePostgresTestSupport", condition: .when(traits: ["Postgres"])),
          .target(name: "SluiceInspector", condition: .when(traits: ["Inspector"])),
        ])),
    .testTarget(
      name: "SluiceLoggingTests",
      dependencies: ["Sluice", "SluiceLogging", .product(name: "Logging", package: "swift-log")]),
    .testTarget(
      name: "DocumentationTests",
      dependencies: [
        "Sluice", "SluiceSQLite", "SluiceTesting", "SluiceLogging", "SluiceTestSupport",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ] + network(["SluiceInspector", "SluicePostgres"])),
  ]
    + network([
      // The shared lane across machines. PostgresNIO (and SwiftNIO under it) stays out of every
      // other module: it adds minutes to a cold build.
      .target(
        name: "SluicePostgres",
        dependencies: [
          "Sluice", .product(name: "PostgresNIO", package: "postgres-nio"),
          .product(name: "Logging", package: "swift-log"),
        ]),
      // The web inspector. Hummingbird (and SwiftNIO under it) stays out of the core.
      .target(
        name: "SluiceInspector",
        dependencies: [
          "Sluice", .product(name: "Hummingbird", package: "hummingbird"),
          .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
          .product(name: "Logging", package: "swift-log"),
          .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        resources: [.copy("Page")]),
      // Throwaway PostgreSQL servers for the tests (initdb and pg_ctl in a temporary folder).
      .target(
        name: "SluicePostgresTestSupport",
        dependencies: [
          "SluicePostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
          .product(name: "Logging", package: "swift-log"),
        ],
        path: "Tests/SluicePostgresTestSupport"),
      .testTarget(
        name: "SluicePostgresTests",
        dependencies: [
          "Sluice", "SluicePostgres", "SluiceTestSupport", "SluicePostgresTestSupport",
          .product(name: "PostgresNIO", package: "postgres-nio"),
          .product(name: "Logging", package: "swift-log"),
        ]),
      .testTarget(
        name: "SluiceInspectorTests",
        dependencies: [
          "Sluice", "SluiceInspector", "SluiceTesting", "SluiceTestSupport",
          .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
          .product(name: "Logging", package: "swift-log"),
        ]),
    ]),
  swiftLanguageModes: [.v6]
)
