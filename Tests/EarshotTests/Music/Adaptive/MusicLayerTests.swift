@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Stems of a layered state stay sample-aligned, and a set's beats stay on the grid (issue 29),
/// measured on the loopback output and the markers stream.
final class MusicLayerTests: XCTestCase {
    /// Two identical 3,989 Hz stems sum to +6.02 dB over one stem in every 10 ms of sound through
    /// three loop seams, the set's pause and resume, a seek, a pause of the music bus and a lost
    /// device. One frame of misalignment between them would cost 0.3 dB (and, unlike 4 kHz, no
    /// whole number of frames is a whole number of periods).
    func testTwoIdenticalStemsSumToSixDecibelsThroughSeamsPausesSeeksAndDeviceLoss() throws {
        let files = try MusicFixtures()
        let stem = try files.sineWAV("stem.wav", frequency: 3_989, amplitude: 0.4, seconds: 2)
        let one: Double = try {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            try engine.loadMusic(path: stem).play()
            let left = MusicRender.left(try MusicRender.render(engine, seconds: 0.5))
            return AdaptiveMusicTests.amplitude(left, 3_989, 9_600..<10_080)
        }()
        XCTAssertGreaterThan(one, 0.2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let set = try engine.makeMusicSet(MusicSetDefinition(name: "stems", states: [
            .init(name: "both", content: .layers([.init(name: "a", segment: .init(path: stem)),
                                                  .init(name: "b", segment: .init(path: stem))])),
        ]))
        try set.play(state: "both", at: 0)
        var out = try MusicRender.render(engine, seconds: 2.5)          // the seam at 2.0 s
        set.pause()
        out += try MusicRender.render(engine, seconds: 0.5)
        try set.resume()
        out += try MusicRender.render(engine, seconds: 1.0)             // file 0.5 … 1.5 s
        try set.seek(to: 1.3)
        out += try MusicRender.render(engine, seconds: 1.0)             // the seam at 4.7 s
        try engine.setPaused(true, for: .music)
        out += try MusicRender.render(engine, seconds: 0.3)
        try engine.setPaused(false, for: .music)
        out += try MusicRender.render(engine, seconds: 0.5)
        engine.simulateDeviceLoss()
        let deadline = Date().addingTimeInterval(5)
        out += try engine.render(frames: 480)
        while engine.isDeviceLost, Date() < deadline { usleep(2_000); out += try engine.render(frames: 480) }
        XCTAssertFalse(engine.isDeviceLost, "rebuilt")
        out += try MusicRender.render(engine, seconds: 1.5)             // the seam at 6.7 s of sound
        let left = MusicRender.left(out)
        var windows = 0, worst = 0.0
        for w in stride(from: 0, to: left.count - 480, by: 480) {
            let a = AdaptiveMusicTests.amplitude(left, 3_989, w..<(w + 480))
            guard a > one / 2 else { continue }   // silence: paused, or the device lost
            windows += 1
            let gain = Level.dB(a / one)
            worst = max(worst, abs(gain - 6.0206))
            XCTAssertEqual(gain, 6.0206, accuracy: 0.05, "window at \(Double(w) / 48_000) s")
        }
        print("two stems over one: +6.02 dB ± \(String(format: "%.4f", worst)) dB in \(windows) windows of 10 ms")
        XCTAssertGreaterThan(windows, 600, "about 6.5 s of sound measured")
        XCTAssertEqual(set.tracks.filter(\.isPlaying).count, 2)
    }

    /// A stem's gain from code, with a fade: the second stem at 0 adds nothing, then rises.
    func testLayerGainFadesAStemIn() throws {
        let files = try MusicFixtures()
        let drums = try files.sineWAV("drums.wav", frequency: 1_000, seconds: 2)
        let pads = try files.sineWAV("pads.wav", frequency: 3_000, seconds: 2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let set = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
            .init(name: "s", content: .layers([.init(name: "drums", segment: .init(path: drums)),
                                               .init(name: "pads", segment: .init(path: pads), gain: 0)])),
        ]))
        try set.play(state: "s", at: 0)
        var out = try MusicRender.render(engine, seconds: 0.5)
        try set.setLayerGain(1, layer: "pads", fade: 0.5)
        XCTAssertEqual(set.layerGain("pads", state: "s"), 1)
        out += try MusicRender.render(engine, seconds: 1.0)
        let left = MusicRender.left(out)
        let drumsLevel = AdaptiveMusicTests.amplitude(left, 1_000, 19_200..<19_680)
        XCTAssertLessThan(AdaptiveMusicTests.amplitude(left, 3_000, 19_200..<19_680), 1e-4, "pads silent at 0.4 s")
        let mid = AdaptiveMusicTests.amplitude(left, 3_000, 36_000..<36_480)     // 0.75 s: halfway (linear)
        XCTAssertEqual(mid / drumsLevel, 0.5, accuracy: 0.03)
        XCTAssertEqual(AdaptiveMusicTests.amplitude(left, 3_000, 60_000..<60_480) / drumsLevel, 1, accuracy: 0.01)
    }

    /// Beats and bars of a set arrive on the 120 bpm grid (within 1 ms) for 60 s of rendering, through
    /// a change at the bar line at 32 s with a fade: the state left reports none past its boundary.
    func testBeatEventsStayOnTheGridForSixtySeconds() async throws {
        let files = try MusicFixtures()
        let a = try files.sineWAV("a.wav", frequency: 500, seconds: 6)    // three bars: seams on bar lines
        let b = try files.sineWAV("b.wav", frequency: 700, seconds: 8)
        let engine = try TestSignals.loopbackEngine()
        let tempo = Tempo(bpm: 120, beatsPerBar: 4)
        let set = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
            .init(name: "a", content: .track(.init(path: a, tempo: tempo))),
            .init(name: "b", content: .track(.init(path: b, tempo: tempo))),
        ], transitions: [.init(to: "b", at: .nextBar, fade: 1)]))
        let stream = engine.markers
        try set.play(state: "a", at: 0)
        _ = try MusicRender.render(engine, seconds: 30.3, block: 512)
        XCTAssertEqual(try set.setState("b"), 32, accuracy: 1e-9)
        _ = try MusicRender.render(engine, seconds: 29.7, block: 512)
        engine.shutdown()
        var beats: [Double] = [], bars: [Double] = []
        for await e in stream {
            switch e.kind {
            case .beat: beats.append(e.audioTime)
            case .bar: bars.append(e.audioTime)
            case .marker: break
            }
        }
        XCTAssertEqual(beats.count, 120, "one beat every 0.5 s from 0 to 59.5 s, none twice")
        var worst = 0.0
        for (k, t) in beats.enumerated() {
            worst = max(worst, abs(t - Double(k) * 0.5))
            XCTAssertEqual(t, Double(k) * 0.5, accuracy: 0.001, "beat \(k)")
        }
        XCTAssertEqual(bars.count, 30)
        for (k, t) in bars.enumerated() { XCTAssertEqual(t, Double(k) * 2, accuracy: 0.001, "bar \(k)") }
        print("60 s of beats: worst \(worst * 1e3) ms off the grid")
    }
}
