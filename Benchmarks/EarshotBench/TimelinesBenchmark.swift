import Earshot
import Foundation

/// `earshot-bench timelines`: what timeline sounds cost (issue 41). 192 looping mono voices on a
/// 48 kHz stereo loopback engine, all real; a game frame is `update` and an 800-frame render
/// (60 Hz). The sides:
/// - **plain**: 192 plays of a plain looping sound;
/// - **timelines**: 64 plays of a timeline sound of three looping layers at 0, 10 and 20 ms (the
///   same 192 voices, 64 wholes for the timeline table to step).
/// And the play itself: the thread CPU of one play of the plain sound, of a three-part
/// timeline (per part), and of a switch to the plain sound. Five rounds alternate the sides; the
/// lowest of each is kept.
enum TimelinesBenchmark {
    static let voices = 192
    static let frames = 600
    static let plays = 3_000

    static func run(_ arguments: [String]) throws {
        var frame = [Double](repeating: .infinity, count: 2)
        var play = [Double](repeating: .infinity, count: 3)
        for _ in 0..<5 {
            for side in 0..<2 { frame[side] = min(frame[side], try measureFrame(timelines: side == 1)) }
            for kind in 0..<3 { play[kind] = min(play[kind], try measurePlay(kind)) }
        }
        print("a game frame with \(voices) looping voices (48 kHz stereo loopback, 800-frame renders, \(frames) frames, lowest of 5 rounds):")
        print(String(format: "  plain      %7.1f µs per frame", frame[0] / Double(frames) * 1e6))
        print(String(format: "  timelines  %7.1f µs per frame (×%.3f of plain: 64 three-part timelines)",
                     frame[1] / Double(frames) * 1e6, frame[1] / frame[0]))
        print("one play (thread CPU, \(plays) plays, lowest of 5 rounds):")
        print(String(format: "  plain sound            %6.2f µs", play[0] / Double(plays) * 1e6))
        print(String(format: "  three-part timeline    %6.2f µs (%.2f µs per part, ×%.2f of a plain play per part)",
                     play[1] / Double(plays) * 1e6, play[1] / Double(plays) / 3 * 1e6, play[1] / 3 / play[0]))
        print(String(format: "  switch to the plain    %6.2f µs (×%.2f of a plain play)", play[2] / Double(plays) * 1e6, play[2] / play[0]))
    }

    static func engine(real: Int) throws -> (AudioEngine, Clip) {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        config.maxRealVoices = real
        config.maxVirtualVoices = 4 * plays
        let e = try AudioEngine(configuration: config)
        let samples = (0..<48_000).map { Int16((0.01 * 32767 * sin(2 * .pi * 220 * Double($0) / 48_000)).rounded()) }
        let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: "loop")
        return (e, clip)
    }

    static func timeline(_ clip: Clip) -> SoundDefinition {
        SoundDefinition(layers: [0, 0.01, 0.02].map { SoundLayer(clip: clip, timing: .init(delay: $0)) }, loop: true)
    }

    /// The whole-frame thread CPU over `frames` frames.
    static func measureFrame(timelines: Bool) throws -> Double {
        let (e, clip) = try engine(real: voices)
        defer { e.shutdown() }
        let sound = try e.makeSound(timelines ? timeline(clip) : SoundDefinition(clips: [clip], loop: true))
        for _ in 0..<(timelines ? voices / 3 : voices) { try e.play(sound) }
        var buffer = [Float](repeating: 0, count: 800 * 2)
        for _ in 0..<30 {   // warm up: every part started and real
            e.update()
            try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) }
        }
        precondition(e.stats.realVoices == voices, "every voice must be real")
        var cpu = 0.0
        for _ in 0..<frames {
            let start = Clocks.threadCPU()
            e.update()
            try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) }
            cpu += Clocks.threadCPU() - start
        }
        return cpu
    }

    /// The thread CPU of `plays` plays: 0 plain, 1 a three-part timeline, 2 a switch.
    static func measurePlay(_ kind: Int) throws -> Double {
        let (e, clip) = try engine(real: 64)
        defer { e.shutdown() }
        let plain = try e.makeSound(SoundDefinition(clips: [clip]))
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["a", "b"]))
        let sound: Sound
        switch kind {
        case 0: sound = plain
        case 1: sound = try e.makeSound(timeline(clip))
        default: sound = try e.makeSound(SoundDefinition(switch: SoundSwitch(parameter: "surface", cases: ["a": plain])))
        }
        let start = Clocks.threadCPU()
        for _ in 0..<plays { try e.play(sound) }
        return Clocks.threadCPU() - start
    }
}
