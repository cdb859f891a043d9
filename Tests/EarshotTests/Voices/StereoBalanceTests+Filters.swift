@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// What a channel pair's two sources share besides the clip's timing: a parameter curve's
/// low-pass, and the rooms' propagation filter (none, for a voice without a position).
extension StereoBalanceTests {
    /// One second of the seeded white noise in both channels of a 16-bit stereo clip.
    static func stereoNoise() -> PCMAudio {
        guard case .int16(let mono) = TestSignals.whiteNoise().samples else { return PCMAudio(sampleRate: 48_000, channels: 2, samples: .int16([])) }
        var s = [Int16](repeating: 0, count: mono.count * 2)
        for i in 0..<mono.count { s[2 * i] = mono[i]; s[2 * i + 1] = mono[i] }
        return PCMAudio(sampleRate: 48_000, channels: 2, samples: .int16(s))
    }

    /// The energy (dB) of channel `ch` of interleaved stereo in 4–8 kHz.
    static func highBand(_ x: [Float], _ ch: Int) -> Double {
        let one = stride(from: ch, to: x.count, by: 2).map { Double(x[$0]) }
        let centre = (4_000.0 * 8_000).squareRoot()
        let y = ReverbMeasures.bandPass(one, centre: centre, q: centre / 4_000, rate: 48_000)
        return Level.dB(power: Level.meanSquare(y[(y.count / 4)...]))
    }

    /// A sound whose low-pass curve is shut at its low end (gain HF 0.05 at rpm 0) plays a 2D
    /// stereo clip as a channel pair: both channels lose the same in 4–8 kHz (to 0.5 dB), from
    /// its start and after the curve moved (open, then shut again while it plays).
    func testALowPassCurveFiltersBothChannels() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "rpm", range: 0...1, defaultValue: 0))
        let clip = try e.loadClip(Self.stereoNoise(), name: "noise")
        let muffle = ParameterCurve(parameter: "rpm", property: .lowPass, points: [.init(0, 0.05), .init(1, 1)])
        var d = SoundDefinition(clips: [clip], loop: true)
        d.curves = [muffle]
        let sound = try e.makeSound(d)
        _ = try e.play(sound, options: SoundPlayOptions(pan: 0.2))
        XCTAssertEqual(e.stats.pairedVoices, 1, "played as a channel pair")
        func bands() throws -> [Double] {
            let out = try TestSignals.renderFrames(e, seconds: 0.1)
            return [Self.highBand(out, 0), Self.highBand(out, 1)]
        }
        let shut = try bands()
        try e.setParameter("rpm", 1)
        _ = try TestSignals.renderFrames(e, seconds: 0.05)
        let open = try bands()
        try e.setParameter("rpm", 0)
        _ = try TestSignals.renderFrames(e, seconds: 0.05)
        let again = try bands()
        print("StereoBalanceTests: 4–8 kHz shut \(shut), open \(open), shut again \(again) dB")
        for (name, b) in [("from the start", shut), ("moved while playing", again)] {
            let drops = [b[0] - open[0], b[1] - open[1]]
            XCTAssertLessThan(drops[0], -12, "\(name): the left channel muffled: \(drops)")
            XCTAssertEqual(drops[1], drops[0], accuracy: 0.5, "\(name): the right channel as the left: \(drops)")
        }
    }
}

extension StereoBalanceTests {
    /// Two sources, the rooms of RoomPropagationTests with the door shut and thick walls: two
    /// positioned voices in the other room are heard through the wall (their sources filtered
    /// down and darkened), then stop; a 2D stereo voice takes both sources as a channel pair. It
    /// sounds as in the same engine without the earlier voices: each channel's level and
    /// 4–8 kHz band within 0.1 dB — no propagation filter left on its second source.
    func testAPairsSecondSourceDropsTheRoomsFilterOfTheVoiceBefore() throws {
        func pair(after earlier: Bool) throws -> [Double] {
            let e = try TestSignals.loopbackEngine(realVoices: 2)
            defer { e.shutdown() }
            e.listener = RoomPropagationTests.listener
            try e.setGeometry(RoomPropagationTests.geometry(walls: Walls(loss: 10, hf: 0.1), open: 0))
            let clip = try e.loadClip(Self.stereoNoise(), name: "noise")
            if earlier {
                let mono = try e.loadClip(TestSignals.whiteNoise(), name: "mono")
                let behind = try (0..<2).map { _ in try e.play(mono, options: PlayOptions(loop: true, position: RoomPropagationTests.emitterAt)) }
                try TestSignals.renderFrames(e, seconds: 0.05)
                XCTAssertEqual(e.propagation(of: behind[0])?.via, .walls, "heard through the wall")
                for v in behind { e.stop(v) }
                try TestSignals.renderFrames(e, seconds: 0.1)
                XCTAssertEqual(e.stats.realVoices, 0, "both sources free")
            }
            _ = try e.play(clip, options: PlayOptions(pan: 0))
            let out = try TestSignals.renderFrames(e, seconds: 0.1)
            XCTAssertEqual(e.stats.pairedVoices, 1)
            return [Level.dB(Level.rms(out, channel: 0)), Level.dB(Level.rms(out, channel: 1)),
                    Self.highBand(out, 0), Self.highBand(out, 1)]
        }
        let fresh = try pair(after: false), reused = try pair(after: true)
        print("StereoBalanceTests: pair on fresh sources \(fresh), on sources a voice behind a wall used \(reused) dB")
        for k in 0..<4 { XCTAssertEqual(reused[k], fresh[k], accuracy: 0.1, "measure \(k): \(fresh) vs \(reused)") }
    }
}
