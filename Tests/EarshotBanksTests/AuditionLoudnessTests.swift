import Earshot
import EarshotTestSupport
import XCTest

/// `earshot audition` plays a bank's normalised sounds and clips at their targets (issue 40): it
/// loads through the bank's transaction, which applies a sound's `loudness:` and a clip's. The
/// render is measured with the project's libebur128 meter.
final class AuditionLoudnessTests: XCTestCase {
    func testAuditionPlaysANormalisedSoundAtItsTarget() throws {
        let f = try BankFixture("audition-loudness")
        defer { f.remove() }
        // A stereo 1 kHz sine at 0.02 for 3 s: −34.0 LUFS integrated.
        try SoxTone.write(to: f.path("audio/quiet.wav"), frequency: 1000, amplitude: 0.02, seconds: 3, channels: 2)
        let bank = try f.write("bank.yaml", """
            clips:
              q: audio/quiet.wav
              qn: { file: audio/quiet.wav, loudness: -20 }
            sounds:
              sound: { clips: [q], loudness: -23 }
              clip: { clips: [qn] }
              plain: { clips: [q] }
            """)
        func audition(_ sound: String) throws -> Double {
            let out = f.path("\(sound).wav")
            let r = try CLIRunner.run("earshot", ["audition", bank, sound, "--seconds", "2", "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            let x = try SndFileDecoder.decode(path: out).floatSamples()
            let m = try LoudnessMeter(channels: 2, sampleRate: 48_000, truePeak: false)
            try m.add(Array(x[(4_800 * 2)..<(91_200 * 2)]))   // 0.1…1.9 s
            return try XCTUnwrap(m.integrated)
        }
        let sound = try audition("sound"), clip = try audition("clip"), plain = try audition("plain")
        print("audition: sound \(sound), clip \(clip), plain \(plain)")
        XCTAssertEqual(sound, -23, accuracy: 0.5, "the sound's loudness: -23 from a −34 LUFS file")
        XCTAssertEqual(clip, -20, accuracy: 0.5, "the clip's loudness: -20")
        XCTAssertEqual(plain, -34, accuracy: 0.5, "as recorded")
    }
}
