// swift-tools-version: 6.1
// Earshot: a positional game-audio engine for Swift on Linux, on OpenAL Soft.

import PackageDescription

let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Earshot", targets: ["Earshot"]),
        .executable(name: "earshot", targets: ["earshot"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // One thin C module per system library (swift-nio style).
        .systemLibrary(
            name: "COpenAL", pkgConfig: "openal",
            providers: [.apt(["libopenal-dev"])]),
        .systemLibrary(
            name: "CSndFile", pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CVorbisFile", pkgConfig: "vorbisfile",
            providers: [.apt(["libvorbis-dev"])]),

        .target(
            name: "Earshot",
            dependencies: [
                "COpenAL", "CSndFile", "CVorbisFile",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "earshot",
            dependencies: [
                "Earshot",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .executableTarget(name: "earshot-bench", dependencies: ["Earshot"], path: "Benchmarks/EarshotBench"),

        .testTarget(
            name: "EarshotTests",
            dependencies: ["Earshot", "COpenAL", "CSndFile"]),
    ],
    swiftLanguageModes: [.v6]
)
