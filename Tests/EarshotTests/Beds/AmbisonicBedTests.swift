@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// A bed's transport and mix: FuMa and AmbiX twins, a streamed bed that loops gaplessly in
/// bounded memory, fades, pause, cross-fades, yaw ramps, its bus, its sources and its errors —
/// rendered through the loopback device.
final class AmbisonicBedTests: XCTestCase {
    /// Interleaved AmbiX of a 480 Hz sine (an exact number of periods a second: a seamless loop)
    /// from `azimuth`.
    static func sineWave(order: Int, azimuth: Double, seconds: Double) -> [Float] {
        let y = SphericalHarmonics.sn3d(order: order, azimuth: azimuth).map { Float($0) }
        return (0..<Int(seconds * 48_000)).flatMap { i in
            let v = Float(0.25 * sin(2 * Double.pi * 480 * Double(i) / 48_000))
            return y.map { $0 * v }
        }
    }

    func testAFuMaFileAndItsAmbiXTwinRenderAlike() throws {
        let files = try BedFixtures()
        for (order, path) in [(1, AmbisonicBed.FirstOrderPath.loudspeakers), (1, .bformat), (3, .automatic)] {
            let k = AmbisonicFormat.channels(order: order)
            let ambix = BedFixtures.planeWave(order: order, azimuth: 60, seconds: 0.3)
            let a = try files.write(ambix, channels: k, name: "a\(order)\(path).wav")
            let f = try files.write(BedFixtures.fuma(ambix, channels: k), channels: k, name: "f\(order)\(path).wav")
            var outs: [[Float]] = []
            for (file, format) in [(a, AmbisonicFormat.ambix), (f, .fuma)] {
                let e = try TestSignals.loopbackEngine()
                defer { e.shutdown() }
                let bed = try e.openBed(path: file, options: .init(format: format, numberOfLoops: 0, firstOrder: path))
                try bed.play()
                outs.append(try TestSignals.renderGameFrames(e, seconds: 0.2))
            }
            let diff = zip(outs[0], outs[1]).map { $0 - $1 }
            let db = Level.dB(power: Level.meanSquare(diff)) - Level.dB(power: Level.meanSquare(outs[0]))
            print("FuMa vs AmbiX twin, order \(order) \(path): difference \(String(format: "%.1f", db)) dB")
            XCTAssertLessThan(db, -60, "order \(order) \(path)")
            XCTAssertGreaterThan(Level.meanSquare(outs[0]), 1e-4, "order \(order): heard")
        }
    }

    /// A bed's `events` is its stream's broadcast: two consumers each see every end of a bed
    /// played three times, both end at shutdown, and one read after shutdown is finished at once.
    func testEveryConsumerSeesEveryEndAndShutdownFinishesThem() async throws {
        let files = try BedFixtures()
        let path = try files.write(Self.sineWave(order: 1, azimuth: 0, seconds: 0.1), channels: 4, name: "short.wav")
        let e = try TestSignals.loopbackEngine()
        let bed = try e.openBed(path: path, options: .init(numberOfLoops: 0))
        try await assertEveryConsumerSeesEveryEnd(engine: e, events: { bed.events }, play: { try bed.play() })
    }

    /// A 1 s sine bed streamed and looped: every seam continuous (no step beyond the sine's own),
    /// no underrun, and the process's resident memory flat while it loops.
    func testAStreamedBedLoopsGaplesslyInFlatMemory() throws {
        let files = try BedFixtures()
        let path = try files.write(Self.sineWave(order: 1, azimuth: 0, seconds: 1), channels: 4, name: "loop.wav")
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let bed = try e.openBed(path: path)
        try bed.play()
        var out = try TestSignals.renderGameFrames(e, seconds: 1.2)
        let rss0 = Self.residentBytes()
        out += try TestSignals.renderGameFrames(e, seconds: 2)
        let grown = Self.residentBytes() - rss0
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }.dropFirst(480)
        let peak = left.map(abs).max() ?? 0
        let step = zip(left.dropFirst(), left).map { abs($0 - $1) }.max() ?? 1
        let sineStep = peak * Float(2 * Double.pi * 480 / 48_000)
        print("streamed bed loop: peak \(peak), largest step \(step) (the sine's own \(sineStep)), RSS grew \(grown) bytes over 2 s, underruns \(e.stats.musicUnderruns)")
        XCTAssertGreaterThan(peak, 0.05)
        XCTAssertLessThan(step, sineStep * 1.05, "no gap or click at the loop seams")
        XCTAssertEqual(e.stats.musicUnderruns, 0)
        XCTAssertLessThan(grown, 4 << 20, "memory stays flat while the bed loops")
        XCTAssertTrue(bed.isPlaying)
    }

    static func residentBytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = s.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Fade, pause (the yaw ramp holds), a yaw ramp, the bus's gain, and a cross-fade to another
    /// bed.
    func testFadesPauseYawRampBusAndCrossfade() throws {
        let files = try BedFixtures()
        let front = try files.write(BedFixtures.planeWave(order: 3, azimuth: 0, seconds: 1), channels: 16, name: "front.wav")
        let left = try files.write(BedFixtures.planeWave(order: 1, azimuth: 90, seconds: 1), channels: 4, name: "left.wav")
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try e.openBed(path: front, options: .init(lock: .head))
        XCTAssertEqual(a.order, 3)
        XCTAssertEqual(a.sourceCount, 24)
        XCTAssertEqual(a.bus, .ambience)
        try a.play()
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        let full = Level.rms(try TestSignals.renderGameFrames(e, seconds: 0.1), channel: 0, of: 2)
        // The bus: −6 dB on ambience.
        try e.setGain(0.5, for: .ambience)
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        let half = Level.rms(try TestSignals.renderGameFrames(e, seconds: 0.1), channel: 0, of: 2)
        XCTAssertEqual(Level.dB(half, over: full), -6.02, accuracy: 0.3, "the ambience bus's gain applies")
        try e.setGain(1, for: .ambience)
        // Yaw ramp to 90° over 0.2 s: the front wave ends on the left; paused half-way, it holds.
        a.setYaw(90, ramp: 0.2)
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        try e.setPaused(true, for: .ambience)
        let held = a.yaw
        try TestSignals.renderGameFrames(e, seconds: 0.2)
        XCTAssertEqual(a.yaw, held, accuracy: 0.01, "the ramp is frozen while the bus is paused")
        XCTAssertLessThan(Level.rms(try TestSignals.renderGameFrames(e, seconds: 0.05), channel: 0, of: 2), 1e-4, "paused: silent")
        try e.setPaused(false, for: .ambience)
        XCTAssertGreaterThan(held, 20)
        XCTAssertLessThan(held, 70)
        try TestSignals.renderGameFrames(e, seconds: 0.2)
        XCTAssertEqual(a.yaw, 90, accuracy: 0.01)
        XCTAssertGreaterThan(BedFixtures.balance(try TestSignals.renderGameFrames(e, seconds: 0.1)), 3, "turned 90°: the front wave is on the left")
        // Cross-fade to a first-order bed from the right of the head... here: yaw −90 puts its left wave ahead.
        let b = try e.openBed(path: left, options: .init(lock: .head, yaw: -90))
        try a.crossfade(to: b, duration: 0.2)
        try TestSignals.renderGameFrames(e, seconds: 0.3)
        XCTAssertFalse(a.isPlaying, "the old bed stopped at the cross-fade's end")
        XCTAssertTrue(b.isPlaying)
        let after = try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertEqual(BedFixtures.balance(after), 0, accuracy: 1, "only the new bed: its wave ahead")
        XCTAssertGreaterThan(Level.rms(after, channel: 0, of: 2), 0.01)
        // A fade that stops.
        b.fade(to: 0, duration: 0.1, stopsAtEnd: true)
        try TestSignals.renderGameFrames(e, seconds: 0.2)
        XCTAssertFalse(b.isPlaying)
        XCTAssertLessThan(Level.rms(try TestSignals.renderGameFrames(e, seconds: 0.05), channel: 0, of: 2), 1e-5)
    }

    func testErrorsAreTypedAndSourcesAreTheBeds() throws {
        let files = try BedFixtures()
        let five = try files.write([Float](repeating: 0, count: 5 * 4_800), channels: 5, name: "five.wav")
        let third = try files.write(BedFixtures.planeWave(order: 3, azimuth: 0, seconds: 0.1), channels: 16, name: "third.wav")
        let e = try TestSignals.loopbackEngine { $0.bedSources = 30; $0.musicSources = 1 }
        defer { e.shutdown() }
        XCTAssertThrowsError(try e.openBed(path: five)) { XCTAssertEqual(($0 as? EarshotError).map { if case .unsupportedEncoding = $0 { true } else { false } }, true) }
        XCTAssertThrowsError(try e.openBed(path: third, options: .init(bus: Bus("nowhere")))) { XCTAssertEqual(($0 as? EarshotError).map { if case .invalidArgument = $0 { true } else { false } }, true) }
        XCTAssertThrowsError(try e.openBed(path: third, options: .init(yaw: .nan)))
        let one = try e.openBed(path: third), two = try e.openBed(path: third)
        try one.play()
        XCTAssertThrowsError(try two.play()) { XCTAssertEqual($0 as? EarshotError, .bedSourcesBusy(30, needed: 24), "24 + 24 > 30 bed sources") }
        XCTAssertFalse(two.isPlaying)
        // A first-order bed (6 loudspeakers) still fits beside the third-order one.
        let small = try e.openBed(path: files.write(BedFixtures.planeWave(order: 1, azimuth: 0, seconds: 0.1), channels: 4, name: "small.wav"))
        XCTAssertNoThrow(try small.play())
        // Music keeps its own source meanwhile.
        let music = try e.openStream(path: files.write([Float](repeating: 0, count: 4_800), channels: 1, name: "mono.wav"))
        XCTAssertNoThrow(try music.play())
        e.shutdown()
        XCTAssertThrowsError(try e.openBed(path: third)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try AudioEngine(configuration: { var c = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000)); c.bedSources = 300; return c }()))
    }
}
