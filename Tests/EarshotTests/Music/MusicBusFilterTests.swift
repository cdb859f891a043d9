@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Issue 35 item 3: a bus's filters reach streamed music as they reach voices (a snapshot's
/// low-pass on `music` used to leave a playing track's 4–8 kHz band untouched), and the bus
/// meters (`level(of:)`, the monitor's bus rows) read music (they read −144 dBFS while it
/// played). Measured on the loopback output: a file of 500 Hz + 6 kHz, the 6 kHz band before and
/// after a snapshot low-pass; a stereo tone's rendered power against the meter.
final class MusicBusFilterTests: XCTestCase {
    private var fixtures: MusicFixtures!

    override func setUpWithError() throws { fixtures = try MusicFixtures() }
    override func tearDown() { fixtures = nil }

    /// 500 Hz and 6 kHz at 0.25 each, mixed by sox (stereo files play on direct channels).
    private func twoTones(_ name: String, channels: Int = 1) throws -> String {
        let low = try fixtures.sineWAV(name + ".low.wav", frequency: 500, amplitude: 0.25, seconds: 3, channels: channels)
        let high = try fixtures.sineWAV(name + ".high.wav", frequency: 6_000, amplitude: 0.25, seconds: 3, channels: channels)
        let out = fixtures.path(name)
        try MusicFixtures.run("/usr/bin/sox", ["-m", low, high, out])
        return out
    }

    /// (6 kHz, 500 Hz) band levels in dB of the last 0.1 s rendered.
    private func bands(_ r: FrameRenderer) -> (high: Double, low: Double) {
        let start = r.frames - 4_800
        return (r.level(from: start, seconds: 0.1, frequency: 6_000), r.level(from: start, seconds: 0.1, frequency: 500))
    }

    private let lowPass = Snapshot("under", busFilters: [.music: LowPassFilter(gain: 1, gainHF: 0.01)])

    func testASnapshotLowPassOnTheMusicBusFiltersATrackAndASet() throws {
        let mono = try twoTones("mix.wav"), stereo = try twoTones("stereo.wav", channels: 2)
        for (useSet, file) in [(false, mono), (true, mono), (false, stereo)] {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            let r = FrameRenderer(engine)
            var held: AnyObject
            if useSet {
                let set = try engine.makeMusicSet(MusicSetDefinition(name: "s", states: [.init(name: "a", content: .track(.init(path: file)))]))
                try set.play(state: "a")
                held = set
            } else {
                let track = try engine.loadMusic(path: file)
                track.numberOfLoops = -1
                try track.play()
                held = track
            }
            try r.render(seconds: 0.5)
            let open = bands(r)
            try engine.begin(lowPass)
            try r.render(seconds: 0.5)   // the bus filter glides there (EnvironmentProperties.glideTime)
            let filtered = bands(r)
            print("MusicBusFilterTests (\(useSet ? "set" : "track"), \(file == stereo ? "stereo" : "mono")): 6 kHz \(open.high) → \(filtered.high) dB, 500 Hz \(open.low) → \(filtered.low) dB")
            XCTAssertLessThan(filtered.high, open.high - 10, "the 4–8 kHz band drops by 10 dB or more")
            // EFX's low-pass is a shelf from 5 kHz: at gainHF 0.01 it takes ~3 dB off 500 Hz too.
            XCTAssertEqual(filtered.low, open.low, accuracy: 4, "the low band passes")
            engine.end(lowPass)
            try r.render(seconds: 0.5)
            XCTAssertEqual(bands(r).high, open.high, accuracy: 1, "the band comes back when the snapshot ends")
            withExtendedLifetime(held) {}
        }
    }

    /// The bus's own low-pass (`setFilter(_:for:)`) reaches a track as well as a snapshot's.
    func testTheBusesOwnFilterReachesATrack() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try twoTones("own.wav"))
        track.numberOfLoops = -1
        try track.play()
        let r = FrameRenderer(engine)
        try r.render(seconds: 0.3)
        let open = bands(r)
        try engine.setFilter(LowPassFilter(gain: 1, gainHF: 0.01), for: .music)
        try r.render(seconds: 0.5)
        print("MusicBusFilterTests (bus filter): 6 kHz \(open.high) → \(bands(r).high) dB")
        XCTAssertLessThan(bands(r).high, open.high - 10)
    }

    /// The bus's effect (an echo on `music`) takes a track's send, as a voice's on the bus: a
    /// 0.1 s tone leaves echoes after it ends with the effect, nothing without.
    func testTheBusEffectTakesATracksSend() throws {
        let tone = try fixtures.sineWAV("blip.wav", frequency: 700, amplitude: 0.5, seconds: 0.1)
        func tail(echo: Bool) throws -> Double {
            let engine = try TestSignals.loopbackEngine { $0.busEffects = true }
            defer { engine.shutdown() }
            if echo { try engine.setEffect(.echo(EchoProperties(delay: 0.15, lrDelay: 0.1, damping: 0, feedback: 0.5)), level: 1, for: .music) }
            try engine.loadMusic(path: tone).play()
            let r = FrameRenderer(engine)
            try r.render(seconds: 0.6)
            return r.level(from: 14_400, seconds: 0.2, frequency: 700)   // 0.3–0.5 s: the tone ended at 0.1 s
        }
        let dry = try tail(echo: false), wet = try tail(echo: true)
        print("MusicBusFilterTests: 700 Hz after the tone: \(dry) dB dry, \(wet) dB with the music bus's echo")
        XCTAssertGreaterThan(wet, dry + 40, "the echo of the music bus repeats the track")
    }

    /// Shutting down while the device is lost, with a track sending to its bus's effect: the
    /// lost context still holds the track's stopped source, which keeps its send to the effect's
    /// slot (OpenAL Soft 1.19.1 answers the slot's delete with AL_INVALID_NAME). The teardown
    /// must not take that for a bug of the engine's (it trapped in a debug build: the API
    /// fuzzer's seed 2 did this in two runs of three).
    func testShutdownWhileLostWithATrackOnABusEffect() throws {
        let tone = try fixtures.sineWAV("lost.wav", frequency: 700, amplitude: 0.5, seconds: 1)
        let engine = try TestSignals.loopbackEngine { $0.busEffects = true }
        try engine.setEffect(.echo(EchoProperties(delay: 0.15, lrDelay: 0.1, damping: 0, feedback: 0.5)), level: 1, for: .music)
        let track = try engine.loadMusic(path: tone)
        try track.play()
        try FrameRenderer(engine).render(seconds: 0.1)
        engine.simulateDeviceLoss()
        engine.update()   // notices the loss; the rebuild would come at a later update
        XCTAssertTrue(engine.isDeviceLost)
        engine.shutdown()
        XCTAssertTrue(engine.isShutDown)
        XCTAssertThrowsError(try track.play(), "a track of an engine shut down refuses to play")
    }

    /// Music on a sidechain's source bus ducks its target, as voices there do.
    func testMusicOnASourceBusDucksItsTarget() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        try engine.setDucking(Ducking(level: -12, attack: 0.01, release: 0.5, threshold: -40, hold: 0.1), of: .sfx, by: .music)
        let track = try engine.loadMusic(path: try fixtures.sineWAV("duck.wav", frequency: 700, amplitude: 0.4, seconds: 2))
        let r = FrameRenderer(engine)
        try r.render(seconds: 0.2)
        XCTAssertEqual(try engine.sidechainGain(for: .sfx), 1, accuracy: 1e-6, "no music: no duck")
        try track.play()
        try r.render(seconds: 0.3)
        let gain = try engine.sidechainGain(for: .sfx)
        print("MusicBusFilterTests: sfx ducked to \(Level.dB(Double(gain))) dB by music")
        XCTAssertEqual(Level.dB(Double(gain)), -12, accuracy: 0.5)
    }

    func testTheMusicBusMeterReadsTheMusicsLevel() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let stereo = try fixtures.sineWAV("stereo.wav", frequency: 700, amplitude: 0.4, seconds: 3, channels: 2)
        let track = try engine.loadMusic(path: stereo)
        track.volume = 0.5
        XCTAssertEqual(try engine.level(of: .music), -.infinity)
        try track.play()
        let r = FrameRenderer(engine)
        try r.render(seconds: 0.5)
        // The rendered power (mean square over both channels) of the last 50 ms.
        let out = r.output.suffix(4_800)
        let rendered = Level.dB(power: Level.meanSquare(out))
        let meter = try engine.level(of: .music)
        var capture = MonitorCapture()
        engine.withAL { capture.fill(from: engine.core) }
        let row = capture.buses.first { $0.name == "music" }
        print("MusicBusFilterTests: rendered \(rendered) dBFS, level(of: .music) \(meter), monitor \(row?.levelDBFS ?? .nan)")
        XCTAssertEqual(meter, rendered, accuracy: 1)
        XCTAssertEqual(row?.levelDBFS ?? -144, rendered, accuracy: 1)
        track.pause()
        try r.render(seconds: 0.1)
        XCTAssertEqual(try engine.level(of: .music), -.infinity, "a paused track is silent on the meter")
    }
}
