import Earshot
import EarshotBanks
import EarshotContent
import EarshotScenes
import EarshotTestSupport
import XCTest

/// Clip normalisation where voices are already playing, and where a clip is measured: sox sines
/// rendered on loopback and measured with the project's libebur128 meter.
/// - a bank save that moves a clip's `loudness:` or `gain:` moves the loops playing it: to the
///   clip's new target, or — heard through a sound with `loudness:` — kept at the sound's;
/// - a scene `set:` of an emitter's gain is heard as that change for a layered sound, a timeline
///   sound and a sound picking among clips of different levels;
/// - `ClipLoudness` reports a cut or corrupt file as itself, and still measures an IMA4 CAF.
final class ClipLevelFollowTests: XCTestCase {
    /// Integrated loudness of stereo 48 kHz `samples` from `a` to `b` seconds.
    private static func lufs(_ samples: [Float], from a: Double, to b: Double) throws -> Double {
        let m = try LoudnessMeter(channels: 2, sampleRate: 48_000, truePeak: false)
        try m.add(Array(samples[(Int(a * 48_000) * 2)..<(Int(b * 48_000) * 2)]))
        return try XCTUnwrap(m.integrated)
    }

    func testABankSaveMovesTheLoopsPlayingAClipToItsNewLevel() throws {
        let f = try BankFixture("clipfollow-bank")
        defer { f.remove() }
        try SoxTone.write(to: f.path("audio/rain.wav"), frequency: 1000, amplitude: 0.02, seconds: 3, channels: 2)
        try SoxTone.write(to: f.path("audio/drip.wav"), frequency: 1000, amplitude: 0.05, seconds: 3, channels: 2)
        let text = """
            clips:
              rain: { file: audio/rain.wav, loudness: -30 }
              drip: { file: audio/drip.wav, loudness: -30 }
              plain: audio/rain.wav
            sounds:
              rainLoop: { clips: [rain], loop: true, loudness: -20 }
              dripLoop: { clips: [drip], loop: true }
              plainLoop: { clips: [plain], loop: true, gain: -60 }
            """
        let path = try f.write("bank.yaml", text)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        defer { bank.unload() }
        func save(_ old: String, _ new: String, changed: String) throws {
            let now = try String(contentsOfFile: path, encoding: .utf8)
            try f.write("bank.yaml", now.replacingOccurrences(of: old, with: new))
            XCTAssertEqual(try bank.reload().changed, [changed])
        }
        // A loop through a sound with `loudness:`: the clip saved at −24 stays at the sound's −20.
        XCTAssertNotNil(try bank.play("rainLoop"))
        // The same file under another id (another handle gain): its voice is left alone.
        let plain = try XCTUnwrap(try bank.play("plainLoop"))
        let plainGain = try XCTUnwrap(plain.gain)
        let rain0 = try Self.lufs(BankFixture.frames(engine, 60), from: 0.1, to: 1)
        try save("rain: { file: audio/rain.wav, loudness: -30 }", "rain: { file: audio/rain.wav, loudness: -24 }",
                 changed: "clips.rain")
        XCTAssertEqual(plain.gain, plainGain, "a voice of the same file's other handle keeps its gain")
        let rain1 = try Self.lufs(BankFixture.frames(engine, 60), from: 0.1, to: 1)
        engine.stopAllVoices()
        _ = try BankFixture.frames(engine, 10)
        // A plain loop: it follows its clip's new level (`gain: 6` on top of −30).
        XCTAssertNotNil(try bank.play("dripLoop"))
        let drip0 = try Self.lufs(BankFixture.frames(engine, 60), from: 0.1, to: 1)
        try save("drip: { file: audio/drip.wav, loudness: -30 }", "drip: { file: audio/drip.wav, loudness: -30, gain: 6 }",
                 changed: "clips.drip")
        let drip1 = try Self.lufs(BankFixture.frames(engine, 60), from: 0.1, to: 1)
        print("clip follow: rain \(rain0) → \(rain1), drip \(drip0) → \(drip1)")
        XCTAssertEqual(rain0, -20, accuracy: 0.5)
        XCTAssertEqual(rain1, -20, accuracy: 0.5, "the sound's loudness: is what the live loop keeps")
        XCTAssertEqual(drip0, -30, accuracy: 0.5)
        XCTAssertEqual(drip1, -24, accuracy: 0.5, "the live loop follows its clip's new level")
    }

    /// The engine call a bank's save makes: the voices one handle started, and only those.
    func testRedefineGainMovesTheVoicesOfThatHandleOnly() throws {
        let engine = try BankFixture.engine()
        let hum = try engine.loadClip(path: CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/hum-loop.wav").path)
        let beep = try engine.loadClip(path: CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/beep.wav").path)
        let a = try engine.play(hum, options: .init(gain: 0.8, loop: true))
        let b = try engine.play(hum.withGain(0.5), options: .init(loop: true))
        XCTAssertEqual(try engine.redefineGain(of: hum, as: hum.withGain(0.25)), 1)
        XCTAssertEqual(try XCTUnwrap(a.gain), 0.2, accuracy: 1e-6, "its play's gain kept, times the new handle gain")
        XCTAssertEqual(b.gain, 0.5, "another handle's voice is left alone")
        XCTAssertEqual(try engine.redefineGain(of: hum.withGain(0.25), as: hum), 1, "the voice now carries the new handle")
        XCTAssertEqual(try XCTUnwrap(a.gain), 0.8, accuracy: 1e-6)
        XCTAssertEqual(try engine.redefineGain(of: beep, as: hum), 0, "not the same clip: nothing moves")
        let other = try BankFixture.engine()
        XCTAssertThrowsError(try other.redefineGain(of: hum, as: hum.withGain(0.5))) { XCTAssertEqual($0 as? EarshotError, .wrongEngine) }
        other.shutdown()
        engine.shutdown()
        XCTAssertThrowsError(try engine.redefineGain(of: hum, as: hum.withGain(0.5))) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
    }

    func testAnEmitterSetOfGainIsHeardAsThatChangeForLayersTimelinesAndPicks() throws {
        let f = try BankFixture("clipfollow-set")
        defer { f.remove() }
        try SoxTone.write(to: f.path("audio/tone.wav"), frequency: 1000, amplitude: 0.02, seconds: 3, channels: 2)
        try SoxTone.write(to: f.path("audio/low.wav"), frequency: 500, amplitude: 0.03, seconds: 3, channels: 2)
        let path = try f.write("scene.yaml", """
            duration: 9
            clips:
              t23: { file: audio/tone.wav, loudness: -23 }
              t30: { file: audio/tone.wav, loudness: -30 }
              low: audio/low.wav
            sounds:
              layered: { gain: -3, layers: [ { clip: t23, gain: -6 }, { clip: low, gain: 0 } ] }
              timeline: { gain: -3, layers: [ { clip: t23, gain: -2, loop: true }, { clip: low, delay: 0.01, loop: true } ] }
              pick: { clips: [t23, t30], select: random, loop: true }
            emitters:
              a: { clip: layered, position: [0, 0, -1], loop: true }
              b: { clip: timeline, position: [0, 0, -1], loop: true, gain: -4 dB, start: 2 }
              c: { clip: pick, position: [0, 0, -1], loop: true, gain: -2 dB, start: 4 }
              d: { clip: layered, position: [0, 0, -1], loop: true, gain: silent, start: 6 }
              e: { clip: timeline, position: [0, 0, -1], loop: true, gain: silent, start: 7.5 }
            events:
              - { at: 1, set: a, gain: -6 dB }
              - { at: 2, stop: a }
              - { at: 3, set: b, gain: -10 dB }
              - { at: 4, stop: b }
              - { at: 5, set: c, gain: -8 dB }
              - { at: 6, stop: c }
              - { at: 6.5, set: d, gain: -6 dB }
              - { at: 7.5, stop: d }
              - { at: 8, set: e, gain: -10 dB }
            """)
        let out = f.path("set.wav")
        try SceneRenderer(scene: Scene.load(path: path)).render(to: out, format: .f32)
        let x = try SndFileDecoder.decode(path: out).floatSamples()
        var steps: [Double] = []
        for start in [0.0, 2, 4] {
            let before = try Self.lufs(x, from: start + 0.2, to: start + 1)
            let after = try Self.lufs(x, from: start + 1.2, to: start + 2)
            steps.append(after - before)
        }
        // From silence: the layered sound at −6 dB as emitter a after its set, the timeline
        // sound at −10 dB as emitter b after its.
        let layered0 = try Self.lufs(x, from: 6.7, to: 7.5), a1 = try Self.lufs(x, from: 1.2, to: 2)
        let timeline0 = try Self.lufs(x, from: 8.2, to: 9), b1 = try Self.lufs(x, from: 3.2, to: 4)
        print("emitter set −6 dB: layered \(steps[0]), timeline \(steps[1]), pick \(steps[2]); from silence: layered \(layered0) (a \(a1)), timeline \(timeline0) (b \(b1))")
        XCTAssertEqual(layered0, a1, accuracy: 0.2, "a set: from gain 0 keeps a layered voice's level, each layer's")
        XCTAssertEqual(timeline0, b1, accuracy: 0.2, "a set: from gain 0 keeps a timeline's parts' levels")
        XCTAssertEqual(steps[0], -6, accuracy: 0.2, "a layered sound (layers at −6 and 0 dB)")
        XCTAssertEqual(steps[1], -6, accuracy: 0.2, "a timeline sound started at −4 dB")
        XCTAssertEqual(steps[2], -6, accuracy: 0.2, "a sound picking among clips at −23 and −30 LUFS")
    }

    func testClipLoudnessReportsACutOrCorruptFileAsItself() throws {
        let f = try BankFixture("clipfollow-errors")
        defer { f.remove() }
        let whole = f.path("whole.wav")
        try SoxTone.write(to: whole, frequency: 1000, amplitude: 0.5, seconds: 1, channels: 2)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = f.path("cut.wav"), junk = f.path("junk.wav"), empty = f.path("empty.wav")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))   // its data chunk says twice as much
        var noise = Data("RIFF".utf8) + Data(repeating: 0x5A, count: 4_000)
        noise.replaceSubrange(8..<12, with: Data("WAVE".utf8))
        try noise.write(to: URL(fileURLWithPath: junk))
        // A header and no audio: malformed ("no audio frames"), not a silent clip left as it is.
        func le(_ v: Int, _ n: Int) -> Data { Data((0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) }) }
        let header = Data("RIFF".utf8) + le(36, 4) + Data("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(2, 2)
            + le(48_000, 4) + le(192_000, 4) + le(4, 2) + le(16, 2) + Data("data".utf8) + le(0, 4)
        try header.write(to: URL(fileURLWithPath: empty))
        for path in [cut, junk, empty] {
            var streamError: EarshotError?
            do { _ = try LoudnessMeter.measure(path: path, truePeak: false) } catch { streamError = error }
            let expected = try XCTUnwrap(streamError, "\(path) is refused by the stream decoder")
            do {
                let l = try ClipLoudness.measure(path: path)
                XCTFail("\(path) measured as \(l)")
            } catch {
                print("ClipLoudness \(path): \(error)")
                XCTAssertEqual(error, expected, "reported as itself")
            }
        }
        let caf = CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/coin-ima4.caf").path
        XCTAssertEqual(try XCTUnwrap(ClipLoudness.measure(path: caf).lufs), -10.31, accuracy: 0.05,
                       "an IMA4 CAF, which only the clip decoder reads, is still measured")
        // The same cut short: the clip decoder's own error, not the stream decoder's refusal.
        let cafBytes = try Data(contentsOf: URL(fileURLWithPath: caf)), cutCAF = f.path("cut.caf")
        try cafBytes.prefix(cafBytes.count / 2).write(to: URL(fileURLWithPath: cutCAF))
        var clipError: EarshotError?
        do { _ = try ClipDecoder.decode(path: cutCAF) } catch { clipError = error }
        let expected = try XCTUnwrap(clipError, "the clip decoder refuses a cut CAF")
        XCTAssertThrowsError(try ClipLoudness.measure(path: cutCAF)) { e in
            print("ClipLoudness cut.caf: \(e)")
            XCTAssertEqual(e as? EarshotError, expected)
        }
    }

    /// Two ids of one file (a at −6 dB, b at 0 dB) whose gains a save swaps: a's loop steps
    /// +6.02 dB to b's old level (it stayed: moved to 1 as a's, then matched again as b's voice
    /// at 1 and moved back to 0.5); at the engine, each handle's voice takes the other's gain.
    func testABankSaveSwappingTwoIdsOfOneFileMovesEachVoiceOnce() throws {
        let f = try BankFixture("clipfollow-swap")
        defer { f.remove() }
        try SoxTone.write(to: f.path("audio/hum.wav"), frequency: 1000, amplitude: 0.05, seconds: 3, channels: 2)
        let path = try f.write("bank.yaml", """
            clips:
              a: { file: audio/hum.wav, gain: -6 }
              b: { file: audio/hum.wav, gain: 0 }
            sounds:
              aLoop: { clips: [a], loop: true }
            """)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        defer { bank.unload() }
        XCTAssertNotNil(try bank.play("aLoop"))
        let before = try Self.lufs(BankFixture.frames(engine, 60), from: 0.1, to: 1)
        let now = try String(contentsOfFile: path, encoding: .utf8)
        try f.write("bank.yaml", now.replacingOccurrences(of: "gain: -6 }", with: "gain: X }")
            .replacingOccurrences(of: "gain: 0 }", with: "gain: -6 }").replacingOccurrences(of: "gain: X }", with: "gain: 0 }"))
        XCTAssertEqual(try bank.reload().changed.sorted(), ["clips.a", "clips.b"])
        let after = try Self.lufs(BankFixture.frames(engine, 60), from: 0.1, to: 1)
        print("two ids of one file swapped by a save: a's loop \(before) → \(after) LUFS (\(after - before) dB)")
        XCTAssertEqual(after - before, 6.02, accuracy: 0.3, "a's voice at a's new gain, moved once")

        let hum = try engine.loadClip(path: CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/hum-loop.wav").path)
        let (soft, loud) = (try hum.withGain(0.5), hum)
        let s = try engine.play(soft, options: .init(loop: true)), l = try engine.play(loud, options: .init(loop: true))
        XCTAssertEqual(try engine.redefineGains([(of: soft, as: loud), (of: loud, as: soft)]), 2)
        XCTAssertEqual(try XCTUnwrap(s.gain), 1, accuracy: 1e-6, "the soft handle's voice at 1")
        XCTAssertEqual(try XCTUnwrap(l.gain), 0.5, accuracy: 1e-6, "the loud handle's voice at 0.5")
    }

    /// A loop muted by an edit of its clip handle's gain to 0, then set to 0.5: heard at
    /// −6.02 dB of its level before the mute (it stayed silent: scaled by 0, the edit back found
    /// no level to scale) — for a plain voice and one under a −6 dB gain curve.
    func testAClipMutedByAnEditComesBack() throws {
        let f = try BankFixture("clipfollow-mute")
        defer { f.remove() }
        try SoxTone.write(to: f.path("audio/hum.wav"), frequency: 1000, amplitude: 0.1, seconds: 3, channels: 2)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        try engine.defineParameter(ParameterDefinition(name: "speed", range: 0...1))
        let hum = try engine.loadClip(path: f.path("audio/hum.wav"))
        var d = SoundDefinition(clips: [hum], loop: true)
        d.curves = [ParameterCurve(parameter: "speed", property: .gain, points: [.init(0, -6), .init(1, -6)])]
        let curved = try engine.makeSound(d)
        func rms(_ x: [Float]) -> Double { (x.reduce(0.0) { $0 + Double($1 * $1) } / Double(max(x.count, 1))).squareRoot() }
        func dB(_ v: Double) -> Double { 20 * log10(max(v, 1e-12)) }
        var steps: [(muted: Double, back: Double)] = []
        for play in [{ try engine.play(hum, options: .init(loop: true)) }, { try engine.play(curved) }] {
            let v = try play()
            let before = rms(try BankFixture.frames(engine, 12).suffix(4_800))
            XCTAssertEqual(try engine.redefineGain(of: hum, as: hum.withGain(0)), 1)
            let muted = rms(try BankFixture.frames(engine, 12).suffix(4_800))
            XCTAssertEqual(try engine.redefineGain(of: hum.withGain(0), as: hum.withGain(0.5)), 1)
            let back = rms(try BankFixture.frames(engine, 12).suffix(4_800))
            XCTAssertEqual(try engine.redefineGain(of: hum.withGain(0.5), as: hum), 1)
            steps.append((dB(muted) - dB(before), dB(back) - dB(before)))
            v.stop()
            _ = try BankFixture.frames(engine, 10)
        }
        print("a clip muted by an edit, then set to 0.5 (dB re before; plain, under a curve): \(steps)")
        for s in steps {
            XCTAssertLessThan(s.muted, -100, "muted")
            XCTAssertEqual(s.back, -6.02, accuracy: 0.2, "back at the new gain of its level")
        }
    }
}
