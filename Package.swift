// swift-tools-version: 6.2
import PackageDescription

let package = Package(
  name: "Sluice",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Sluice", targets: ["Sluice"]),
    .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
    .library(name: "SluiceSQLite", targets: ["SluiceSQLite"]),
    .library(name: "SluiceLogging", targets: ["SluiceLogging"]),
    .library(name: "SluicePostgres", targets: ["SluicePostgres"]),
    .library(name: "SluiceInspector", targets: ["SluiceInspector"]),
    .executable(name: "sluice-demo", targets: ["SluiceDemo"]),
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
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
  ],
  targets: [
    .target(name: "CSluiceSupport"),
    .target(name: "Sluice", dependencies: ["CSluiceSupport"]),
    .target(
      name: "SluiceTesting",
      dependencies: [
        "Sluice", .product(name: "CustomDump", package: "swift-custom-dump"),
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
    // The shared lane across machines. PostgresNIO (and SwiftNIO under it) stays out of every
    // other target: it adds minutes to a cold build.
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
      ],
      resources: [.copy("Page")]),
    .executableTarget(
      name: "SluiceDemo",
      dependencies: [
        "Sluice", "SluiceSQLite", "SluicePostgres", "SluiceInspector",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .executableTarget(
      name: "SluiceCrashProbe", dependencies: ["Sluice", "SluiceSQLite", "SluicePostgres"]),
    .testTarget(
      name: "SluiceTests",
      dependencies: [
        "Sluice", "SluiceTesting", .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    .testTarget(
      name: "SluiceTestingTests",
      dependencies: [
        "Sluice", "SluiceTesting", .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    .target(name: "SluiceTestSupport", dependencies: ["Sluice"], path: "Tests/SluiceTestSupport"),
    // Opens pseudo-terminals for the demo's tests: glibc hides posix_openpt and friends from Swift.
    .target(name: "CPseudoTerminal", path: "Tests/CPseudoTerminal"),
    .testTarget(
      name: "SluiceSQLiteTests",
      dependencies: ["Sluice", "SluiceSQLite", "SluiceTesting", "SluiceTestSupport"]),
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
      name: "SluiceDemoTests",
      dependencies: [
        "Sluice", "SluiceSQLite", "SluiceDemo", "SluiceTestSupport", "SluicePostgresTestSupport",
        "SluiceInspector", "SluiceTesting", "CPseudoTerminal",
        .product(name: "GRDB", package: "GRDB.swift"),
      ]),
    .testTarget(
      name: "SluiceInspectorTests",
      dependencies: [
        "Sluice", "SluiceInspector", "SluiceTesting",
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        .product(name: "Logging", package: "swift-log"),
      ]),
    .testTarget(
      name: "SluiceLoggingTests",
      dependencies: ["Sluice", "SluiceLogging", .product(name: "Logging", package: "swift-log")]),
    .testTarget(
      name: "DocumentationTests",
      dependencies: [
        "Sluice", "SluiceSQLite", "SluiceTesting", "SluiceLogging", "SluiceInspector",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
  ],
  swiftLanguageModes: [.v6]
)
