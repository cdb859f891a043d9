@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Occlusion and obstruction measured on loopback renders: which bands they take away, which
/// paths they touch, how they glide, and that they survive a voice losing and regaining its source.
final class OcclusionTests: XCTestCase {
    private let rate = 48_000

    /// One second of white noise (seeded), about −12 dBFS.
    private func noise() -> PCMAudio { TestSignals.whiteNoise(sampleRate: rate) }

    private func render(_ e: AudioEngine, seconds: Double) throws -> [Float] { try TestSignals.renderFrames(e, seconds: seconds) }

    /// Energy (dB) of the left+right sum in the band `low…high` Hz, through a 4th-order
    /// band-pass (two RBJ biquads at the band's centre, Q from its width).
    private func band(_ x: [Float], _ low: Double, _ high: Double) -> Double {
        let mono = stride(from: 0, to: x.count, by: 2).map { Double(x[$0] + x[$0 + 1]) }
        let centre = (low * high).squareRoot()
        let y = ReverbMeasures.bandPass(mono, centre: centre, q: centre / (high - low), rate: rate)
        let tail = y[(y.count / 4)...]
        return Level.dB(power: Level.meanSquare(tail))
    }

    /// Looping noise on an emitter 2 m ahead with `environment`, rendered for `seconds`.
    private func noiseRender(_ environment: EnvironmentProperties, zones: [ReverbZone] = [], seconds: Double = 1) throws -> [Float] {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.setReverbZones(zones)
        let clip = try e.loadClip(noise(), name: "noise")
        let emitter = try e.makeEmitter(SpatialProperties(position: Vector3(0, 0, -2)))
        emitter.environment = environment
        _ = try e.play(clip, options: .init(loop: true, emitter: emitter))
        return try render(e, seconds: seconds)
    }

    func testOcclusionTakesTheHighsFarMoreThanTheLows() throws {
        let open = try noiseRender(.open)
        let walled = try noiseRender(EnvironmentProperties(occlusion: 1))
        let highDrop = band(open, 4_000, 8_000) - band(walled, 4_000, 8_000)
        let lowDrop = band(open, 100, 300) - band(walled, 100, 300)
        print("OcclusionTests: occlusion 1 lowers 4–8 kHz by \(highDrop) dB, 100–300 Hz by \(lowDrop) dB")
        XCTAssertGreaterThan(highDrop, 20, "a wall muffles the highs")
        XCTAssertEqual(lowDrop, 6.02, accuracy: 1.5, "the default curve's −6 dB at full occlusion")
        XCTAssertGreaterThan(highDrop - lowDrop, 12)
        // Obstruction muffles the direct path the same way.
        let pillar = try noiseRender(EnvironmentProperties(obstruction: 1))
        XCTAssertEqual(band(pillar, 4_000, 8_000), band(walled, 4_000, 8_000), accuracy: 0.5)
    }

    /// In a hangar: obstruction leaves the reverb send untouched, occlusion lowers it. The
    /// reverb is heard alone after the noise stops (the burst's tail).
    func testObstructionSparesTheReverbOcclusionDoesNot() throws {
        let hangar = try ReverbZone(name: "hangar", shape: .box(center: Vector3(0, 5, 0), size: Vector3(40, 10, 40)),
                                    reverb: ReverbProperties.preset(named: "hangar"), fade: 2)
        func tail(_ environment: EnvironmentProperties) throws -> Double {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            try e.setReverbZones([hangar])
            let clip = try e.loadClip(PCMAudio(sampleRate: rate, channels: 1, samples: .int16(Array({ () -> [Int16] in
                if case .int16(let s) = noise().samples { return Array(s[0..<(rate / 10)]) } else { return [] } }()))), name: "burst")
            _ = try render(e, seconds: 0.2)
            var options = PlayOptions(position: Vector3(0, 0, -2))
            options.environment = environment
            _ = try e.play(clip, options: options)
            let out = try render(e, seconds: 1.0)
            let from = Int(0.4 * Double(rate)) * 2
            return Level.dB(Level.rms(Array(out[from...]), channels: 1)[0])
        }
        let open = try tail(.open), obstructed = try tail(EnvironmentProperties(obstruction: 1)),
            occluded = try tail(EnvironmentProperties(occlusion: 1))
        print("OcclusionTests: hangar tail open \(open) dB, obstructed \(obstructed) dB, occluded \(occluded) dB")
        XCTAssertEqual(obstructed, open, accuracy: 0.5, "obstruction: the room still rings")
        XCTAssertLessThan(occluded, open - 6, "occlusion: the reverb is muffled too")
        let quiet = try tail(EnvironmentProperties(sendGain: 0.25))
        XCTAssertEqual(quiet, open - 12.04, accuracy: 1, "sendGain scales the sends")
    }

    /// A change while playing glides: one 60 Hz frame after occlusion goes 0 → 1 the highs are
    /// partway down, three frames later all the way.
    func testChangesGlide() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let clip = try e.loadClip(noise(), name: "noise")
        let emitter = try e.makeEmitter(SpatialProperties(position: Vector3(0, 0, -2)))
        _ = try e.play(clip, options: .init(loop: true, emitter: emitter))
        let before = band(try render(e, seconds: 0.5), 4_000, 8_000)
        emitter.environment = EnvironmentProperties(occlusion: 1)
        e.update()
        let first = band(try e.render(frames: rate / 60), 4_000, 8_000)
        let settled = band(try render(e, seconds: 0.5), 4_000, 8_000)
        print("OcclusionTests: 4–8 kHz before \(before) dB, first frame \(first) dB, settled \(settled) dB")
        XCTAssertLessThan(first, before - 1, "moving")
        XCTAssertGreaterThan(first, settled + 3, "not there at once")
        XCTAssertEqual(e.environment(of: emitter), EnvironmentProperties(occlusion: 1))
    }

    /// A voice that loses its source (a higher-priority voice takes it) and gets it back is still
    /// behind its wall.
    func testOcclusionSurvivesLosingTheSource() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 1 }
        defer { e.shutdown() }
        let clip = try e.loadClip(noise(), name: "noise")
        let emitter = try e.makeEmitter(SpatialProperties(position: Vector3(0, 0, -2)))
        emitter.environment = EnvironmentProperties(occlusion: 1)
        let voice = try e.play(clip, options: .init(loop: true, priority: 200, emitter: emitter))
        let occluded = band(try render(e, seconds: 0.5), 4_000, 8_000)
        let vip = try e.play(clip, options: .init(loop: true, priority: 0, position: Vector3(0, 0, -2)))
        _ = try render(e, seconds: 0.3)
        XCTAssertEqual(voice.status, .virtual)
        vip.stop()
        _ = try render(e, seconds: 0.3)
        XCTAssertEqual(voice.status, .real)
        let back = band(try render(e, seconds: 0.5), 4_000, 8_000)
        XCTAssertEqual(back, occluded, accuracy: 1, "still behind the wall after getting a source back")
        XCTAssertThrowsError(try e.play(clip, options: { var o = PlayOptions(position: Vector3(0, 0, -1)); o.environment.occlusion = 2; return o }()))
    }
}
