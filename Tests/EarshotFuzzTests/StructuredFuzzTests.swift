import Earshot
import EarshotFuzzing
import EarshotTestSupport
import XCTest

/// The bounded runs of issue 24's structured fuzzers (a few seconds each; the long runs are
/// `make fuzz-values`, recorded in Tests/Fuzz/README.md). Any trap ends the test process.
final class StructuredFuzzTests: XCTestCase {
    private var assets: String { CLIRunner.packageRoot.appendingPathComponent("Assets").path }

    /// Scenes from every documented key at and around its range edges: validate ok ⇒ render ok,
    /// finite output.
    func testSceneValuesBounded() {
        // Offsets reach past the shortest clip's end (0.14 s): validate and render share one
        // checker (PlayabilityCheck), so both refuse those.
        // By count, not time (about 3 s): a loaded machine runs the same cases, only slower; and
        // the same in every checkout (the generator reads no path of its own).
        let fuzzer = SceneValueFuzzer(assets: assets, seed: 2024)
        let report = fuzzer.run(cases: 48)
        print("StructuredFuzzTests: " + report.summary)
        XCTAssertGreaterThan(report.cases, 20)
        XCTAssertGreaterThan(report.rendered, 5, "the generator reaches valid scenes")
        XCTAssertGreaterThan(report.cases - report.valid, 5, "and invalid ones")
        XCTAssertGreaterThan(report.validLayered, 2, "and valid scenes with parameters and layered sounds")
        XCTAssertGreaterThan(report.validNormalisedClips, 2, "and valid scenes with loudness-normalised clips")
        XCTAssertEqual(report.findings, [], report.findings.joined(separator: "\n\n"))
    }

    /// Scenes whose music set an included bank defines (issue 35 item 2): its events read as the
    /// scene's own set's, and every scene that validates renders.
    func testScenesWithIncludedMusicSetsBounded() {
        var fuzzer = SceneValueFuzzer(assets: assets, seed: 3035)
        fuzzer.musicSetChance = 1
        fuzzer.includedSetChance = 1
        // By count, not time: deterministic (about 2 s; the generator's sets are often invalid).
        let report = fuzzer.run(cases: 60)
        print("StructuredFuzzTests (included sets): " + report.summary)
        XCTAssertGreaterThan(report.validIncludedSets, 2, "the generator reaches valid scenes with an included set")
        XCTAssertEqual(report.findings, [], report.findings.joined(separator: "\n\n"))
    }

    /// Scenes with a bus tree and VCAs (issue 41): cycles, unknown parents and members refused;
    /// every scene that validates renders (the tree made in the engine group by group).
    func testScenesWithBusTreesBounded() {
        var fuzzer = SceneValueFuzzer(assets: assets, seed: 4101)
        fuzzer.busTreeChance = 1
        let report = fuzzer.run(cases: 30)   // by count: deterministic, a few seconds
        print("StructuredFuzzTests (bus trees): " + report.summary)
        XCTAssertGreaterThan(report.rendered, 5, "the generator reaches valid scenes with a tree")
        XCTAssertGreaterThan(report.cases - report.valid, 3, "and invalid ones")
        XCTAssertEqual(report.findings, [], report.findings.joined(separator: "\n\n"))
    }

    /// Banks from every bank key, with include graphs: validate ok ⇒ load ok; an edit's reload
    /// agrees with validate, a refused one changes nothing; unload leaves no clip; output finite.
    func testBankValuesBounded() {
        let report = BankValueFuzzer(assets: assets, seed: 2028).run(cases: 120)   // by count: about 1 s
        print("StructuredFuzzTests: " + report.summary)
        XCTAssertGreaterThan(report.cases, 20)
        XCTAssertGreaterThan(report.loaded, 5, "the generator reaches valid banks")
        XCTAssertGreaterThan(report.cases - report.valid, 3, "and invalid ones")
        XCTAssertGreaterThan(report.refusedEdits, 0, "and edits that are refused")
        XCTAssertGreaterThan(report.normalisedClips, 2, "and banks with loudness-normalised clips")
        XCTAssertEqual(report.findings, [], report.findings.joined(separator: "\n\n"))
    }

    /// Random public calls on a loopback engine: no trap, output finite and within full scale.
    func testAPIOperationsBounded() {
        var fuzzer = APIOperationFuzzer(assets: assets, seed: 2024)
        fuzzer.leakLimitKiB = 64 * 1024   // a short run: the leak check is the long run's
        let report = fuzzer.run(operations: 3_000)   // by count: about 1.5 s
        print("StructuredFuzzTests: " + report.summary)
        XCTAssertGreaterThan(report.operations, 500)
        XCTAssertGreaterThan(report.renders, 50)
        XCTAssertGreaterThan(report.engines, 1, "shutdown and a new engine happen")
        XCTAssertEqual(report.findings, [], report.findings.joined(separator: "\n"))
    }

    /// Bed files (issue 39): channel counts, containers, sample types, lengths, AmbiX/FuMa, both
    /// loadings, decoders and locks; a count that is no order is refused, the rest play finite.
    func testBedFilesBounded() {
        let report = BedFileFuzzer(seed: 39).run(cases: 40)
        print("StructuredFuzzTests: " + report.summary)
        XCTAssertGreaterThan(report.played, 5)
        XCTAssertGreaterThan(report.refused, 5)
        XCTAssertEqual(report.findings, [], report.findings.joined(separator: "\n\n"))
    }

    /// Scenes with beds (issue 39): the bed keys' values at and past their edges; validate ok ⇒
    /// render ok.
    func testSceneBedsBounded() {
        var fuzzer = SceneValueFuzzer(assets: assets, seed: 3939)
        fuzzer.musicSetChance = 0
        fuzzer.bedChance = 1
        let report = fuzzer.run(cases: 16)
        print("StructuredFuzzTests (beds): " + report.summary)
        XCTAssertGreaterThan(report.validBeds, 1, "the generator reaches valid scenes with beds")
        XCTAssertEqual(report.findings, [], report.findings.joined(separator: "\n\n"))
    }

    /// Line tables (YAML, CSV) and subtitle files from their structures, edited: what is written
    /// reads back as written, what is accepted keeps the limits, edits are refused or read.
    func testLineTablesAndSubtitlesBounded() {
        let report = LineTableFuzzer(seed: 2042).run(cases: 400)   // by count: about 1 s
        print("StructuredFuzzTests: " + report.summary)
        XCTAssertGreaterThan(report.cases, 50)
        XCTAssertGreaterThan(report.validTables, 10, "the generator reaches valid tables")
        XCTAssertGreaterThan(report.refusedTables, 10, "and refused ones")
        XCTAssertGreaterThan(report.validSubtitles, 10)
        XCTAssertGreaterThan(report.refusedSubtitles, 5)
        XCTAssertEqual(report.findings, [], report.findings.prefix(3).joined(separator: "\n\n"))
    }
}
