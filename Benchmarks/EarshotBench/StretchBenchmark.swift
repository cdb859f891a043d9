// Time-stretched music, part of `earshot-bench music` (and alone as `earshot-bench stretch`):
// the streamer's CPU for a track at rates 0.8 and 1.25 against the same track at rate 1, and the
// same work done by SoundTouch's `soundstretch` (Debian's soundstretch 2.3.2, when installed),
// in cost and in quality on a 440 Hz tone.
import Earshot
import EarshotMeasure
import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum StretchBenchmark {
    /// `seconds` of output per measured rate.
    static func run(arguments: [String]) throws {
        var seconds = 60.0
        if let i = arguments.firstIndex(of: "--seconds"), i + 1 < arguments.count, let s = Double(arguments[i + 1]), s > 0 {
            seconds = s
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-stretchbench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try run(seconds: seconds, scratch: scratch)
    }

    static func run(seconds: Double, scratch: URL) throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // A 30 s stereo 44.1 kHz piece (tones, a sweep, pink noise) as WAV: the decode is cheap,
        // so the stretcher's share shows.
        let piece = scratch.appendingPathComponent("piece.wav").path
        try tool("/usr/bin/sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", piece, "synth", "30",
                                  "sine", "220", "sine", "330-1760", "pinknoise", "remix", "1,3", "2,3", "vol", "0.3"])
        print(String(format: "stretched music: %.0f s of output per rate, 30 s stereo 44.1 kHz WAV looping, 48 kHz stereo loopback, 10 ms renders", seconds))
        var plain = 0.0
        for rate: Float in [1, 0.8, 1.25] {
            let (cpu, underruns) = try streamerCPU(path: piece, rate: rate, seconds: seconds)
            if rate == 1 { plain = cpu }
            let note = rate == 1 ? "(plain track)" : String(format: "%.2f× the plain track", cpu / max(plain, 1e-12))
            print(String(format: "  rate %.2f: streamer %.3f ms per second of output, %d underruns  %@", rate, cpu * 1_000, underruns, note))
            if underruns != 0 { throw MusicBenchError.failed("\(underruns) underruns at rate \(rate)") }
        }
        try compareWithSoundTouch(piece: piece, seconds: seconds, scratch: scratch)
    }

    /// Streamer CPU per second of output for the looping track at `rate` (keeps pitch).
    private static func streamerCPU(path: String, rate: Float, seconds: Double) throws -> (Double, Int) {
        let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: path)
        track.numberOfLoops = -1
        track.rate = rate
        try track.play()
        let block = 480
        var buffer = [Float](repeating: 0, count: block * engine.outputChannels)
        var left = Int(seconds * 48_000)
        while left > 0 {
            let n = min(block, left)
            try buffer.withUnsafeMutableBufferPointer { buf in
                try engine.render(into: UnsafeMutableBufferPointer(rebasing: buf[0..<(n * engine.outputChannels)]))
            }
            left -= n
        }
        let stats = engine.musicStats
        return (stats.streamerCPUSeconds / seconds, stats.underruns)
    }

    /// SoundTouch's soundstretch on the same piece (CPU per second of output) and on a 440 Hz
    /// tone (duration, frequency, distortion), next to ours.
    private static func compareWithSoundTouch(piece: String, seconds: Double, scratch: URL) throws {
        let soundstretch = "/usr/bin/soundstretch"
        guard FileManager.default.isExecutableFile(atPath: soundstretch) else {
            print("  soundstretch: not installed (apt-get install soundstretch) — comparison skipped")
            return
        }
        // Cost: soundstretch's CPU (its WAV reading and writing included) per second of output.
        for rate in [0.8, 1.25] {
            let out = scratch.appendingPathComponent("st-\(rate).wav").path
            let cpu0 = childrenCPU()
            try tool(soundstretch, [piece, out, "-tempo=\(Int(((rate - 1) * 100).rounded()))"])
            let cpu = childrenCPU() - cpu0
            let outSeconds = 30 / rate
            print(String(format: "  soundstretch rate %.2f: %.3f ms CPU per second of output (whole process)", rate, cpu / outSeconds * 1_000))
        }
        // Quality: a 4 s 440 Hz tone at rates 0.5 and 2.
        let tone = scratch.appendingPathComponent("a440.wav").path
        try tool("/usr/bin/sox", ["-D", "-n", "-r", "48000", "-c", "1", "-b", "16", tone, "synth", "4", "sine", "440", "vol", "0.5"])
        for rate in [0.5, 2.0] {
            let out = scratch.appendingPathComponent("st-tone-\(rate).wav").path
            try tool(soundstretch, [tone, out, "-tempo=\(Int(((rate - 1) * 100).rounded()))"])
            let theirs = try monoFloats(ClipDecoder.decode(path: out))
            let ours = try renderTrack(path: tone, rate: Float(rate))
            for (who, x) in [("earshot", ours), ("soundstretch", theirs)] {
                let first = x.firstIndex { abs($0) > 1e-4 } ?? 0, last = x.lastIndex { abs($0) > 1e-4 } ?? 0
                let body = Array(x[min(last, first + 4_800)..<max(min(last, first + 4_800), last - 4_800)])
                let f = ToneMeasure.frequency(body, sampleRate: 48_000)
                print(String(format: "  tone 440 Hz × rate %.1f, %@: %.3f s (expected %.3f), %.2f Hz, distortion %.1f dB", rate, who,
                             Double(last - first + 1) / 48_000, 4 / rate, f, ToneMeasure.distortion(body, frequency: f, sampleRate: 48_000)))
            }
        }
    }

    /// Renders a track at `rate` until it ends; the left channel.
    private static func renderTrack(path: String, rate: Float) throws -> [Float] {
        let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: path)
        track.rate = rate
        try track.play()
        var left: [Float] = []
        while track.isPlaying {
            let out = try engine.render(frames: 960)
            left += stride(from: 0, to: out.count, by: 2).map { out[$0] }
        }
        return left
    }

    private static func monoFloats(_ audio: PCMAudio) -> [Float] {
        switch audio.samples {
        case .int16(let s): return stride(from: 0, to: s.count, by: audio.channels).map { Float(s[$0]) / 32768 }
        case .float32(let s): return stride(from: 0, to: s.count, by: audio.channels).map { s[$0] }
        }
    }

    private static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    private static func tool(_ path: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw MusicBenchError.failed("\(path) exited with \(p.terminationStatus)") }
    }
}
