@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Where a bed's plane waves are heard: noise encoded from an azimuth at orders 1, 2 and 3
/// (AmbiX, SN3D harmonics), written by libsndfile, played as a bed through the loopback device;
/// left and right RMS measured.
final class AmbisonicBedDirectionTests: XCTestCase {
    static let angles: [Double] = [0, 45, 90, 135, 180, -90]

    /// Plays `path` as a bed on `e` and returns 0.25 s of stereo after 0.1 s of settling.
    static func render(_ e: AudioEngine, _ path: String, options: AmbisonicBed.Options = .init(),
                       before: (AmbisonicBed) -> Void = { _ in }) throws -> [Float] {
        var options = options
        options.numberOfLoops = 0   // plays the short file once: nothing decoded beyond it
        let bed = try e.openBed(path: path, options: options)
        before(bed)
        try bed.play()
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        let out = try TestSignals.renderGameFrames(e, seconds: 0.15)
        bed.stop()
        return out
    }

    /// Balance (left over right, dB) of the plane wave from each of ``angles``, per order.
    func testPlaneWavesAreHeardFromTheirDirectionAndSharpenWithTheOrder() throws {
        let files = try BedFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        var balance: [Int: [Double]] = [:]
        for order in 1...3 {
            for theta in Self.angles {
                let path = try files.write(BedFixtures.planeWave(order: order, azimuth: theta, seconds: 0.3),
                                           channels: AmbisonicFormat.channels(order: order), name: "pw\(order)-\(Int(theta)).wav")
                // Order 2 loaded as a clip, 1 and 3 streamed: both paths.
                let out = try Self.render(e, path, options: .init(loading: order == 2 ? .clip : .streamed))
                balance[order, default: []].append(BedFixtures.balance(out))
                XCTAssertGreaterThan(max(Level.rms(out, channel: 0, of: 2), Level.rms(out, channel: 1, of: 2)), 0.01, "order \(order) θ \(theta): heard")
            }
            print("bed order \(order) balance L/R dB at", Self.angles, ":", balance[order, default: []].map { String(format: "%.2f", $0) })
        }
        for order in 1...3 {
            let b = balance[order, default: []]
            XCTAssertEqual(b[0], 0, accuracy: 1, "order \(order): front balanced")
            XCTAssertEqual(b[4], 0, accuracy: 1, "order \(order): back balanced")
            XCTAssertGreaterThan(b[2], 3, "order \(order): from the left, left louder by ≥ 3 dB")
            XCTAssertLessThan(b[5], -3, "order \(order): from the right, right louder by ≥ 3 dB")
            XCTAssertGreaterThan(b[1], 1, "order \(order): 45° left is left of centre")
            XCTAssertGreaterThan(b[3], 1, "order \(order): 135° left is left of centre")
        }
        XCTAssertGreaterThanOrEqual(balance[3, default: []][2], balance[1, default: []][2], "order 3 at least as sharp as order 1 (left)")
        XCTAssertLessThanOrEqual(balance[3, default: []][5], balance[1, default: []][5], "order 3 at least as sharp as order 1 (right)")
    }

    /// The listener turns 90° to the left: a world-locked bed turns against it (the wave from the
    /// left is now ahead, balanced; the front one is on the right); a head-locked bed does not.
    func testWorldLockedTurnsAgainstTheListenerAndHeadLockedDoesNot() throws {
        let files = try BedFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        e.listener = Listener(at: Vector3(-1, 0, 0))
        for order in [1, 3] {
            let k = AmbisonicFormat.channels(order: order)
            let left = try files.write(BedFixtures.planeWave(order: order, azimuth: 90, seconds: 0.3), channels: k, name: "l\(order).wav")
            let front = try files.write(BedFixtures.planeWave(order: order, azimuth: 0, seconds: 0.3), channels: k, name: "f\(order).wav")
            let world = (try BedFixtures.balance(Self.render(e, left)), try BedFixtures.balance(Self.render(e, front)))
            let head = (try BedFixtures.balance(Self.render(e, left, options: .init(lock: .head))),
                        try BedFixtures.balance(Self.render(e, front, options: .init(lock: .head))))
            print("bed order \(order), listener turned 90° left: world-locked left/front \(world), head-locked \(head) dB")
            XCTAssertEqual(world.0, 0, accuracy: 1, "order \(order): the left wave is now ahead")
            XCTAssertLessThan(world.1, -3, "order \(order): the front wave is now on the right")
            XCTAssertGreaterThan(head.0, 3, "order \(order) head-locked: the left wave stays left")
            XCTAssertEqual(head.1, 0, accuracy: 1, "order \(order) head-locked: the front stays ahead")
            // The bed's own yaw: 90° turns the recording's front to the (world's) left, which the
            // turned listener has ahead.
            let yawed = try BedFixtures.balance(Self.render(e, front, options: .init(yaw: 90)))
            XCTAssertEqual(yawed, 0, accuracy: 1, "order \(order): yaw 90° puts the front wave at the world's left")
        }
    }

    /// Decorrelated noise in every channel: balanced within 0.5 dB.
    func testADiffuseBedIsBalanced() throws {
        let files = try BedFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        for order in [1, 3] {
            let path = try files.write(BedFixtures.diffuse(order: order, seconds: 0.3),
                                       channels: AmbisonicFormat.channels(order: order), name: "d\(order).wav")
            let b = BedFixtures.balance(try Self.render(e, path))
            print("diffuse bed order \(order): balance \(String(format: "%.3f", b)) dB")
            XCTAssertEqual(b, 0, accuracy: 0.5, "order \(order)")
        }
    }

    /// With HRTF: the interaural level difference of a bed's wave from the left has a point
    /// source's sign and, at order 3, at least half its size.
    func testWithHRTFTheInterauralLevelDifferenceIsAPointSources() throws {
        let files = try BedFixtures()
        let e = try TestSignals.loopbackEngine { $0.hrtf = true }
        defer { e.shutdown() }
        let noise = BedFixtures.noise(frames: 24_000, seed: 7)
        let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(noise)), name: "point")
        let voice = try e.play(clip, options: PlayOptions(position: Vector3(-1, 0, 0)))
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        let point = BedFixtures.balance(try TestSignals.renderGameFrames(e, seconds: 0.25))
        voice.stop()
        var ild: [Int: Double] = [:]
        for order in [1, 3] {
            let path = try files.write(BedFixtures.planeWave(order: order, azimuth: 90, seconds: 0.3),
                                       channels: AmbisonicFormat.channels(order: order), name: "h\(order).wav")
            ild[order] = BedFixtures.balance(try Self.render(e, path) { bed in
                XCTAssertEqual(bed.usesBFormat, order == 1, "with HRTF, first order plays through AL_EXT_BFORMAT3D")
            })
        }
        print("HRTF ILD from the left: point source \(point) dB, bed order 1 \(ild[1] ?? .nan), order 3 \(ild[3] ?? .nan) dB")
        XCTAssertGreaterThan(point, 3, "the point source on the left is louder on the left")
        XCTAssertGreaterThan(ild[1] ?? 0, 0, "order 1: a point source's sign")
        XCTAssertGreaterThan(ild[3] ?? 0, point / 2, "order 3: at least half the point source's ILD")
    }

    /// Why first order does not take OpenAL's B-format path on a panned (non-HRTF) output: 1.19.1
    /// clamps each channel's gain per loudspeaker to 0…1 (panning.c, ComputePanningGainsMC), so
    /// the Y channel alone plays on the left only whatever its sign. Earshot's 6-loudspeaker
    /// decode of the same file is symmetric.
    func testOpenALsBFormatPathLosesNegativeLobesOnAPannedOutput() throws {
        let files = try BedFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let s = BedFixtures.noise(frames: 24_000, seed: 7)
        let negativeY = try files.write(s.flatMap { [0, -$0, 0, 0] }, channels: 4, name: "y.wav")
        let openAL = BedFixtures.leftRight(try Self.render(e, negativeY, options: .init(firstOrder: .bformat)))
        let earshot = BedFixtures.leftRight(try Self.render(e, negativeY) { XCTAssertFalse($0.usesBFormat) })
        print("Y = −noise: OpenAL B-format L/R \(openAL), Earshot's decode L/R \(earshot)")
        XCTAssertLessThan(openAL.right, openAL.left / 1000, "1.19.1: the negative lobe toward the right is clamped away")
        XCTAssertEqual(Level.dB(earshot.left, over: earshot.right), 0, accuracy: 0.5, "a pure Y component is symmetric in power")
    }
}
