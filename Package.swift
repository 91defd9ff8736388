// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Sluice",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Sluice", targets: ["Sluice"]),
    .executable(name: "sluice-demo", targets: ["SluiceDemo"]),
  ],
  targets: [
    .target(name: "CSluiceSupport"),
    .target(name: "Sluice", dependencies: ["CSluiceSupport"]),
    .executableTarget(name: "SluiceDemo", dependencies: ["Sluice"]),
    .testTarget(name: "SluiceTests", dependencies: ["Sluice"]),
  ],
  swiftLanguageModes: [.v6]
)
