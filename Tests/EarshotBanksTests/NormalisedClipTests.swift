import Earshot
import EarshotBanks
import EarshotContent
import EarshotScenes
import EarshotTestSupport
import XCTest

/// A clip's own `loudness:` (issue 40): `clips: { id: { file:, loudness: -23, gain: } }` in a
/// scene and in a bank. Stereo sine files 31 dB apart made by sox, rendered on loopback and
/// measured with the project's libebur128 meter: each normalised clip renders at its target
/// through every play path (a scene's `play:` of the clip, a sound, a sound picking among clips,
/// a layer), a plain clip is unchanged, and a sound's own `loudness:` wins over its clip's.
final class NormalisedClipTests: XCTestCase {
    /// Stereo 1 kHz sines: `quiet` 3 s at 0.02 (integrated basis), `loud` 1 s at 0.7 (a one-shot
    /// under 3 s: max momentary basis).
    private func files(_ f: BankFixture) throws {
        try SoxTone.write(to: f.path("audio/quiet.wav"), frequency: 1000, amplitude: 0.02, seconds: 3, channels: 2)
        try SoxTone.write(to: f.path("audio/loud.wav"), frequency: 1000, amplitude: 0.7, seconds: 1, channels: 2)
    }

    private static let clips = """
        clips:
          quiet: { file: audio/quiet.wav, loudness: -23 }
          loud: { file: audio/loud.wav, loudness: -23 }
          softer: { file: audio/loud.wav, loudness: -23, gain: -6 }
          raw: audio/loud.wav

        """

    /// Integrated and max momentary loudness of `samples` (stereo, 48 kHz) from `a` to `b` seconds.
    private static func loudness(_ samples: [Float], from a: Double, to b: Double) throws -> (integrated: Double, maxMomentary: Double) {
        let m = try LoudnessMeter(channels: 2, sampleRate: 48_000, truePeak: false)
        try m.add(Array(samples[(Int(a * 48_000) * 2)..<(Int(b * 48_000) * 2)]))
        return (try XCTUnwrap(m.integrated), try XCTUnwrap(m.maxMomentary))
    }

    func testANormalisedClipRendersAtItsTargetThroughAScene() throws {
        let f = try BankFixture("clipnorm-scene")
        defer { f.remove() }
        try files(f)
        let path = try f.write("scene.yaml", Self.clips + """
            duration: 7.2
            sounds:
              louder: { clips: [quiet], loudness: -18 }
            events:
              - { at: 0, play: quiet }
              - { at: 3.2, play: loud }
              - { at: 4.2, play: raw }
              - { at: 5.2, play: softer }
              - { at: 6.2, play: louder }
            """)
        let out = f.path("scene.wav")
        try SceneRenderer(scene: Scene.load(path: path)).render(to: out, format: .f32)
        let x = try SndFileDecoder.decode(path: out).floatSamples()
        let raw = try XCTUnwrap(ClipLoudness.measure(path: f.path("audio/loud.wav")).lufs)
        let quiet = try Self.loudness(x, from: 0.1, to: 3.0).integrated
        let loud = try Self.loudness(x, from: 3.2, to: 4.2).maxMomentary
        let plain = try Self.loudness(x, from: 4.2, to: 5.2).maxMomentary
        let softer = try Self.loudness(x, from: 5.2, to: 6.2).maxMomentary
        let louder = try Self.loudness(x, from: 6.2, to: 7.2).maxMomentary
        print("scene: quiet \(quiet), loud \(loud), raw \(plain) (file \(raw)), softer \(softer), louder \(louder)")
        XCTAssertEqual(quiet, -23, accuracy: 0.5, "the quiet file (−35 LUFS) raised to −23")
        XCTAssertEqual(loud, -23, accuracy: 0.5, "the loud file (−4 LUFS) lowered to −23")
        XCTAssertEqual(plain, raw, accuracy: 0.3, "a clip without loudness: plays as recorded")
        XCTAssertEqual(softer, -29, accuracy: 0.5, "the same file under another id: its own target, then gain −6")
        XCTAssertEqual(louder, -18, accuracy: 0.5, "a sound's own loudness: is what is heard")
    }

    /// A `set:` of an emitter's gain sets the emitter's gain: its voice keeps its clip's
    /// normalisation (and a sound its `loudness:`), so −6 dB is heard as −6 dB.
    func testASetOfAnEmittersGainKeepsItsVoicesLevel() throws {
        let f = try BankFixture("clipnorm-set")
        defer { f.remove() }
        try files(f)
        let path = try f.write("scene.yaml", Self.clips + """
            duration: 4
            sounds: { louder: { clips: [quiet], loudness: -18 } }
            emitters:
              a: { clip: quiet, position: [0, 0, -1], loop: true }
              b: { clip: louder, position: [0, 0, -1], loop: true, start: 2 }
            events:
              - { at: 1, set: a, gain: 0.5 }
              - { at: 2, stop: a }
              - { at: 3, set: b, gain: 0.5 }
            """)
        let out = f.path("set.wav")
        try SceneRenderer(scene: Scene.load(path: path)).render(to: out, format: .f32)
        let x = try SndFileDecoder.decode(path: out).floatSamples()
        let a0 = try Self.loudness(x, from: 0.2, to: 1).integrated, a1 = try Self.loudness(x, from: 1.2, to: 2).integrated
        let b0 = try Self.loudness(x, from: 2.2, to: 3).integrated, b1 = try Self.loudness(x, from: 3.2, to: 4).integrated
        print("set: clip \(a0) → \(a1), sound \(b0) → \(b1)")
        XCTAssertEqual(a1 - a0, -6.02, accuracy: 0.2, "the normalised clip, set to gain 0.5")
        XCTAssertEqual(b1 - b0, -6.02, accuracy: 0.2, "the normalised sound, set to gain 0.5")
        XCTAssertEqual(b0 - a0, 5, accuracy: 0.3, "the sound's −18 over the clip's −23, placed alike")
    }

    func testANormalisedClipRendersAtItsTargetThroughABank() throws {
        let f = try BankFixture("clipnorm-bank")
        defer { f.remove() }
        try files(f)
        let path = try f.write("bank.yaml", Self.clips + """
            sounds:
              q: { clips: [quiet] }
              l: { clips: [loud] }
              r: { clips: [raw] }
              pick: { clips: [loud, quiet], select: sequence }
              layer: { layers: [ { clip: softer } ] }
            """)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        let raw = try XCTUnwrap(ClipLoudness.measure(path: f.path("audio/loud.wav")).lufs)
        func played(_ name: String, frames: Int = 60) throws -> [Float] {
            XCTAssertNotNil(try bank.play(name))
            defer { engine.stopAllVoices() }
            return try BankFixture.frames(engine, frames)
        }
        let q = try Self.loudness(played("q", frames: 150), from: 0, to: 2.5).integrated
        let l = try Self.loudness(played("l"), from: 0, to: 1).maxMomentary
        let r = try Self.loudness(played("r"), from: 0, to: 1).maxMomentary
        let pick1 = try Self.loudness(played("pick"), from: 0, to: 1).maxMomentary
        let pick2 = try Self.loudness(played("pick"), from: 0, to: 1).maxMomentary
        let layer = try Self.loudness(played("layer"), from: 0, to: 1).maxMomentary
        print("bank: q \(q), l \(l), r \(r) (file \(raw)), pick \(pick1) \(pick2), layer \(layer)")
        XCTAssertEqual(q, -23, accuracy: 0.5)
        XCTAssertEqual(l, -23, accuracy: 0.5)
        XCTAssertEqual(r, raw, accuracy: 0.3, "a clip without loudness: plays as recorded")
        XCTAssertEqual(pick1, -23, accuracy: 0.5, "a sound picking among normalised clips: each at its target")
        XCTAssertEqual(pick2, -23, accuracy: 0.5)
        XCTAssertEqual(layer, -29, accuracy: 0.5, "a layer of a normalised clip, then its gain −6")
        // A save that moves a clip's target: the sounds that play it are heard at the new one.
        try f.write("bank.yaml", try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "loud: { file: audio/loud.wav, loudness: -23 }", with: "loud: { file: audio/loud.wav, loudness: -30 }"))
        let changes = try bank.reload()
        XCTAssertEqual(changes.changed, ["clips.loud"], "\(changes)")
        let reloaded = try Self.loudness(played("l"), from: 0, to: 1).maxMomentary
        XCTAssertEqual(reloaded, -30, accuracy: 0.5, "after the save")
        bank.unload()
    }

    func testClipLevelsAreCheckedWhereTheyAreWritten() throws {
        let f = try BankFixture("clipnorm-keys")
        defer { f.remove() }
        try files(f)
        try SoxTone.write(to: f.path("audio/faint.wav"), frequency: 1000, amplitude: 0.0005, seconds: 1, channels: 2)
        let cases: [(String, String, String)] = [
            ("{ file: audio/loud.wav, loudness: .nan }", "clips.c.loudness", "expected a number"),
            ("{ file: audio/loud.wav, loudness: 3 }", "clips.c.loudness", "out of range"),
            ("{ file: audio/loud.wav, loudness: -71 }", "clips.c.loudness", "out of range"),
            ("{ file: audio/loud.wav, gain: 30 }", "clips.c.gain", "out of range"),
            ("{ file: audio/loud.wav, gain: .inf }", "clips.c.gain", "expected a number"),
            ("{ loudness: -23 }", "clips.c.file", "required key is missing"),
            ("{ file: audio/loud.wav, lufs: -23 }", "clips.c.lufs", "unknown key"),
            ("{ file: audio/faint.wav, loudness: -10 }", "clips.c.loudness", "more than the +24.1 dB"),
        ]
        for (value, key, reason) in cases {
            for kind in ["scene", "bank"] {
                let path = try f.write("\(kind).yaml", (kind == "scene" ? "duration: 1\n" : "") + "clips: { c: \(value) }\n")
                do {
                    _ = kind == "scene" ? try Scene.load(path: path).clips : try SceneBank.load(path: path).clips
                    XCTFail("\(kind) \(value) accepted")
                } catch let SceneError.invalid(_, _, _, k, r) {
                    XCTAssertEqual(k, key, "\(kind) \(value): \(r)")
                    XCTAssertTrue(r.contains(reason), "\(kind) \(value): \(r)")
                }
            }
        }
        // The engine's own rule, for handles made in code.
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let clip = try engine.loadClip(path: f.path("audio/loud.wav"))
        for bad: Float in [.nan, .infinity, -1, 16.5] { XCTAssertThrowsError(try clip.withGain(bad), "\(bad)") }
        XCTAssertEqual(try clip.withGain(16).gain, 16)
        XCTAssertNotEqual(try clip.withGain(0.5), clip, "a handle's gain is part of its value")
    }

    /// An Apple IMA4 CAF clip (which only Earshot's clip decoder reads) is measured from what the
    /// clip decoder gives, so it can be normalised: the same loudness as ffmpeg's decode of it.
    func testAnIMA4ClipIsMeasuredAsItDecodes() throws {
        let f = try BankFixture("clipnorm-ima4")
        defer { f.remove() }
        let caf = CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/coin-ima4.caf").path
        let wav = f.path("coin.wav")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-hide_banner", "-loglevel", "error", "-y", "-i", caf, "-c:a", "pcm_f32le", wav]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let ours = try ClipLoudness.measure(path: caf), ffmpegs = try ClipLoudness.measure(path: wav)
        print("ima4: \(ours), ffmpeg's decode \(ffmpegs)")
        XCTAssertEqual(ours.basis, .maxMomentary)
        XCTAssertEqual(try XCTUnwrap(ours.lufs), try XCTUnwrap(ffmpegs.lufs), accuracy: 0.1)
    }

    func testValidateListsEachClipsLoudnessTargetAndGain() throws {
        let f = try BankFixture("clipnorm-validate")
        defer { f.remove() }
        try files(f)
        let path = try f.write("scene.yaml", Self.clips + """
            duration: 1
            sounds: { louder: { clips: [quiet], loudness: -18 } }
            events: [ { at: 0, play: louder }, { at: 0, play: loud }, { at: 0, play: softer }, { at: 0, play: raw } ]
            """)
        let r = try CLIRunner.run("earshot", ["validate", path, "--loudness"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // sox's sines: −34.0 LUFS over 3 s, −3.1 LUFS at their loudest 400 ms.
        XCTAssertTrue(r.stdout.contains("  quiet: -34.0 LUFS integrated, target -23.0 LUFS: +11.0 dB\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  loud: -3.1 LUFS max momentary, target -23.0 LUFS: -19.9 dB\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  softer: -3.1 LUFS max momentary, target -23.0 LUFS: -19.9 dB, then its gain -6.0 dB\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  raw: -3.1 LUFS max momentary\n"), r.stdout)
        // The mix warning counts each clip at the level it plays: nothing near full scale here.
        XCTAssertFalse(r.stderr.contains("over full scale"), r.stderr)
        // The sound measures its clip as it plays: at −23, so +5 dB to −18.
        XCTAssertTrue(r.stdout.contains("  louder: clips -23.0 LUFS, target -18.0 LUFS: +5.0 dB"), r.stdout)
    }
}
