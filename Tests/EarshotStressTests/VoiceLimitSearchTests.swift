import Earshot
@testable import EarshotStress
import XCTest

/// The voices-per-core search called directly: its bisection with a budget nothing fits in (so a
/// debug build finishes it in seconds), and the table it publishes.
final class VoiceLimitSearchTests: XCTestCase {
    func testBudgetNothingFitsInBisectsBelow128ToZero() throws {
        let search = VoiceLimitSearch(budget: 1e-9, updateFrames: 512, probeSeconds: 0.05)
        var probes: [VoiceLimitSearch.Probe] = []
        let row = try search.run(.pcm) { probes.append($0) }
        XCTAssertEqual(row.kind, .pcm)
        XCTAssertEqual(row.label, "PCM (16-bit WAV)")
        XCTAssertEqual(row.engineVoices, 0)
        XCTAssertEqual(row.rawOpenALVoices, 0)
        XCTAssertEqual(row.engineShare, 0)
        // 128 is over; bisecting 0…128 to within 8 probes 64, 32, 16 and 8; raw OpenAL's search
        // reuses every one of them.
        XCTAssertEqual(probes.map(\.voices), [128, 64, 32, 16, 8])
        XCTAssertEqual(row.probes, 5)
        for probe in probes {
            XCTAssertGreaterThan(probe.engineShare, 0)
            XCTAssertGreaterThan(probe.rawOpenALShare, 0)
            XCTAssertLessThan(probe.rawOpenALShare, .infinity, "the baseline ran")
        }
        XCTAssertTrue(probes[0].description.hasPrefix("pcm: 128 voices: engine "), probes[0].description)
    }

    func testClipsOfTheTableAreMono() throws {
        for kind in [VoiceLimitSearch.Kind.pcm, .ima4] {
            let clip = try VoiceLimitSearch.clip(for: kind)
            XCTAssertEqual(clip.channels, 1)
            XCTAssertGreaterThan(clip.frameCount, 0)
        }
    }

    func testMarkdownIsThePublishedTable() {
        let rows = [
            VoiceLimitSearch.Row(kind: .pcm, label: VoiceLimitSearch.Kind.pcm.label, engineVoices: 2368,
                                 rawOpenALVoices: 2400, engineShare: 0.49, rawOpenALShare: 0.5, probes: 9),
            VoiceLimitSearch.Row(kind: .hrtf, label: VoiceLimitSearch.Kind.hrtf.label, engineVoices: 0,
                                 rawOpenALVoices: 0, engineShare: 0, rawOpenALShare: 0, probes: 5),
        ]
        let report = LimitReport(budget: 0.5, updateFrames: 512, sampleRate: 48_000, rows: rows)
        XCTAssertEqual(report.markdown, """
            Real voices mixed within 50 % of one core at 48 kHz stereo, 512-frame updates:

            | voices | Earshot | raw OpenAL | Earshot / raw |
            |---|---|---|---|
            | PCM (16-bit WAV) | 2368 | 2400 | 0.99 |
            | PCM, HRTF | 0 | 0 | – |
            """)
    }
}
