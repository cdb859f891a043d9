@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 24 item 2: OpenAL Soft 1.19.1 aborts (`BiquadFilter_setParams: Assertion 'gain >
/// 0.00001f'`) on some in-range EAX reverb values; `ReverbDomain` keeps every reverb Earshot sends
/// inside what it mixes.
final class ReverbDomainTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws {
        tmp = FileManager.default.temporaryDirectory.appendingPathComponent("reverb-domain-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private var beep: String { CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/beep.wav").path }

    /// The scenes that killed `earshot render` by SIGABRT: density 1 with a short HF decay, and a
    /// fast speed of sound limiting the HF ratio of a long decay through `decayHFLimit`. Run in a
    /// child process (the abort would take the test runner with it).
    func testRenderOfAbortingValuesExitsZeroWithFiniteAudio() throws {
        let cases = [
            ("short-hf", "speedOfSound: 343.3", "{ preset: generic, density: 1, decayTime: 1, decayHFRatio: 0.11 }"),
            ("short-lf", "speedOfSound: 343.3", "{ preset: generic, density: 1, decayTime: 1, decayLFRatio: 0.11 }"),
            ("fast-sound", "speedOfSound: 100000", "{ preset: generic, density: 1, decayTime: 20, airAbsorptionGainHF: 0.9 }"),
        ]
        for (name, top, reverb) in cases {
            let scene = tmp.appendingPathComponent("\(name).yaml").path
            try """
                duration: 0.5
                \(top)
                clips: { beep: \(beep) }
                zones:
                  hall:
                    reverb: \(reverb)
                    sphere: { radius: 50 }
                emitters: { e: { clip: beep, position: [1, 0, 0], loop: true } }
                """.write(toFile: scene, atomically: true, encoding: .utf8)
            let out = tmp.appendingPathComponent("\(name).wav").path
            let r = try CLIRunner.run("earshot", ["render", scene, "-o", out, "--format", "f32"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Assertion"), r.stderr)
            let samples = try readFloats(out)
            XCTAssertEqual(samples.count, 48_000, name)
            XCTAssertTrue(samples.allSatisfy { $0.isFinite && abs($0) <= 1 }, "\(name): finite, within full scale")
            XCTAssertGreaterThan(samples.map { Double($0 * $0) }.reduce(0, +), 1, "\(name): the beep is heard")
            // validate says what render changes, with FILE:LINE:COLUMN.
            let v = try CLIRunner.run("earshot", ["validate", scene])
            XCTAssertEqual(v.status, 0, v.stderr)
            XCTAssertTrue(v.stderr.contains("\(scene):5:3: zones.hall.reverb:") && v.stderr.contains("raised to"),
                          "\(name): \(v.stderr)")
        }
    }

    /// 20,000 random in-range EAX reverbs (a third at the edges of their ranges) on a bus effect,
    /// each mixed for 64 frames through loopback in this process: no abort, finite output.
    func testRandomInRangeReverbsNeverAbort() throws {
        var g = SplitMix64(seed: 24)
        var adjusted = 0
        for speed: Float in [343.3, 20_000] {
            let e = try AudioEngine(configuration: {
                var c = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000), speedOfSound: speed)
                c.busEffects = true
                return c
            }())
            defer { e.shutdown() }
            _ = try e.play(try e.loadClip(TestSignals.sine(frequency: 3_000, amplitude: 0.5, seconds: 0.5), name: "t"),
                           options: .init(loop: true, position: Vector3(0, 0, -1)))
            for _ in 0..<10_000 {
                var r = try ReverbProperties.preset(named: "generic")
                for (name, range) in ReverbProperties.valueRanges {
                    let u = g.nextUnit()
                    let v: Float = u < 0.15 ? range.lowerBound : u < 0.3 ? range.upperBound
                        : range.lowerBound + Float(g.nextUnit()) * (range.upperBound - range.lowerBound)
                    _ = r.set(name, to: v)
                }
                r.decayHFLimit = g.nextUnit() < 0.5
                if !ReverbDomain.sanitised(r, speedOfSound: speed).adjustments.isEmpty { adjusted += 1 }
                try e.setEffect(.reverb(r), level: 1, for: .sfx)
                let out = try e.render(frames: 64)
                XCTAssertTrue(out.allSatisfy(\.isFinite), "\(r)")
            }
        }
        print("ReverbDomainTests: 20000 random reverbs, \(adjusted) moved into 1.19.1's domain")
        XCTAssertGreaterThan(adjusted, 100, "the generator reaches the values that aborted")
    }

    /// Found by the scene value fuzzer: a reverb zone and a one-shot at sample 107 crashed the
    /// render (SIGSEGV in OpenAL Soft 1.19.1): a mix call ending inside the reverb's 128-frame
    /// delay-line cross-fade at a count that is not a multiple of 4 leaves a fade of 1–3 frames
    /// that the next call rounds to 0, and a biquad filter then runs away over memory. Every
    /// odd render size right after the zone's reverb is loaded (and after it changes), with
    /// events in between: no crash, finite output.
    func testOddRenderSizesDuringTheReverbCrossFadeDoNotCrash() throws {
        for first in [1, 2, 3, 5, 107, 127, 129] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            try e.setReverbZones([ReverbZone(name: "z", shape: .sphere(center: .zero, radius: 1_000), reverb: try .preset(named: "generic"))])
            let clip = try e.loadClip(TestSignals.sine(frequency: 440, amplitude: 0.5, seconds: 0.2), name: "s")
            e.update(deltaTime: 1.0 / 60)
            var out = try e.render(frames: first)
            _ = try e.play(clip, options: .init(position: Vector3(0, 0, -1)))
            out += try e.render(frames: 800 - first)
            // A new reverb for the zone: another cross-fade, met by odd sizes again.
            try e.setReverbZones([ReverbZone(name: "z", shape: .sphere(center: .zero, radius: 1_000), reverb: try .preset(named: "hangar"))])
            e.update(deltaTime: 1.0 / 60)
            for size in [first, 3, 1, 2, 6, 800] { out += try e.render(frames: size) }
            XCTAssertTrue(out.allSatisfy(\.isFinite), "first render \(first)")
        }
    }

    /// The domain itself: what it moves stays in range, what was fine is untouched.
    func testSanitisedKeepsSafeValuesAndOnlyRaisesRatios() throws {
        let generic = try ReverbProperties.preset(named: "generic")
        XCTAssertEqual(ReverbDomain.sanitised(generic, speedOfSound: 343.3).properties, generic)
        XCTAssertTrue(ReverbDomain.sanitised(generic, speedOfSound: 343.3).adjustments.isEmpty)
        for name in ReverbProperties.presetNames {
            let p = try ReverbProperties.preset(named: name)
            XCTAssertEqual(ReverbDomain.sanitised(p, speedOfSound: 343.3).properties, p, "preset \(name) is left alone")
        }
        var r = generic
        r.density = 1; r.decayTime = 1; r.decayHFRatio = 0.11
        let s = ReverbDomain.sanitised(r, speedOfSound: 343.3)
        XCTAssertGreaterThan(s.properties.decayHFRatio, 0.11)
        XCTAssertNoThrow(try s.properties.validated())
        // The shelf gain 1.19.1 computes for the longest line stays above its assertion.
        let length = ReverbDomain.longestLateLine(density: 1, diffusion: r.diffusion)
        let hf = s.properties.decayTime * s.properties.decayHFRatio
        let gain = powf(0.001, length / hf) / powf(0.001, length / s.properties.decayTime)
        XCTAssertGreaterThan(gain, 1e-5 * 1.05)
    }

    private func readFloats(_ path: String) throws -> [Float] {
        let audio = try ClipDecoder.decode(path: path)
        switch audio.samples {
        case .float32(let s): return s
        case .int16(let s): return s.map { Float($0) / 32768 }
        }
    }
}
