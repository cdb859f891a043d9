import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Scenes with `sounds:`, `snapshots:` and `buses:` (issue 15), rendered and measured; their
/// validation; `earshot info` on a scene.
final class SceneMixTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// Three tones (400, 600, 900 Hz, 0.1 s) as clips a, b, c.
    private func tones() throws -> String {
        var lines = "clips:\n"
        for (id, f) in [("a", 400), ("b", 600), ("c", 900)] {
            let path = tmp.appendingPathComponent("\(id).wav").path
            try SoxTone.write(to: path, frequency: f, amplitude: 0.4, seconds: 0.1)
            lines += "  \(id): \(path)\n"
        }
        return lines
    }

    private func render(_ yaml: String, name: String = "scene.yaml") throws -> (RenderedAudio, String) {
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, name: name, in: tmp))
        let out = tmp.appendingPathComponent("rendered-" + (name as NSString).deletingPathExtension + ".wav").path
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        return (try RenderedAudio(path: out), out)
    }

    /// `select: shuffle` over three pitches: every block of three plays holds all three; the same
    /// seed renders a bit-identical file, another seed another order.
    func testShuffledSoundBlocksAndSeeds() throws {
        let clips = try tones()
        func scene(seed: Int) -> String {
            """
            duration: 2.5
            seed: \(seed)
            \(clips)sounds:
              s: { clips: [a, b, c], select: shuffle }
            events:
              - { at: 0.1, play: s, every: 0.2, count: 12 }
            """
        }
        func order(_ audio: RenderedAudio) -> [Int] {
            (0..<12).map { k -> Int in
                let t = 0.1 + 0.2 * Double(k)
                let f = audio.frequency(t + 0.01, t + 0.09)
                return [400, 600, 900].min { abs(Double($0) - f) < abs(Double($1) - f) } ?? 0
            }
        }
        let (a, _) = try render(scene(seed: 3), name: "a.yaml")
        let first = order(a)
        for block in 0..<4 { XCTAssertEqual(Set(first[(block * 3)..<(block * 3 + 3)]), [400, 600, 900], "\(first)") }
        let (b, _) = try render(scene(seed: 3), name: "b.yaml")
        let differing = zip(a.samples, b.samples).enumerated().filter { $0.element.0 != $0.element.1 }
        XCTAssertTrue(a.samples.count == b.samples.count && differing.isEmpty,
                      "the same seed renders bit-identically: \(differing.count) samples differ, first at \(differing.first?.offset ?? -1) of \(a.samples.count)")
        let (c, _) = try render(scene(seed: 4), name: "c.yaml")
        XCTAssertNotEqual(order(c), first, "another seed, another order")
    }

    /// A scene sound limited to 3 played 20 times at once sounds like 3; its cooldown lets one of
    /// ten plays 50 ms apart through.
    func testLimitAndCooldownInAScene() throws {
        let tone = tmp.appendingPathComponent("t.wav").path
        try SoxTone.write(to: tone, frequency: 500, amplitude: 0.03, seconds: 1)
        let twenty = String(repeating: "  - { at: 1.0, play: three }\n", count: 20)
        let (audio, _) = try render("""
            duration: 3
            clips: { t: \(tone) }
            sounds:
              one: { clips: [t] }
              three: { clips: [t], limit: { count: 3, steal: oldest } }
              cool: { clips: [t], cooldown: 0.5 }
            events:
              - { at: 0.0, play: one }
              - { at: 2.0, play: cool, every: 0.05, count: 10 }
            """ + "\n" + twenty)
        let single = audio.rms(0.2, 0.8)
        XCTAssertEqual(audio.rms(1.2, 1.8) / single, 3, accuracy: 0.1, "three voices, not twenty")
        XCTAssertEqual(audio.rms(2.6, 2.9) / single, 1, accuracy: 0.05, "one of ten plays went through the cooldown")
    }

    /// A snapshot of −12 dB on sfx lowers it by 12 ± 0.5 dB after its fade and restores it; the
    /// voice bus's dialogue ducks a music track by its level, and it comes back.
    func testSnapshotAndDucksInAScene() throws {
        let sfx = tmp.appendingPathComponent("sfx.wav").path
        let talk = tmp.appendingPathComponent("talk.wav").path
        let theme = tmp.appendingPathComponent("theme.wav").path
        try SoxTone.write(to: sfx, frequency: 3_000, amplitude: 0.2, seconds: 1)
        try SoxTone.write(to: talk, frequency: 1_000, amplitude: 0.2, seconds: 1)
        try SoxTone.write(to: theme, frequency: 220, amplitude: 0.2, seconds: 1)
        let (audio, _) = try render("""
            duration: 8
            clips: { sfx: \(sfx), talk: \(talk) }
            music: { theme: { file: \(theme), loops: -1 } }
            emitters:
              hum: { clip: sfx, loop: true, position: [0, 0, -1] }
            buses:
              voice: { ducks: { music: { level: -12, attack: 0.1, release: 0.4, threshold: -30, hold: 0 } } }
            snapshots:
              quiet: { buses: { sfx: { gain: -12 } } }
            events:
              - { at: 0, music: theme, action: play }
              - { at: 1, snapshot: quiet, action: begin, fade: 0.3 }
              - { at: 2, snapshot: quiet, action: end, fade: 0.3 }
              - { at: 4, play: talk, bus: voice }
            """)
        func band(_ f: Double, _ from: Double, _ to: Double) -> Double { audio.power(at: [f], from, to) }
        XCTAssertEqual(Level.dB(power: band(3_000, 1.4, 1.9) / band(3_000, 0.4, 0.9)), -12, accuracy: 0.5, "the snapshot on sfx")
        XCTAssertEqual(Level.dB(power: band(3_000, 2.5, 3.5) / band(3_000, 0.4, 0.9)), 0, accuracy: 0.5, "restored")
        XCTAssertEqual(Level.dB(power: band(220, 1.4, 1.9) / band(220, 0.4, 0.9)), 0, accuracy: 0.5, "music untouched by the sfx snapshot")
        XCTAssertEqual(Level.dB(power: band(220, 4.2, 4.9) / band(220, 3.0, 3.9)), -12, accuracy: 1, "dialogue ducks the music")
        XCTAssertEqual(Level.dB(power: band(220, 5.6, 6.5) / band(220, 3.0, 3.9)), 0, accuracy: 1, "and it comes back after the release")
        XCTAssertEqual(Level.dB(power: band(3_000, 4.2, 4.9) / band(3_000, 3.0, 3.9)), 0, accuracy: 0.5, "effects unchanged by the ducking")
    }

    /// `play:` takes `bus:` and `offset:`; a bus of `buses:` is made and has a lane in the plot.
    func testPlayBusOffsetAndOwnBusLane() throws {
        let two = tmp.appendingPathComponent("two.wav").path
        // 1 s at 400 Hz then 1 s at 1200 Hz: an offset of 1.2 s plays the second part.
        try SoxTone.write(to: two, frequency: 400, amplitude: 0.3, seconds: 1)
        let high = tmp.appendingPathComponent("high.wav").path
        try SoxTone.write(to: high, frequency: 1_200, amplitude: 0.3, seconds: 1)
        let joined = tmp.appendingPathComponent("joined.wav").path
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [two, high, joined]
        try sox.run()
        sox.waitUntilExit()
        let yaml = """
            duration: 2
            clips: { j: \(joined) }
            buses: { footsteps: { gain: -6 } }
            events:
              - { at: 0.1, play: j, offset: 1.2 }
              - { at: 1.0, play: j, offset: 1.2, bus: footsteps }
            """
        let path = try SceneFixtures.write(yaml, in: tmp)
        let out = tmp.appendingPathComponent("o.wav").path, plot = tmp.appendingPathComponent("o.svg").path
        let r = try CLIRunner.run("earshot", ["render", path, "-o", out, "--plot", plot])
        XCTAssertEqual(r.status, 0, r.stderr)
        let audio = try RenderedAudio(path: out)
        XCTAssertEqual(audio.frequency(0.2, 0.8), 1_200, accuracy: 12)
        XCTAssertLessThan(audio.rms(0.92, 0.98), 1e-3, "0.8 s of clip left after the offset")
        XCTAssertEqual(Level.dB(audio.rms(1.1, 1.7) / audio.rms(0.2, 0.8)), -6, accuracy: 0.1, "−6 dB of the footsteps bus")
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        XCTAssertTrue(svg.contains("footsteps"), "the scene's own bus has a lane")
    }

    /// An emitter may play a sound (its limit applies to each start); `loops:` repeats a play.
    func testEmitterPlaysASoundAndPlayLoops() throws {
        let clips = try tones()
        let (audio, _) = try render("""
            duration: 2
            \(clips)sounds:
              s: { clips: [a, b, c], select: sequence }
            emitters:
              near: { clip: s, loop: true, position: [0, 0, -1] }
            events:
              - { at: 0.5, stop: near }
              - { at: 1.0, play: b, loops: 3 }
            """)
        XCTAssertEqual(audio.frequency(0.01, 0.09), 400, accuracy: 8, "the sequence's first clip")
        XCTAssertEqual(audio.frequency(0.31, 0.39), 400, accuracy: 8, "looping the clip it picked")
        XCTAssertLessThan(audio.rms(0.6, 0.95), 1e-3)
        XCTAssertEqual(audio.frequency(1.05, 1.35), 600, accuracy: 8)
        XCTAssertGreaterThan(audio.rms(1.3, 1.39), 0.05, "the fourth pass (1.3–1.4 s) plays")
        XCTAssertLessThan(audio.rms(1.42, 1.6), 1e-3, "and nothing after it")
    }

    /// A sound nobody plays is a warning; its clips count as used when it is played.
    func testUnplayedSoundWarnsAndPlayedSoundsUseTheirClips() throws {
        let clips = try tones()
        let path = try SceneFixtures.write("""
            duration: 1
            \(clips)sounds:
              idle: { clips: [a] }
              busy: { clips: [b, c] }
            events:
              - { at: 0, play: busy }
            """, in: tmp)
        let warnings = try Scene.load(path: path).warnings().map(\.description)
        XCTAssertTrue(warnings.contains { $0.contains("sounds.idle: never played") }, "\(warnings)")
        XCTAssertFalse(warnings.contains { $0.contains("clips.b") || $0.contains("clips.c") }, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.contains("clips.a") }, "a clip only an unplayed sound names is unused: \(warnings)")
    }

    /// An emitter playing a sound takes the sound's loop unless it says otherwise; a play whose
    /// offset is past a clip the sound may pick is refused before anything renders; the bus
    /// limit counts the built-in buses.
    func testEmitterTakesTheSoundsLoopAndTimingIsCheckedUpFront() throws {
        let clips = try tones()
        let (audio, _) = try render("""
            duration: 1
            \(clips)sounds:
              hum: { clips: [a], loop: true }
            emitters:
              e: { clip: hum, position: [0, 0, -1] }
            """)
        XCTAssertGreaterThan(audio.rms(0.5, 0.9), 0.05, "the sound's loop: true holds on the emitter")

        let path = try SceneFixtures.write("""
            duration: 1
            \(clips)sounds:
              s: { clips: [a, b] }
            events:
              - { at: 0.5, play: s, offset: 0.2 }
            """, name: "late.yaml", in: tmp)
        // Refused when the scene is validated (issue 24: validate ok ⇒ render starts), at the
        // play event's offset, before any render begins.
        XCTAssertThrowsError(try Scene.load(path: path)) { error in
            guard case .invalid(_, let line, _, let key, let reason)? = error as? SceneError else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 9, "the play event's line")
            XCTAssertEqual(key, "events[0].offset")
            XCTAssertTrue(reason.contains("not inside"), reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.appendingPathComponent("late.wav").path), "nothing written")

        let many = (0..<60).map { "  b\($0): {}" }.joined(separator: "\n")
        let tooMany = try SceneFixtures.write("duration: 1\nbuses:\n\(many)\n", name: "buses.yaml", in: tmp)
        guard case .failure(let problems) = Scene.check(path: tooMany) else { return XCTFail("65 buses accepted") }
        XCTAssertTrue(problems.description.contains("65 buses with the built-in ones"), problems.description)
    }

    func testMixKeysAreValidated() throws {
        let clips = try tones()
        let cases: [(String, String)] = [
            ("sounds: { a: { clips: [b] } }", "clips and sounds share one namespace"),
            ("sounds: { s: { clips: [a, x] } }", "no clip named \"x\""),
            ("sounds: { s: { clips: [a, b], weights: [1] } }", "1 weights for 2 clips"),
            ("sounds: { s: { clips: [a, b], select: shuffle, weights: [1, 2] } }", "weights apply to select: random only"),
            ("sounds: { s: { clips: [a, b], avoidRepeat: 2 } }", "needs more than 2 clips"),
            ("sounds: { s: { clips: [a], limit: { count: 2, steal: newest } } }", "limit.steal"),
            ("sounds: { s: { clips: [a], bus: dialog } }", "no bus named \"dialog\""),
            ("buses: { voice: { ducks: { musik: { level: -6 } } } }", "did you mean 'music'"),
            ("buses: { voice: { ducks: { voice: {} } } }", "cannot duck itself"),
            ("snapshots: { q: { buses: { nowhere: { gain: -6 } } } }", "no bus named \"nowhere\""),
            ("events:\n  - { at: 0, snapshot: q, action: begin }", "no snapshot"),
            ("events:\n  - { at: 0, play: a, bus: nowhere }", "no bus named"),
            ("events:\n  - { at: 0, play: zz }", "no clip or sound"),
            ("events:\n  - { at: 0, play: a, loops: 1001 }", "loops"),
        ]
        for (body, expected) in cases {
            let path = try SceneFixtures.write("duration: 1\n\(clips)\(body)\n", in: tmp)
            guard case .failure(let problems) = Scene.check(path: path) else {
                XCTFail("accepted: \(body)")
                continue
            }
            XCTAssertTrue(problems.description.contains(expected), "\(body): \(problems.description)")
        }
    }

    /// `earshot info SCENE` lists sounds with their limits, snapshots and buses (text and JSON).
    func testInfoListsSoundsLimitsAndSnapshots() throws {
        let r = try CLIRunner.run("earshot", ["info", SceneFixtures.path("mix.yaml")])
        XCTAssertEqual(r.status, 0, r.stderr)
        for expected in ["sounds:    2", "footstep: 3 clips [step, coin, beep], shuffle", "pitch ±100 cents", "gain ±3 dB",
                         "limit 3 (oldest)", "cooldown 0.05 s", "dialogue:", "limit 1 (refuse)", "snapshots: 1", "underwater: sfx -9 dB",
                         "voice: ducks music by 12 dB above -40 dBFS"] {
            XCTAssertTrue(r.stdout.contains(expected), "missing \(expected) in:\n\(r.stdout)")
        }
        let j = try CLIRunner.run("earshot", ["info", SceneFixtures.path("mix.yaml"), "--json"])
        XCTAssertEqual(j.status, 0, j.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any]
        let sounds = object?["sounds"] as? [[String: Any]]
        XCTAssertEqual(sounds?.first?["id"] as? String, "footstep")
        XCTAssertEqual((sounds?.first?["limit"] as? [String: Any])?["count"] as? Int, 3)
        let bad = try CLIRunner.run("earshot", ["info", SceneFixtures.write("duration: x\n", name: "bad.yaml", in: tmp)])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("bad.yaml:1:"), bad.stderr)
    }

    /// The demo scene renders: the dialogue ducks the music, the snapshot lowers the effects.
    func testMixDemoScene() throws {
        let (result, audio) = try SceneFixtures.render("mix.yaml", into: tmp)
        XCTAssertEqual(audio.frameCount, 8 * 48_000)
        XCTAssertGreaterThan(audio.rms(0.5, 1.5), 0.01)
        // The bus lanes' data: the dialogue (2.0–3.2 s and 3.6–4.8 s) ducks the music, the snapshot (4.5–6.5 s) the effects.
        let t = result.timeline
        func gain(_ bus: String, _ at: Double) -> Float {
            guard let b = t.buses.firstIndex(of: bus) else { return .nan }
            return t.busMinDB[b][t.column(at)]
        }
        XCTAssertEqual(gain("music", 1.0), 0, accuracy: 0.1)
        XCTAssertEqual(gain("music", 2.8), -12, accuracy: 0.5, "the dialogue ducks the music")
        XCTAssertEqual(gain("music", 5.8), 0, accuracy: 0.1, "and lets it back (the second line ends at 4.8 s; hold 0.1, release 0.6)")
        XCTAssertEqual(gain("sfx", 5.5), -9, accuracy: 0.1, "the snapshot lowers the effects")
        XCTAssertEqual(gain("sfx", 7.5), 0, accuracy: 0.1)
    }
}
