// Music streaming benchmark, run by the bench dispatcher as mode `music`:
//   earshot-bench music [--seconds 600] [--voices 256] [--file PATH.ogg]
// Needs the bench target to depend on "Earshot" and "CVorbisFile".
import CVorbisFile
import Earshot
import Foundation

/// Renders `--seconds` (default ten minutes) of a looping Ogg Vorbis music track together with
/// `--voices` (default 256) looping voices on a 48 kHz stereo loopback engine, and reports the
/// music underruns (must be 0) and the streamer's CPU per second of music, next to a plain
/// libvorbisfile decode (`ov_read` loop) of the same file timed in the same run.
///
/// Without `--file`, a 30 s stereo 44.1 kHz test piece (tones and pink noise) is made with sox
/// and encoded with ffmpeg's libvorbis at quality 5.
func runMusicBenchmark(arguments: [String]) throws {
    var seconds = 600.0
    var voices = 256
    var file: String?
    var i = 0
    while i < arguments.count {
        let a = arguments[i]
        let value = i + 1 < arguments.count ? arguments[i + 1] : nil
        switch a {
        case "--seconds": seconds = Double(value ?? "") ?? seconds; i += 1
        case "--voices": voices = Int(value ?? "") ?? voices; i += 1
        case "--file": file = value; i += 1
        default: throw MusicBenchError.usage("unknown argument \(a); usage: music [--seconds S] [--voices N] [--file PATH.ogg]")
        }
        i += 1
    }
    guard seconds > 0, (0...4000).contains(voices) else { throw MusicBenchError.usage("--seconds must be > 0, --voices 0…4000") }

    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-musicbench-\(getpid())")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let path = try file ?? makeTestPiece(in: scratch)

    // 1. The engine: voices + one streamed track, rendered in 10 ms blocks.
    var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
    config.maxRealVoices = max(voices, 1)
    let engine = try AudioEngine(configuration: config)
    defer { engine.shutdown() }
    let tone = (0..<4_800).map { Int16((0.2 * 32767 * sin(2 * Double.pi * 440 * Double($0) / 48_000)).rounded()) }
    let clip = try engine.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(tone)), name: "bench-tone")
    for v in 0..<voices {
        let angle = Float(v) * 0.1
        _ = try engine.play(clip, options: .init(gain: 0.002, loop: true, position: Vector3(3 * cosf(angle), 0, 3 * sinf(angle))))
    }
    let track = try engine.loadMusic(path: path)
    track.numberOfLoops = -1
    try track.play()

    let block = 480
    let total = Int(seconds * 48_000)
    var buffer = [Float](repeating: 0, count: block * engine.outputChannels)
    let wall0 = monotonicSeconds(), cpu0 = threadCPUSeconds()
    var done = 0
    while done < total {
        let n = min(block, total - done)
        try buffer.withUnsafeMutableBufferPointer { buf in
            try engine.render(into: UnsafeMutableBufferPointer(rebasing: buf[0..<(n * engine.outputChannels)]))
        }
        done += n
    }
    let renderWall = monotonicSeconds() - wall0, renderCPU = threadCPUSeconds() - cpu0
    let stats = engine.musicStats

    // 2. A plain libvorbisfile decode of the same file, as many passes as cover the same music time.
    let (decodedSeconds, decodeCPU) = try plainVorbisDecode(path: path, atLeast: seconds)

    let streamerPerSecond = stats.streamerCPUSeconds / seconds
    let plainPerSecond = decodeCPU / decodedSeconds
    print("music benchmark: \(String(format: "%.0f", seconds)) s of music (\(path.hasPrefix(scratch.path) ? "generated 30 s test piece" : path)), \(voices) looping voices, 48 kHz stereo loopback, 10 ms renders")
    print(String(format: "  render total:      %.2f s wall, %.2f s CPU (%.1f× real time)", renderWall, renderCPU, seconds / max(renderWall, 1e-9)))
    print("  music underruns:   \(stats.underruns)\(stats.underruns == 0 ? "" : "  <-- must be 0")")
    print(String(format: "  streamer CPU:      %.3f ms per second of music (%.3f s in all)", streamerPerSecond * 1_000, stats.streamerCPUSeconds))
    print(String(format: "  plain ov_read:     %.3f ms per second of music (%.0f s decoded, %.3f s CPU)", plainPerSecond * 1_000, decodedSeconds, decodeCPU))
    print(String(format: "  streamer / plain:  %.2f×", streamerPerSecond / max(plainPerSecond, 1e-12)))
    if stats.underruns != 0 { throw MusicBenchError.failed("\(stats.underruns) underruns") }

    // 3. A time-stretched track against a plain one, and against SoundTouch.
    try StretchBenchmark.run(seconds: min(seconds, 60), scratch: scratch)
}

enum MusicBenchError: Error, CustomStringConvertible {
    case usage(String)
    case failed(String)
    var description: String {
        switch self {
        case .usage(let m): return m
        case .failed(let m): return "music benchmark failed: \(m)"
        }
    }
}

/// Decodes `path` with ov_read (16-bit, as the streamer does) until at least `seconds` of audio.
private func plainVorbisDecode(path: String, atLeast seconds: Double) throws -> (seconds: Double, cpu: Double) {
    let vf = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
    defer { vf.deallocate() }
    guard ov_fopen(path, vf) == 0 else { throw MusicBenchError.failed("\(path): libvorbisfile cannot open it") }
    defer { ov_clear(vf) }
    guard let info = ov_info(vf, -1) else { throw MusicBenchError.failed("\(path): no stream info") }
    let rate = Double(info.pointee.rate), channels = Int(info.pointee.channels)
    var pcm = [CChar](repeating: 0, count: 16_384)
    var frames = 0
    let cpu0 = threadCPUSeconds()
    while Double(frames) / rate < seconds {
        guard ov_pcm_seek(vf, 0) == 0 else { throw MusicBenchError.failed("\(path): seek failed") }
        var link: Int32 = 0
        while true {
            let n = pcm.withUnsafeMutableBufferPointer { b -> Int in
                guard let base = b.baseAddress else { return 0 }
                return ov_read(vf, base, Int32(b.count), 0, 2, 1, &link)
            }
            if n <= 0 { break }
            frames += n / (2 * channels)
        }
    }
    return (Double(frames) / rate, threadCPUSeconds() - cpu0)
}

/// A 30 s stereo 44.1 kHz piece: two tones, a sweep and pink noise, Vorbis quality 5.
private func makeTestPiece(in directory: URL) throws -> String {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let wav = directory.appendingPathComponent("piece.wav").path
    let ogg = directory.appendingPathComponent("piece.ogg").path
    try runTool("/usr/bin/sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "30",
                                 "sine", "220", "sine", "330-1760", "pinknoise", "remix", "1,3", "2,3", "vol", "0.3"])
    try runTool("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libvorbis", "-q:a", "5", ogg])
    return ogg
}

private func runTool(_ tool: String, _ arguments: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = arguments
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw MusicBenchError.failed("\(tool) exited with \(p.terminationStatus)") }
}

private func monotonicSeconds() -> Double { Clocks.monotonic() }
private func threadCPUSeconds() -> Double { Clocks.threadCPU() }
