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
}
