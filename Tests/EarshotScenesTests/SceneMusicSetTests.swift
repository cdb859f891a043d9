import Earshot
import EarshotMeasure
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Music sets in scenes (issue 29): read, validated, rendered and measured; `at: { bar: N }`.
final class SceneMusicSetTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func tone(_ name: String, frequency: Int, seconds: Double = 8) throws -> String {
        let path = tmp.appendingPathComponent(name).path
        try SoxTone.write(to: path, frequency: frequency, amplitude: 0.3, seconds: seconds)
        return path
    }

    private func problems(_ yaml: String) throws -> String {
        let path = try SceneFixtures.write(yaml, in: tmp)
        guard case .failure(let p) = Scene.check(path: path) else { XCTFail("accepted: \(yaml)"); return "" }
        return p.description
    }

    private func set(_ explore: String, _ combat: String, rules: String = "- { from: explore, to: combat, at: nextBar }") -> String {
        """
        music:
          level:
            bpm: 120
            states:
              explore: { file: \(explore) }
              combat: { file: \(combat) }
            transitions:
              \(rules)
            stingers:
              hit: { file: \(combat) }
        """
    }

    /// Rendered: combat asked for at 2.7 s lands on the bar line at 4.0 s (the 1 kHz tone is
    /// absent in the 10 ms before it and at full level in the 10 ms after it); a beep placed on
    /// bar 4 is heard at 6.0 s; the plot's timeline holds the bar lines and the change.
    func testAStateChangeRendersOnTheBarLineAndABarEventOnItsBar() throws {
        let explore = try tone("explore.wav", frequency: 500)
        let combat = try tone("combat.wav", frequency: 1_000)
        let beep = try tone("beep.wav", frequency: 3_000, seconds: 0.2)
        let path = try SceneFixtures.write("""
            duration: 6.5
            clips:
              beep: \(beep)
            \(set(explore, combat))
            events:
              - { at: 0, music: level, state: explore }
              - { at: 2.7, music: level, state: combat }
              - { at: { bar: 4 }, play: beep }
            """, in: tmp)
        let scene = try Scene.load(path: path)
        XCTAssertEqual(scene.musicSets.first?.definition.states.map(\.name), ["explore", "combat"])
        XCTAssertEqual(scene.events.last?.time ?? 0, 6.0, accuracy: 1e-9, "bar 4 of 120 bpm 4/4 from 0 s")
        let out = tmp.appendingPathComponent("rendered.wav").path
        let result = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        let before = audio.power(at: [1_000], 3.99, 4.0), after = audio.power(at: [1_000], 4.0, 4.01)
        print("SceneMusicSetTests: 1 kHz power \(before) before 4.0 s, \(after) after")
        XCTAssertLessThan(before, after * 1e-6, "combat begins on the bar line")
        XCTAssertLessThan(audio.power(at: [500], 4.0, 4.01), audio.power(at: [500], 3.99, 4.0) * 1e-6, "explore stopped there")
        XCTAssertLessThan(audio.power(at: [3_000], 5.99, 6.0), audio.power(at: [3_000], 6.0, 6.01) * 1e-6, "the beep on bar 4")
        XCTAssertEqual(result.timeline.music.bars.map { ($0 * 1_000).rounded() / 1_000 }, [0, 2, 4, 6])
        XCTAssertEqual(result.timeline.music.changes.map(\.label), ["level: explore", "level: explore → combat"])
        XCTAssertEqual(result.timeline.music.changes.last?.time ?? 0, 4.0, accuracy: 1e-6)
        let svg = LevelPlot.svg(levels: result.levels, events: scene.events, title: "t", timeline: result.timeline)
        XCTAssertTrue(svg.contains("class=\"music-states\""))
        XCTAssertTrue(svg.contains("level: explore → combat"))
    }

    /// Stems from a scene: two identical stems sum to twice one (+6.02 dB) in the render, the
    /// stem at gain 0 adds nothing until a layer event fades it in, and a stinger event lands on
    /// the next beat.
    func testLayersLayerEventsAndStingersInARender() throws {
        let stem = try tone("stem.wav", frequency: 2_000, seconds: 2)
        let pads = try tone("pads.wav", frequency: 700, seconds: 2)
        let hit = try tone("hit.wav", frequency: 3_000, seconds: 0.2)
        let single = try SceneFixtures.write("""
            duration: 1
            music:
              one: { states: { s: { file: \(stem) } } }
            events:
              - { at: 0, music: one, action: play }
            """, in: tmp)
        let out1 = tmp.appendingPathComponent("one.wav").path
        _ = try SceneRenderer(scene: try Scene.load(path: single)).render(to: out1, format: .f32)
        let one = try RenderedAudio(path: out1).rms(0, 0.2, 0.8)
        let path = try SceneFixtures.write("""
            duration: 3
            music:
              m:
                bpm: 120
                states:
                  s: { layers: { a: { file: \(stem) }, b: { file: \(stem) }, pads: { file: \(pads), gain: 0 } } }
                stingers: { hit: { file: \(hit) } }
            events:
              - { at: 0, music: m, state: s }
              - { at: 1, music: m, layer: pads, volume: 1, fade: 0.5 }
              - { at: 2.1, music: m, stinger: hit, boundary: nextBeat }
            """, in: tmp)
        let out = tmp.appendingPathComponent("stems.wav").path
        _ = try SceneRenderer(scene: try Scene.load(path: path)).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        let two = audio.rms(0, 0.2, 0.8)
        let gain = Level.dB(two / one)
        print("SceneMusicSetTests: two stems \(gain) dB over one")
        XCTAssertEqual(gain, 6.02, accuracy: 0.05)
        XCTAssertLessThan(audio.power(at: [700], 0.2, 0.9), audio.power(at: [700], 1.6, 1.9) * 1e-6, "pads silent until faded in")
        XCTAssertLessThan(audio.power(at: [3_000], 2.49, 2.5), audio.power(at: [3_000], 2.5, 2.51) * 1e-6, "the stinger on the beat at 2.5 s")
    }

    func testValidationNamesWhatIsWrong() throws {
        let a = try tone("a.wav", frequency: 500, seconds: 1)
        let b = try tone("b.wav", frequency: 700, seconds: 1)
        func check(_ yaml: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let p = try problems(yaml)
            XCTAssertTrue(p.contains(expected), "\(p)\n— expected: \(expected)", file: file, line: line)
        }
        try check("duration: 1\n" + set(a, b, rules: "- { from: explore, to: combta }"),
                  "music.level.transitions[0].to: no state with id \"combta\" (did you mean 'combat'?)")
        try check("duration: 1\n" + set(a, b, rules: "- { to: combat, stinger: hat }"), "music.level.transitions[0].stinger: no stinger with id \"hat\"")
        try check("duration: 1\n" + set(a, b, rules: "- { to: combat, via: bridge }"), "music.level.transitions[0].via: no bridge with id \"bridge\"")
        try check("duration: 1\n" + set(a, b, rules: "- { to: combat, at: nextBar }\n      - { from: explore, to: combat, at: nextBeat }"),
                  "music.level.transitions[1]: this rule is never reached: rule [0]")
        try check("duration: 1\n" + set(a, b, rules: "- { from: combat, to: combat }"), "never applies")
        try check("duration: 1\n" + set(a, b, rules: "- { to: combat, at: nextBard }"), "music.level.transitions[0].at: \"nextBard\" is not one of")
        try check("duration: 1\n" + set(a, b) + "\nevents:\n  - { at: 0, music: level, state: victory }",
                  "events[0].state: no state of music set level with id \"victory\"")
        try check("duration: 1\n" + set(a, b) + "\nevents:\n  - { at: 0, music: level, layer: drums, volume: 1 }",
                  "events[0].layer: no layer of music set level with id \"drums\"")
        try check("duration: 1\n" + set(a, b) + "\nevents:\n  - { at: 0, music: level, state: combat, stinger: hit }",
                  "does one thing")
        try check("duration: 1\n" + set(a, b) + "\nevents:\n  - { at: 0, set: level, gain: 0.5 }", "is a music set")
        try check("duration: 1\nmusic:\n  t: { file: \(a) }\nevents:\n  - { at: 0, music: t, state: x }", "events[0].state: state applies to a music set")
        try check("duration: 1\nmusic:\n  t: { file: \(a) }\nevents:\n  - { at: 0, music: t }", "events[0].action: required key is missing")
        try check("duration: 9\nmusic:\n  t: { file: \(a) }\nevents:\n  - { at: 0, music: t, action: play }\n  - { at: { bar: 2 }, music: t, action: stop }",
                  "events[1].at.bar: no music with a tempo starts in this scene")
        try check("duration: 3\nmusic:\n  t: { file: \(a), bpm: 120 }\nevents:\n  - { at: 0, music: t, action: play }\n  - { at: { bar: 3 }, music: t, action: stop }",
                  "events[1].at.bar: bar 3 falls at 4 s, after the scene's end (3 s)")
        try check("duration: 1\nmusic:\n  t: { file: \(a), beatsPerBar: 3 }", "music.t.bpm: beatsPerBar: and offset: need bpm:")
        try check("duration: 1\nmusic:\n  s: { states: { x: { file: \(a), entry: drop } } }", "music.s.states.x.entry: no cue \"drop\"")
        try check("duration: 1\nmusic:\n  s: { states: { x: { file: \(a), segments: [ { file: \(b) } ] } } }", "give one of file:, segments: or layers:")
        try check("duration: 1\nmusic:\n  s: { states: {} }", "a music set needs at least one state")
    }

    /// A plain track's tempo and cues from the scene: bar and beat events on the engine's
    /// markers stream follow them (the level plot's bar lines).
    func testATracksTempoAndCuesFromTheScene() throws {
        let a = try tone("a.wav", frequency: 500, seconds: 4)
        let scene = try Scene.load(path: try SceneFixtures.write("""
            duration: 4
            music:
              t: { file: \(a), bpm: 90, beatsPerBar: 3, offset: 0.5, cues: { drop: 1.25 } }
            events:
              - { at: 0, music: t, action: play }
              - { at: { bar: 2 }, delay: 0.1, music: t, action: pause }
            """, in: tmp))
        XCTAssertEqual(scene.music.first?.tempo, Tempo(bpm: 90, beatsPerBar: 3, firstBeat: 0.5))
        XCTAssertEqual(scene.music.first?.cues, ["drop": 1.25])
        XCTAssertEqual(scene.events.last?.time ?? 0, 0.5 + 2 + 0.1, accuracy: 1e-9, "bar 2 (0.5 s + three beats of 2/3 s), then the delay")
        let result = try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("t.wav").path, format: .f32)
        XCTAssertEqual(result.timeline.music.bars.map { ($0 * 1_000).rounded() / 1_000 }, [0.5, 2.5])
    }
}

extension SceneMusicSetTests {
    /// `earshot info` prints the demo's set (states, tempo, rules); `validate` passes it and
    /// refuses an unreachable rule with exit status 1.
    func testInfoAndValidateOfTheAdaptiveDemo() throws {
        let demo = CLIRunner.packageRoot.appendingPathComponent("Demos/Scenes/adaptive.yaml").path
        let info = try CLIRunner.run("earshot", ["info", demo])
        XCTAssertEqual(info.status, 0, info.stderr)
        for line in ["music sets: 1", "state explore: track theme.ogg, 120 bpm, 4 beats a bar",
                     "state combat: layers drums drums.ogg, bass bass.ogg gain 0, 120 bpm",
                     "state victory: segments fanfare.ogg → theme.ogg (the last loops)",
                     "transition explore → combat at nextBar, fade 0.5 s equalPower, stinger hit",
                     "transition combat → victory at end"] {
            XCTAssertTrue(info.stdout.contains(line), "\(line)\n\(info.stdout)")
        }
        let json = try CLIRunner.run("earshot", ["info", "--json", demo])
        XCTAssertTrue(json.stdout.contains("\"musicSets\""), json.stdout)
        let ok = try CLIRunner.run("earshot", ["validate", demo])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.contains("1 music sets"), ok.stdout)
        let text = try String(contentsOfFile: demo, encoding: .utf8)
            .replacingOccurrences(of: "- { from: \"*\", to: explore, at: nextBar, fade: 1 }",
                                  with: "- { from: \"*\", to: explore, at: nextBar, fade: 1 }\n      - { from: victory, to: explore }")
            .replacingOccurrences(of: "../../Assets", with: CLIRunner.packageRoot.appendingPathComponent("Assets").path)
        let bad = try SceneFixtures.write(text, in: tmp)
        let refused = try CLIRunner.run("earshot", ["validate", bad])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("music.level.transitions[3]: this rule is never reached: rule [2]"), refused.stderr)
    }
}

extension SceneMusicSetTests {
    /// The file's own cue points are cues of its segment: `at: nextCue` lands on a WAV `cue `
    /// point (1.25 s) and `entry:` may name one (combat starts from its 0.5 s cue).
    func testFileMarkersAreCues() throws {
        let explore = try tone("explore.wav", frequency: 500, seconds: 4)
        let combat = try tone("combat.wav", frequency: 1_000, seconds: 4)
        try CueWAV.addCues([(name: "drop", frame: 60_000)], to: explore)
        try CueWAV.addCues([(name: "in", frame: 24_000)], to: combat)
        let scene = try Scene.load(path: try SceneFixtures.write("""
            duration: 2
            music:
              level:
                states:
                  explore: { file: \(explore) }
                  combat: { file: \(combat), entry: in }
                transitions:
                  - { to: combat, at: nextCue }
            events:
              - { at: 0, music: level, state: explore }
              - { at: 1.0, music: level, state: combat }
            """, in: tmp))
        let out = tmp.appendingPathComponent("cues.wav").path
        let result = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        XCTAssertEqual(result.timeline.music.changes.last?.time ?? 0, 1.25, accuracy: 1e-6)
        XCTAssertLessThan(audio.power(at: [1_000], 1.24, 1.25), audio.power(at: [1_000], 1.25, 1.26) * 1e-6)
        XCTAssertLessThan(audio.power(at: [500], 1.25, 1.26), audio.power(at: [500], 1.24, 1.25) * 1e-6)
        XCTAssertTrue(try problems("""
            duration: 1
            music:
              level: { states: { combat: { file: \(combat), entry: nope } } }
            """).contains("no cue \"nope\" (cues: in)"))
    }
}

extension SceneMusicSetTests {
    /// Warnings: a set no event starts; a rule whose `from` state no event enters.
    func testWarningsForSetsAndRulesThatNeverPlay() throws {
        let a = try tone("a.wav", frequency: 500, seconds: 1)
        let b = try tone("b.wav", frequency: 700, seconds: 1)
        let silent = try Scene.load(path: try SceneFixtures.write("duration: 1\n" + set(a, b), in: tmp))
        XCTAssertTrue(silent.warnings().contains { $0.key == "music.level" && $0.message.hasPrefix("never plays") }, "\(silent.warnings())")
        let rules = try Scene.load(path: try SceneFixtures.write("duration: 1\n" + set(a, b, rules: "- { from: combat, to: explore }")
                                                                  + "\nevents:\n  - { at: 0, music: level, state: explore }", in: tmp))
        let w = rules.warnings().map(\.description)
        XCTAssertTrue(w.contains { $0.contains("music.level: transitions[0] (from combat) never applies in this scene: no event enters combat") }, "\(w)")
        let demo = try Scene.load(path: CLIRunner.packageRoot.appendingPathComponent("Demos/Scenes/adaptive.yaml").path)
        XCTAssertEqual(demo.warnings().map(\.description), [], "the demo does what it says")
    }
}
