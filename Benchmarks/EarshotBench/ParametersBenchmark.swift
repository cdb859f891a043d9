import Earshot
import Foundation

/// `earshot-bench parameters`: what game-parameter curves cost a game frame (issue 28's bound:
/// 256 voices each under 2 curves ≤ 10 % more than the same frame without curves).
///
/// 256 looping mono voices (all real, at pitch 1.1 so that OpenAL resamples every one on every
/// side) on a 48 kHz stereo loopback engine; a game frame is the game's calls, `update`, and an
/// 800-frame render (60 Hz). The sides:
/// - **plain**: no curves; the game sets the global `rpm` each frame (nothing reads it);
/// - **curves, rpm still**: each voice a sound with a gain and a pitch curve on `rpm`, which
///   stands still (the steady cost of the curve machinery);
/// - **by hand**: no curves; the game sets every voice's gain and pitch each frame to what the
///   curves would give (the same audible work, done without curves);
/// - **curves, rpm moving**: the curves, with the global `rpm` moving every frame (gain and
///   pitch change on every voice every frame: OpenAL is sent both, as by hand);
/// - **curves, own rpm**: each voice its own rpm, set every frame (256 `setParameter` calls and
///   one evaluation per voice).
/// Each side's thread CPU is summed over the frames (update alone, and the whole frame); five
/// rounds alternate the sides and the lowest of each is kept.
enum ParametersBenchmark {
    static let voices = 256
    static let frames = 600
    static let sides = ["plain", "curves, rpm still", "by hand", "curves, rpm moving", "curves, own rpm"]
    static let gain = ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, -20), .init(2000, 0), .init(8000, -6)], shape: .sCurve)
    static let pitch = ParameterCurve(parameter: "rpm", property: .pitch, points: [.init(0, 0.8), .init(8000, 1.6)])

    static func run(_ arguments: [String]) throws {
        var update = [Double](repeating: .infinity, count: sides.count)
        var whole = [Double](repeating: .infinity, count: sides.count)
        for _ in 0..<5 {
            for side in sides.indices {
                let (u, w) = try measure(side: side)
                update[side] = min(update[side], u)
                whole[side] = min(whole[side], w)
            }
        }
        print("a game frame with \(voices) voices (48 kHz stereo loopback, 800-frame renders, \(frames) frames, lowest of 5 rounds):")
        for side in sides.indices {
            let name = sides[side].padding(toLength: 20, withPad: " ", startingAt: 0)
            print(String(format: "  %@ calls + update %7.2f µs per frame   whole frame %7.1f µs per frame (×%.3f of plain)",
                         name, update[side] / Double(frames) * 1e6, whole[side] / Double(frames) * 1e6, whole[side] / whole[0]))
        }
        print(String(format: "curves, rpm still against plain: the game frame %+.1f %%", (whole[1] / whole[0] - 1) * 100))
        print(String(format: "curves, rpm moving against by hand: the game frame %+.1f %%", (whole[3] / whole[2] - 1) * 100))
        print(String(format: "curves, rpm moving against plain: the game frame %+.1f %% (OpenAL sent a new gain and pitch for every voice every frame)",
                     (whole[3] / whole[0] - 1) * 100))
    }

    /// (calls + update CPU, whole frame CPU) in seconds for one side.
    static func measure(side: Int) throws -> (Double, Double) {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        config.maxRealVoices = voices
        let e = try AudioEngine(configuration: config)
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 800))
        let n = 48_000
        let samples = (0..<n).map { Int16((0.01 * 32767 * sin(2 * .pi * 220 * Double($0) / 48_000)).rounded()) }
        let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: "loop")
        var d = SoundDefinition(clips: [clip], pitch: 1.1, loop: true)
        if side == 1 || side >= 3 { d.curves = [gain, pitch] }
        let sound = try e.makeSound(d)
        var played: [Voice] = []
        for k in 0..<voices {
            played.append(try e.play(sound, options: SoundPlayOptions(position: Vector3(Float(k % 16) - 8, 0, -Float(k / 16) - 1))))
        }
        var buffer = [Float](repeating: 0, count: 800 * 2)
        for _ in 0..<30 {   // warm up: every voice real, OpenAL's mixer warm
            e.update()
            try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) }
        }
        var updateCPU = 0.0, wholeCPU = 0.0
        for f in 0..<frames {
            let rpm = 800 + Double(f % 120) * 50
            let start = Clocks.threadCPU()
            switch side {
            case 0, 3: try e.setParameter("rpm", rpm)
            case 1: try e.setParameter("rpm", 800)
            case 2:
                let g = Float(pow(10, gain.value(at: rpm) / 20)), p = Float(1.1 * pitch.value(at: rpm))
                for v in played {
                    v.gain = g
                    v.pitch = p
                }
            default:
                for (k, v) in played.enumerated() { try v.setParameter("rpm", rpm + Double(k)) }
            }
            e.update()
            let updated = Clocks.threadCPU()
            try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) }
            let end = Clocks.threadCPU()
            updateCPU += updated - start
            wholeCPU += end - start
        }
        precondition(e.stats.realVoices == voices, "every voice must be real")
        return (updateCPU, wholeCPU)
    }
}
