import Earshot
import EarshotContent
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 41 item 1 in scenes: `buses: { NAME: { parent: } }`, `vcas:` and `vca:` events read,
/// validated (cycles, unknown parents and members refused with their lines) and rendered — three
/// tones on `footsteps` (1 kHz), `vehicles` (2 kHz) and `ui` (3 kHz) measured by band power in
/// the rendered file.
final class SceneBusTreeTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func problems(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try SceneFixtures.problems(yaml, in: tmp, file: file, line: line)
    }

    func testTheTreeAndAVCAEventRender() throws {
        var clips = "clips:\n"
        for (id, hz) in [("f", 1_000), ("v", 2_000), ("u", 3_000)] {
            let path = tmp.appendingPathComponent("\(id).wav").path
            try SoxTone.write(to: path, frequency: hz, amplitude: 0.2, seconds: 2)
            clips += "  \(id): \(path)\n"
        }
        let path = try SceneFixtures.write("""
            duration: 2
            \(clips)buses:
              footsteps: { parent: gameplay, gain: -6 }
              gameplay: { gain: -6 }
              vehicles: { parent: gameplay }
            vcas:
              mix: { buses: [vehicles, ui] }
            events:
              - { at: 0, play: f, bus: footsteps }
              - { at: 0, play: v, bus: vehicles }
              - { at: 0, play: u, bus: ui }
              - { at: 1, vca: mix, gain: -10 }
            """, in: tmp)
        let scene = try Scene.load(path: path)
        XCTAssertEqual(scene.buses.map(\.parent), ["gameplay", nil, "gameplay"])
        XCTAssertEqual(scene.vcas, [SceneVCA(id: "mix", buses: ["vehicles", "ui"])])
        let out = tmp.appendingPathComponent("out.wav").path
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        func dB(_ hz: Double, _ from: Double, _ to: Double) -> Double { 10 * log10(audio.power(at: [hz], from, to)) }
        let footsteps = dB(1_000, 0.4, 0.9), vehicles = dB(2_000, 0.4, 0.9), ui = dB(3_000, 0.4, 0.9)
        let vehiclesAfter = dB(2_000, 1.4, 1.9), uiAfter = dB(3_000, 1.4, 1.9), footstepsAfter = dB(1_000, 1.4, 1.9)
        print("SceneBusTreeTests: footsteps − ui \(footsteps - ui) dB, vehicles − ui \(vehicles - ui) dB; after vca −10: vehicles \(vehiclesAfter - vehicles) dB, ui \(uiAfter - ui) dB, footsteps \(footstepsAfter - footsteps) dB")
        XCTAssertEqual(footsteps - ui, -12.0, accuracy: 0.1, "−6 of its own × −6 of gameplay")
        XCTAssertEqual(vehicles - ui, -6.0, accuracy: 0.1, "gameplay's −6")
        XCTAssertEqual(vehiclesAfter - vehicles, -10.0, accuracy: 0.1)
        XCTAssertEqual(uiAfter - ui, -10.0, accuracy: 0.1)
        XCTAssertEqual(footstepsAfter - footsteps, 0.0, accuracy: 0.1)
    }

    func testValidateRefusesCyclesUnknownParentsAndMembers() throws {
        let cycle = try problems("""
            duration: 1
            buses:
              a: { parent: b }
              b: { parent: a }
            """)
        XCTAssertTrue(cycle.contains("buses.a.parent") && cycle.contains("cycle"), cycle)
        XCTAssertTrue(cycle.contains(":3:"), "the line of a's parent: \(cycle)")
        XCTAssertTrue(try problems("duration: 1\nbuses:\n  a: { parent: gamplay }\n  gameplay: {}\n")
            .contains("no bus named \"gamplay\" (did you mean 'gameplay'?)"))
        XCTAssertTrue(try problems("duration: 1\nbuses:\n  a: { parent: a }\n").contains("its own parent"))
        var chain = "duration: 1\nbuses:\n  b0: {}\n"
        for i in 1...Bus.maxTreeDepth { chain += "  b\(i): { parent: b\(i - 1) }\n" }
        XCTAssertTrue(try problems(chain).contains("at most \(Bus.maxTreeDepth)"))
        XCTAssertTrue(try problems("duration: 1\nvcas:\n  g: { buses: [sfx, musik] }\n").contains("no bus named \"musik\""))
        XCTAssertTrue(try problems("duration: 1\nvcas:\n  g: { buses: [sfx, sfx] }\n").contains("named twice"))
        XCTAssertTrue(try problems("duration: 1\nvcas:\n  g: { buses: [] }\n").contains("1…64 bus names"))
        XCTAssertTrue(try problems("duration: 1\nvcas:\n  g: { gain: -3 }\n").contains("buses"))
        let event = try problems("duration: 1\nvcas:\n  gameplay: { buses: [sfx] }\nevents:\n  - { at: 0.5, vca: gamepley, gain: -6 }\n")
        XCTAssertTrue(event.contains("no VCA") && event.contains("gameplay"), event)
        XCTAssertTrue(try problems("duration: 1\nvcas:\n  g: { buses: [sfx] }\nevents:\n  - { at: 0.5, vca: g }\n")
            .contains("gain"))
    }
}

extension SceneBusTreeTests {
    /// `earshot render --plot`: the bus lanes' legend lists each group before its children, each
    /// child labelled with its group.
    func testThePlotLabelsChildrenWithTheirGroup() throws {
        let path = try SceneFixtures.write("""
            duration: 0.3
            clips: { beep: \(SceneFixtures.beep) }
            buses:
              footsteps: { parent: gameplay }
              gameplay: { gain: -6 }
            events:
              - { at: 0, play: beep, bus: footsteps }
            """, name: "tree.yaml", in: tmp)
        let svg = tmp.appendingPathComponent("tree.svg").path
        let r = try CLIRunner.run("earshot", ["render", path, "-o", tmp.appendingPathComponent("tree.wav").path, "--plot", svg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        let group = try XCTUnwrap(text.range(of: ">■ gameplay<"), "the group in the legend")
        let child = try XCTUnwrap(text.range(of: ">■ gameplay › footsteps<"), "the child labelled with its group")
        XCTAssertLessThan(group.lowerBound, child.lowerBound, "the group first")
    }
}

extension SceneBusTreeTests {
    /// `validate`'s limiter estimate hears a bus at its path's gain: loud plays on a child of a
    /// −40 dB group cannot reach the limiter; the same child under the master can.
    func testTheLimiterWarningHearsTheGroupsGain() throws {
        let tone = tmp.appendingPathComponent("loud.wav").path
        try SoxTone.write(to: tone, frequency: 1_000, amplitude: 0.5, seconds: 1)
        func warnings(parent: String) throws -> [String] {
            let path = try SceneFixtures.write("""
                duration: 2
                clips: { tone: \(tone) }
                buses:
                  group: { gain: -40 }
                  child: { \(parent) }
                events:
                  - { at: 0.5, play: tone, gain: 16, bus: child }
                  - { at: 0.5, play: tone, gain: 16, bus: child, pan: 0.5 }
                """, name: "limiter.yaml", in: tmp)
            return try Scene.load(path: path).warnings().filter { $0.key == "mix" }.map(\.description)
        }
        XCTAssertEqual(try warnings(parent: "parent: group"), [], "−40 dB above it")
        XCTAssertEqual(try warnings(parent: "gain: 0").count, 1, "under the master: it can")
    }
}
