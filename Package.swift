// swift-tools-version: 6.1
// Earshot: a positional game-audio engine for Swift on Linux, on OpenAL Soft.

import PackageDescription

let package = Package(
    name: "Earshot",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Earshot", targets: ["Earshot"]),
        .library(name: "EarshotContent", targets: ["EarshotContent"]),
        .library(name: "EarshotScenes", targets: ["EarshotScenes"]),
        // Designer banks: a game opts in; one that does not compiles no YAML.
        .library(name: "EarshotBanks", targets: ["EarshotBanks"]),
        .executable(name: "earshot", targets: ["earshot"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // `make docs`: the DocC catalogs of Earshot, EarshotContent, EarshotScenes and EarshotBanks.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.0"),
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
        // The session bus (MPRIS players) for the audio session's secondary-audio hint.
        .systemLibrary(
            name: "CDBus", pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]),
        // PulseAudio server events in-process, for following the default output (no child
        // process). Debian package libpulse-dev. No pkgConfig: libpulse.pc's cflags are
        // `-D_REENTRANT -pthread`, which SwiftPM refuses with a warning on every build; the
        // header and the library are on the default paths.
        .systemLibrary(name: "CPulse"),
        // ITU-R BS.1770-4 / EBU R128 loudness and true peak (libebur128, what ffmpeg's meter agrees
        // with), for Sources/Earshot/Loudness.
        .systemLibrary(
            name: "CEbur128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]),

        // Makes libsndfile's libmpg123 handles quiet (MPG123_QUIET): libmpg123 otherwise prints
        // notes on damaged MP3s to the process's stderr (see quiet_mpg123.c).
        .target(name: "CQuietMPG123", linkerSettings: [.linkedLibrary("dl")]),
        // The Linux session plumbing, below the engine: the session D-Bus (MPRIS players) and the
        // PulseAudio server's events (the default sink), as plain Swift types that know nothing of
        // Earshot. Earshot depends on it and adapts it to its own protocols (SecondaryAudioHintSource,
        // DefaultOutputSource), so a game that imports only Earshot gets both, and the engine's
        // policy (Sources/Earshot/Session) reads without D-Bus or libpulse. Not a product: a game
        // supplies another platform's feeds through those protocols, not through this target.
        .target(
            name: "EarshotLinux",
            dependencies: ["CDBus", "CPulse", "CCloseOnExec", .product(name: "Logging", package: "swift-log")]),
        // accept4 and pipe2 with close-on-exec set atomically (Swift's Glibc module lacks them).
        .target(name: "CCloseOnExec"),
        .target(
            name: "Earshot",
            dependencies: [
                "COpenAL", "CSndFile", "CVorbisFile", "CQuietMPG123", "CEbur128", "EarshotLinux",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The content layer scenes and banks share: their YAML read into typed definitions that
        // carry their file and line (includes, limits, warnings), and the one conversion of those
        // definitions into engine objects.
        .target(
            name: "EarshotContent",
            dependencies: ["Earshot", .product(name: "Yams", package: "Yams")]),
        // Scene scripts: the timeline run offline (render) or live (play), and level plots.
        .target(name: "EarshotScenes", dependencies: ["Earshot", "EarshotContent"]),
        // Designer banks: YAML files of sounds, snapshots, music and zones a game plays by name,
        // reloaded live.
        .target(name: "EarshotBanks", dependencies: ["Earshot", "EarshotContent", "EarshotLinux"]),
        // The `earshot stress` workload (engine against raw OpenAL) and the voices-per-core search,
        // as a typed API. Not a product: a game has no use for it; the CLI and the tests use it.
        // It does not link CAllocCounter: it counts allocations through the counter it is handed.
        .target(name: "EarshotStress", dependencies: ["Earshot", "COpenAL"]),
        // Counts the process's heap allocations for `earshot stress`. Executable only: its malloc
        // replaces the allocator of whatever binary links it, so it is linked into the binary
        // that runs the workload and into nothing else (not EarshotStress, not the tests).
        .target(name: "CAllocCounter"),
        // The files one CLI command writes, committed together and only on success (a render and
        // its plot, an audition's WAV): the CLI's, not the engine's — a game's outputs are single
        // files, which AudioFileWriter commits itself through the engine's PartialFile. Scenes
        // hand their renders to it through the engine's OutputStaging protocol.
        .target(name: "EarshotOutputs", dependencies: ["Earshot"]),
        .executableTarget(
            name: "earshot",
            dependencies: [
                "Earshot", "EarshotScenes", "EarshotOutputs", "EarshotBanks", "EarshotStress", "CAllocCounter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // Demos: short executables that run headless (render to out/NAME.wav) or live.
        .executableTarget(name: "Orbit", dependencies: ["Earshot"], path: "Demos/Orbit"),
        .executableTarget(name: "Crowd", dependencies: ["Earshot"], path: "Demos/Crowd"),
        .executableTarget(name: "Ducking", dependencies: ["Earshot"], path: "Demos/Ducking"),
        .executableTarget(name: "Footsteps", dependencies: ["Earshot"], path: "Demos/Footsteps"),
        .executableTarget(name: "Beat", dependencies: ["Earshot"], path: "Demos/Beat"),
        // The README's "Use Earshot in your game" program (DemoTests checks they are the same text).
        .executableTarget(name: "Minimal", dependencies: ["Earshot"], path: "Demos/Minimal"),
        .executableTarget(name: "Mix", dependencies: ["Earshot"], path: "Demos/Mix"),
        // The README's async start-up (`@main` with `async main()`); AsyncGameDemoTests checks
        // they are the same text and runs it.
        .executableTarget(name: "AsyncGame", dependencies: ["Earshot"], path: "Demos/AsyncGame"),
        // Footsteps, a car and a pause snapshot from one designer bank.
        .executableTarget(name: "Bank", dependencies: ["Earshot", "EarshotBanks"], path: "Demos/Bank", exclude: ["game.yaml"]),

        // `make bench`: clips (IMA4 decode, preload) and music streaming against their baselines.
        .executableTarget(name: "earshot-bench", dependencies: ["Earshot", "EarshotScenes", "CVorbisFile", "EarshotMeasure", "CAllocCounter"],
                          path: "Benchmarks/EarshotBench"),

        // Signal measurements the tests and the benchmarks share (RMS and dB, tone frequency, distortion).
        .target(name: "EarshotMeasure", path: "Tests/EarshotMeasure"),

        // A game in miniature that LiveLifetimeTests runs as a process against a private PulseAudio
        // daemon (live engines from tasks, exits without shutdown, shutdown racing recovery).
        .executableTarget(name: "LifetimeProbe", dependencies: ["Earshot"], path: "Tests/LifetimeProbe"),
        // Scheduled plays on a live device, run by LiveSchedulingTests against a private daemon.
        .executableTarget(name: "TimeProbe", dependencies: ["Earshot", "COpenAL"], path: "Tests/TimeProbe"),
        // A music set changing state on a live device, run by LiveMusicSetTests against a private daemon.
        .executableTarget(name: "MusicProbe", dependencies: ["Earshot"], path: "Tests/MusicProbe"),
        // A game with its monitor on, watched by MonitorCLITests through `earshot monitor PID`.
        .executableTarget(name: "MonitorProbe", dependencies: ["Earshot", "EarshotBanks"], path: "Tests/MonitorProbe"),
        // The hostile MPRIS peer MPRISHostilePeerTests starts on its private bus (the watcher ignores
        // players of its own process, so the peer is another process).
        .executableTarget(name: "HostilePeerProbe", dependencies: ["EarshotLinux"], path: "Tests/HostilePeerProbe"),

        // Helpers the test targets share (running the built CLI and demos as processes).
        .target(name: "EarshotTestSupport", path: "Tests/EarshotTestSupport"),
        .testTarget(
            name: "EarshotTests",
            // The CLI and demos are run as processes; `make test` builds them first (`swift build`).
            // (Depending on the `earshot` executable would link its malloc counter into the tests.)
            // EarshotLinux: the D-Bus connection and the PulseAudio watcher are tested directly too
            // (Tests/EarshotTests/Linux).
            dependencies: ["Earshot", "EarshotLinux", "EarshotOutputs", "COpenAL", "CSndFile", "EarshotTestSupport", "EarshotMeasure",
                           .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "EarshotStressTests",
            // The workload called directly (no process, no malloc interposer).
            dependencies: ["EarshotStress", "Earshot"]),
        .testTarget(
            name: "EarshotScenesTests",
            // Runs the CLI and the demos as processes (built by `make test`'s `swift build`).
            dependencies: ["EarshotScenes", "EarshotContent", "Earshot", "CSndFile", "EarshotTestSupport", "EarshotMeasure"]),

        // Issue 24's structured fuzzers (scene values, API operations): a library the bounded
        // test runs and the long-run executable (`make fuzz-values`) share.
        .target(name: "EarshotFuzzing", dependencies: ["Earshot", "EarshotScenes", "EarshotBanks"], path: "Tests/Fuzz/Generators"),
        .executableTarget(name: "earshot-fuzz", dependencies: ["EarshotFuzzing"], path: "Tests/Fuzz/EarshotFuzz"),
        .testTarget(
            name: "EarshotBanksTests",
            // Banks on loopback engines (measured output) and the CLI's bank commands as processes.
            dependencies: ["EarshotBanks", "EarshotScenes", "Earshot", "EarshotTestSupport", "EarshotMeasure"]),
        .testTarget(name: "EarshotFuzzTests", dependencies: ["EarshotFuzzing", "Earshot", "EarshotTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` only: the scene parser's libFuzzer harness, built with -sanitize=fuzzer (libFuzzer
// provides main) in a scratch folder of its own. Not part of normal builds.
if Context.environment["EARSHOT_FUZZ"] != nil {
    package.targets.append(.executableTarget(name: "SceneFuzz", dependencies: ["EarshotScenes"], path: "Tests/Fuzz/SceneFuzz"))
    package.products.append(.executable(name: "SceneFuzz", targets: ["SceneFuzz"]))
    // The bank parser's: bank text, includes read from the scratch folder.
    package.targets.append(.executableTarget(name: "BankFuzz", dependencies: ["EarshotScenes"], path: "Tests/Fuzz/BankFuzz"))
    package.products.append(.executable(name: "BankFuzz", targets: ["BankFuzz"]))
}
