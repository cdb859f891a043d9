@testable import Earshot
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// Layered sounds and curves measured on the loopback output (issue 28): a three-layer engine
/// swept over its rpm, pitch curves, voices with their own rpm, sample alignment.
final class LayeredSoundTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "earshot-layers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A one-second sox sine (whole cycles: it loops without a seam).
    private func tone(_ e: AudioEngine, _ hz: Int, amplitude: Double = 0.1) throws -> Clip {
        let path = "\(dir)/\(hz).wav"
        try SoxTone.write(to: path, frequency: hz, amplitude: amplitude, seconds: 1)
        return try e.loadClip(path: path)
    }

    /// The amplitude of the component at `hz` in `x` (least squares on sin and cos; windows of
    /// whole cycles of every tone used here make the tones orthogonal).
    private func amplitude(_ x: ArraySlice<Float>, _ hz: Double) -> Double { ToneMeasure.amplitude(x, hz) }


    private func rpm(_ e: AudioEngine) throws {
        try e.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 0, seek: 0))
    }

    private let idleCurve = ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, 0), .init(1000, 0), .init(3000, -30)])
    private let midCurve = ParameterCurve(parameter: "rpm", property: .gain,
                                          points: [.init(0, -30), .init(2000, 0), .init(5000, 0), .init(6500, -30)], shape: .sCurve)
    private let highCurve = ParameterCurve(parameter: "rpm", property: .gain, points: [.init(3000, -30), .init(7000, 0)], shape: .exponential)

    private func engineSound(_ e: AudioEngine) throws -> Sound {
        try e.makeSound(SoundDefinition(layers: [
            SoundLayer(clip: try tone(e, 200), curves: [idleCurve]),
            SoundLayer(clip: try tone(e, 1000), curves: [midCurve]),
            SoundLayer(clip: try tone(e, 3000), curves: [highCurve]),
        ]))
    }

    /// A three-layer engine swept from 0 to 8000 rpm over 8 s: each layer's band energy follows
    /// its curve within 1 dB at five points.
    func testThreeLayerEngineFollowsItsCurvesOverASweep() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try rpm(e)
        let car = try engineSound(e)
        // The level of each layer at 0 dB: the tone alone, as played (pan 0).
        var reference: [Double] = []
        for hz in [200, 1000, 3000] {
            let v = try e.play(try tone(e, hz), options: PlayOptions(loop: true))
            let out = MusicRender.left(try TestSignals.renderFrames(e, seconds: 0.2))
            reference.append(amplitude(out[4_800..<(4_800 + 4_800)], Double(hz)))
            v.stop()
            try TestSignals.renderFrames(e, seconds: 0.05)
        }
        let voice = try e.play(car)
        XCTAssertEqual(voice.status, .real)
        try e.setParameter("rpm", 8000, ramp: 8)
        var out: [Float] = []
        for _ in 0..<800 {   // 10 ms frames: the rpm is 10 × the block number
            e.update()
            out += MusicRender.left(try e.render(frames: 480))
        }
        let curves = [idleCurve, midCurve, highCurve]
        for r in [500, 2000, 4000, 5500, 7500] {
            let block = r / 10   // the block rendered at this rpm (1-based)
            let window = out[((block - 3) * 480)..<((block + 2) * 480)]   // 50 ms around it
            for (k, hz) in [200.0, 1000.0, 3000.0].enumerated() {
                let heard = Level.dB(amplitude(window, hz) / reference[k])
                let wanted = curves[k].value(at: Double(r))
                XCTAssertEqual(heard, wanted, accuracy: 1, "layer \(Int(hz)) Hz at \(r) rpm: \(heard) dB, curve \(wanted) dB")
            }
        }
    }

    /// A pitch curve is met within 0.5 % (measured frequency), swept over its points.
    func testPitchCurveMeasuredFrequency() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try rpm(e)
        let pitch = ParameterCurve(parameter: "rpm", property: .pitch, points: [.init(0, 0.5), .init(4000, 1), .init(8000, 2)], shape: .exponential)
        var d = SoundDefinition(layers: [SoundLayer(clip: try tone(e, 1000, amplitude: 0.3))])
        d.curves = [pitch]
        _ = try e.play(try e.makeSound(d))
        for r in [0.0, 1000, 4000, 6000, 8000] {
            try e.setParameter("rpm", r)
            try TestSignals.renderFrames(e, seconds: 0.05)
            let out = MusicRender.left(try TestSignals.renderFrames(e, seconds: 0.3))
            let hz = ToneMeasure.frequency(out, sampleRate: 48_000)
            let wanted = 1000 * pitch.value(at: r)
            XCTAssertEqual(hz / wanted, 1, accuracy: 0.005, "\(r) rpm: \(hz) Hz, curve \(wanted) Hz")
        }
    }

    /// Two voices of one layered sound with their own rpm (one hard left, one hard right) have
    /// different spectra; the global rpm moves neither.
    func testVoicesWithTheirOwnRpmAndTheGlobalValueMovesNeither() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try rpm(e)
        let car = try engineSound(e)
        let a = try e.play(car, options: SoundPlayOptions(pan: -1))
        let b = try e.play(car, options: SoundPlayOptions(pan: 1))
        try a.setParameter("rpm", 500)
        try b.setParameter("rpm", 7500)
        func spectra() throws -> [[Double]] {
            try TestSignals.renderFrames(e, seconds: 0.05)
            let out = try TestSignals.renderFrames(e, seconds: 0.25)
            let left = MusicRender.left(out)
            let right = stride(from: 1, to: out.count, by: 2).map { out[$0] }
            return [left, right].map { ch in [200.0, 1000, 3000].map { Level.dB(amplitude(ch[0..<9_600], $0)) } }
        }
        let before = try spectra()
        let (l, r) = (before[0], before[1])
        XCTAssertGreaterThan(l[0] - r[0], 25, "idle loud on the left (500 rpm), quiet on the right: \(l) / \(r)")
        XCTAssertGreaterThan(r[2] - l[2], 25, "high loud on the right (7500 rpm), quiet on the left: \(l) / \(r)")
        try e.setParameter("rpm", 4000)
        let after = try spectra()
        for ch in 0..<2 {
            for k in 0..<3 where before[ch][k] > -60 {
                XCTAssertEqual(after[ch][k], before[ch][k], accuracy: 0.1, "the global rpm moved channel \(ch) band \(k)")
            }
        }
        XCTAssertEqual(try a.parameter("rpm"), 500)
        XCTAssertEqual(try e.parameter("rpm"), 4000)
    }

    /// Layers start on the same sample and stay there: a tone and its inverse as two layers
    /// cancel to silence — from the start, after a pause and resume, and after a stop of the
    /// voice stops both.
    func testLayersStaySampleAligned() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let up = try tone(e, 440, amplitude: 0.4)
        let path = "\(dir)/inverted.wav"
        try SoxTone.write(to: "\(dir)/base.wav", frequency: 440, amplitude: 0.4, seconds: 1)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = ["-D", "\(dir)/base.wav", path, "vol", "-1"]
        try p.run()
        p.waitUntilExit()
        let down = try e.loadClip(path: path)
        let pair = try e.makeSound(SoundDefinition(layers: [SoundLayer(clip: up), SoundLayer(clip: down)]))
        let alone = try e.play(up, options: PlayOptions(loop: true))
        let level = Level.rms(MusicRender.left(try TestSignals.renderFrames(e, seconds: 0.1)), 0..<4_800)
        alone.stop()
        try TestSignals.renderFrames(e, seconds: 0.05)
        _ = try TestSignals.renderFrames(e, seconds: 0.2)
        let v = try e.play(pair)
        let first = Level.rms(MusicRender.left(try TestSignals.renderFrames(e, seconds: 0.5)), 0..<24_000)
        XCTAssertLessThan(Level.dB(first / level), -60, "the two layers cancel: aligned to the sample")
        e.setPaused(true, of: v)
        try TestSignals.renderFrames(e, seconds: 0.2)
        e.setPaused(false, of: v)
        let resumed = Level.rms(MusicRender.left(try TestSignals.renderFrames(e, seconds: 0.5)), 0..<24_000)
        XCTAssertLessThan(Level.dB(resumed / level), -60, "still aligned after a pause")
        XCTAssertEqual(e.activeVoiceCount, 2)
        v.stop()
        try TestSignals.renderFrames(e, seconds: 0.1)
        XCTAssertEqual(e.activeVoiceCount, 0, "stopping the voice stops every layer")
    }
}
