@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// A library is quiet unless asked (issue 13, item 15): Earshot logs at `.warning` by default,
/// keeps OpenAL Soft's and ALSA's own stderr lines out of the way, and its errors speak of library
/// calls while the CLI adds the CLI's advice. Run against the built executables, on this machine
/// (no sound card: OpenAL's ALSA backend fails for real).
final class QuietLibraryTests: XCTestCase {
    private func requireNoSoundCard() throws {
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        try XCTSkipIf(cards.contains("["), "this machine has a sound card: \(cards)")
        try XCTSkipIf(ProcessInfo.processInfo.environment["ALSOFT_LOGLEVEL"] != nil, "ALSOFT_LOGLEVEL is set for the tests")
    }

    /// `make demo`'s live step on a machine without a sound card: one clear line on stderr (it
    /// was nine ALSA/OpenAL lines and then Earshot's).
    func testLiveSceneWithoutADevicePrintsOneLine() throws {
        try requireNoSoundCard()
        let r = try CLIRunner.run("earshot", ["play", "Demos/Scenes/showcase.yaml"])
        XCTAssertEqual(r.status, 1)
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertEqual(r.stderr, "earshot: no audio output device (use --out FILE.wav to render offline)\n")
    }

    /// Asked for (`EARSHOT_LOG=debug`), the ALSA lines come back as Earshot's debug log.
    func testDebugLevelShowsTheALSAMessages() throws {
        try requireNoSoundCard()
        let r = try CLIRunner.run("earshot", ["play", "Demos/Scenes/showcase.yaml"],
                                  environment: ["EARSHOT_LOG": "debug", "ALSOFT_DRIVERS": "alsa"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("debug earshot.alsa: [Earshot] ALSA lib "), r.stderr)
        XCTAssertFalse(r.stderr.split(separator: "\n").contains { $0.hasPrefix("ALSA lib") }, "not printed raw")
    }

    /// A user who sets `ALSOFT_LOGLEVEL` gets OpenAL Soft's own messages as configured.
    func testUserSetLogLevelIsHonoured() throws {
        try requireNoSoundCard()
        let r = try CLIRunner.run("earshot", ["play", "Demos/Scenes/showcase.yaml"],
                                  environment: ["ALSOFT_LOGLEVEL": "1", "ALSOFT_DRIVERS": "alsa"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("AL lib: (EE)"), r.stderr)
    }

    /// A program on the library that never configured logging (the Orbit demo renders offline and
    /// lists nothing) prints only its own line: no engine-start info, no ALSA or OpenAL lines.
    func testLibraryUserSeesOnlyItsOwnOutput() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("quiet-orbit-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try CLIRunner.run("Orbit", [out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "nothing on stderr")
        XCTAssertEqual(r.stdout, "Orbit: wrote \(out.path)\n")
    }

    /// The library's errors name library calls; the CLI's name its flags.
    func testErrorsSpeakOfLibraryCalls() {
        let none = EarshotError.noOutputDevice(detail: "").description
        XCTAssertFalse(none.contains("--"), none)
        XCTAssertTrue(none.contains("Output.loopback"), none)
        let unknown = EarshotError.deviceNotFound(name: "x").description
        XCTAssertFalse(unknown.contains("earshot devices"), unknown)
        XCTAssertTrue(unknown.contains("OutputDevice.playbackDeviceNames()"), unknown)
        XCTAssertEqual(EarshotLogging.level, .warning, "quiet unless asked")
        XCTAssertEqual(EarshotLogging.logger("earshot.test").logLevel, .warning)
    }
}
