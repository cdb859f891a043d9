import Earshot
import XCTest

/// The loudness meter against EBU Tech 3341 (loudness, true peak) and Tech 3342 (LRA): the test
/// signals are generated here at 48 kHz (a period computed once and tiled, so a debug build makes
/// 100 s of audio in milliseconds) and measured by libebur128 in C.
final class LoudnessMeterTests: XCTestCase {
    static let rate = 48_000

    /// Interleaved stereo sine: `segments` of (dBFS of the sine's amplitude, seconds), both
    /// channels equal. `frequency` must divide the rate into whole periods.
    static func sine(_ segments: [(Double, Double)], frequency: Double = 1_000, phaseDegrees: Double = 0, channels: Int = 2) -> [Float] {
        let period = Int((Double(rate) / frequency).rounded())
        var out: [Float] = []
        out.reserveCapacity(segments.reduce(0) { $0 + Int($1.1 * Double(rate)) } * channels)
        for (dB, seconds) in segments {
            let amplitude = pow(10, dB / 20)
            var one = [Float](repeating: 0, count: period * channels)
            for i in 0..<period {
                let v = Float(amplitude * sin(2 * Double.pi * Double(i) / Double(period) + phaseDegrees * Double.pi / 180))
                for c in 0..<channels { one[i * channels + c] = v }
            }
            // A whole second of periods, then whole seconds of it: few appends, fast in debug.
            var second: [Float] = []
            second.reserveCapacity(rate * channels)
            for _ in 0..<(rate / period) { second.append(contentsOf: one) }
            let frames = Int((seconds * Double(rate)).rounded())
            for _ in 0..<(frames / rate) { out.append(contentsOf: second) }
            let rest = frames % rate
            for i in 0..<rest { for c in 0..<channels { out.append(one[(i % period) * channels + c]) } }
        }
        return out
    }

    func measure(_ samples: [Float], channels: Int = 2, truePeak: Bool = false) throws -> LoudnessReading {
        let meter = try LoudnessMeter(channels: channels, sampleRate: Self.rate, truePeak: truePeak)
        try meter.add(samples)
        return meter.reading()
    }

    /// Tech 3341 cases 1 and 2: a steady 1 kHz sine at −23 and −33 dBFS reads the same in LUFS,
    /// momentary, short-term and integrated.
    func testTech3341SteadySines() throws {
        for level in [-23.0, -33.0] {
            let r = try measure(Self.sine([(level, 20)]))
            XCTAssertEqual(r.integrated ?? 0, level, accuracy: 0.1, "case at \(level) dBFS")
            XCTAssertEqual(r.momentary ?? 0, level, accuracy: 0.1)
            XCTAssertEqual(r.shortTerm ?? 0, level, accuracy: 0.1)
            XCTAssertEqual(r.maxMomentary ?? 0, level, accuracy: 0.1)
            XCTAssertEqual(r.samplePeak, level, accuracy: 0.01)
        }
    }

    /// Tech 3341 cases 3–5: the gates. Quiet passages below the relative gate (case 3), below
    /// the absolute gate (case 4), and a louder middle that is not gated (case 5) all read −23.0.
    func testTech3341GatedSequences() throws {
        let cases: [[(Double, Double)]] = [
            [(-36, 10), (-23, 60), (-36, 10)],
            [(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)],
            [(-26, 20), (-20, 20.1), (-26, 20)],
        ]
        for (i, segments) in cases.enumerated() {
            let r = try measure(Self.sine(segments))
            XCTAssertEqual(r.integrated ?? 0, -23, accuracy: 0.1, "Tech 3341 case \(i + 3)")
        }
        // Silence is nil, not a number.
        XCTAssertNil(try measure(Self.sine([(-80, 2)])).integrated)
    }

    /// Tech 3341 (2016) cases 15–19: true peak of sines whose samples miss the peak. A sine of
    /// amplitude 0.5 (−6.02 dBFS) at fs/4 0°, fs/4 45°, fs/6 60°, fs/8 67.5° (sample peaks −6.0,
    /// −9.0, −7.2, −6.7 dBFS) reads −6.0 dBTP; amplitude 1.41 at fs/4 45° (samples at 0 dBFS)
    /// reads +3.0 dBTP (+0.2/−0.4 each). The tone fades in over 10 ms: an abrupt start is a
    /// broadband step whose own inter-sample overshoot (+0.35 dB at fs/6) is not what the case tests.
    func testTech3341TruePeak() throws {
        let cases: [(amplitude: Double, divisor: Double, phase: Double, samplePeak: Double, expected: Double)] = [
            (0.5, 4, 0, -6.0, -6.0), (0.5, 4, 45, -9.0, -6.0), (0.5, 6, 60, -7.2, -6.0), (0.5, 8, 67.5, -6.7, -6.0),
            (2.squareRoot(), 4, 45, 0, 3.0),
        ]
        for c in cases {
            var signal = Self.sine([(20 * log10(c.amplitude), 1)], frequency: Double(Self.rate) / c.divisor, phaseDegrees: c.phase)
            for i in 0..<480 { signal[2 * i] *= Float(i) / 480; signal[2 * i + 1] *= Float(i) / 480 }
            let r = try measure(signal, truePeak: true)
            XCTAssertEqual(r.samplePeak, c.samplePeak, accuracy: 0.1)   // the table's values, rounded
            XCTAssert(r.truePeak <= c.expected + 0.2 && r.truePeak >= c.expected - 0.4,
                      "fs/\(c.divisor) at \(c.phase)°: \(r.truePeak) dBTP, expected \(c.expected)")
        }
    }

    /// Tech 3342 cases 1–4: loudness range of level steps (±1 LU).
    func testTech3342LoudnessRange() throws {
        let cases: [([(Double, Double)], Double)] = [
            ([(-20, 20), (-30, 20)], 10),
            ([(-20, 20), (-15, 20)], 5),
            ([(-40, 20), (-20, 20)], 20),
            ([(-50, 20), (-35, 20), (-20, 20), (-35, 20), (-50, 20)], 15),
        ]
        for (i, (segments, expected)) in cases.enumerated() {
            let r = try measure(Self.sine(segments))
            XCTAssertEqual(r.range, expected, accuracy: 1, "Tech 3342 case \(i + 1)")
        }
    }

    /// Sizes are checked before the library sees them: typed errors, nothing added.
    func testRefusesBadSizes() throws {
        for (channels, rate) in [(0, 48_000), (17, 48_000), (2, 7_999), (2, 400_000), (-1, 48_000)] {
            XCTAssertThrowsError(try LoudnessMeter(channels: channels, sampleRate: rate)) { error in
                guard case .invalidArgument? = error as? EarshotError else { return XCTFail("\(error)") }
            }
        }
        let meter = try LoudnessMeter(channels: 2, sampleRate: 48_000)
        XCTAssertThrowsError(try meter.add([0.5, 0.5, 0.5])) { error in
            guard case .invalidArgument? = error as? EarshotError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(meter.frames, 0)
        XCTAssertNil(meter.integrated)
        XCTAssertEqual(meter.truePeak, -.infinity)
        // 5.1: the LFE is not counted; a surround channel counts +1.5 dB.
        let six = try LoudnessMeter(channels: 6, sampleRate: 48_000)
        var block = [Float](repeating: 0, count: 6 * 48_000)
        for i in 0..<48_000 { block[6 * i + 3] = Float(0.5 * sin(2 * Double.pi * 1_000 * Double(i) / 48_000)) }
        try six.add(block)
        XCTAssertNil(six.integrated, "the LFE alone is not loudness")
    }
}
