import Earshot
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot info` on ambisonic files made by sox (FLAC with 4 channels, CAF with 16): the order
/// and how a bed would play it; and such files play as beds through the decoders they take.
final class AmbisonicInfoCommandTests: XCTestCase {
    func testInfoSaysTheOrderOfFilesSoxWrote() throws {
        let files = try BedFixtures()
        let flac = files.path("foa.flac"), caf = files.path("toa.caf"), stereo = files.path("st.wav")
        for (path, channels) in [(flac, 4), (caf, 16), (stereo, 2)] {
            try MusicFixtures.run("/usr/bin/sox", ["-R", "-n", "-r", "48000", "-c", "\(channels)", "-b", "16", path, "synth", "0.2", "whitenoise", "vol", "0.1"])
        }
        let foa = try CLIRunner.run("earshot", ["info", flac])
        XCTAssertEqual(foa.status, 0, foa.stderr)
        XCTAssertTrue(foa.stdout.contains("ambisonics:  first order, full sphere (4 channels)"), foa.stdout)
        let toa = try CLIRunner.run("earshot", ["info", "--json", caf])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(toa.stdout.utf8)) as? [String: Any])
        let a = try XCTUnwrap(object["ambisonics"] as? [String: Any])
        XCTAssertEqual(a["order"] as? Int, 3)
        XCTAssertEqual(a["virtualLoudspeakers"] as? Int, 24)
        let plain = try CLIRunner.run("earshot", ["info", stereo])
        XCTAssertFalse(plain.stdout.contains("ambisonics"), plain.stdout)
        // Both play as beds (libsndfile decodes FLAC and CAF), streamed and as a clip.
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        for (path, loading) in [(flac, AmbisonicBed.Loading.streamed), (caf, .clip)] {
            let bed = try e.openBed(path: path, options: .init(numberOfLoops: 0, loading: loading))
            try bed.play()
            XCTAssertGreaterThan(Level.rms(try TestSignals.renderGameFrames(e, seconds: 0.1), channel: 0, of: 2), 0.001, path)
            bed.stop()
        }
    }
}
