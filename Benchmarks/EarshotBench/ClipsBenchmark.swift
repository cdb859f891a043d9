import Earshot
import Foundation

/// `earshot-bench clips [--assets DIR] [--seconds S]`: IMA4 decode throughput, preload time of a
/// whole asset folder, and ffmpeg's `adpcm_ima_qt` decode of the same IMA4 file, in one run.
enum ClipsBenchmark {
    static func run(_ arguments: [String]) throws {
        var assets = "Assets"
        var seconds = 60.0
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--assets" where i + 1 < arguments.count: assets = arguments[i + 1]; i += 1
            case "--seconds" where i + 1 < arguments.count: seconds = Double(arguments[i + 1]) ?? seconds; i += 1
            default: throw BenchError("unknown option \(arguments[i]) (use --assets DIR, --seconds S)")
            }
            i += 1
        }
        guard let ffmpeg = which("ffmpeg") else { throw BenchError("ffmpeg is needed to make the IMA4 material (apt-get install ffmpeg)") }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // 1. IMA4 decode: stereo 44.1 kHz music-like material, decoded from memory, best of several passes.
        let ima4 = work.appendingPathComponent("material.caf").path
        try shell(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                           "aevalsrc=0.6*sin(2*PI*220*t)*sin(2*PI*0.5*t)+0.2*(random(0)*2-1)|0.5*sin(2*PI*330*t)+0.3*(random(1)*2-1):s=44100:d=\(seconds)",
                           "-c:a", "adpcm_ima_qt", ima4])
        let bytes = try FileBytes.read(path: ima4)
        let file = try CAFReader.parse(bytes, name: ima4)
        let samples = file.packetCount * 64 * file.format.channels
        var best = Double.infinity
        var checksum = 0
        for _ in 0..<7 {
            let t0 = Clocks.monotonic()
            let audio = try CAFReader.decode(bytes, name: ima4)
            best = min(best, Clocks.monotonic() - t0)
            if case .int16(let s) = audio.samples { checksum &+= Int(s[s.count / 2]) }
        }
        // The decoder alone, without the container and the output allocation.
        var coreBest = Double.infinity
        var out = [Int16](repeating: 0, count: samples)
        try bytes.withUnsafeBytes { raw in
            let audio = UnsafeRawBufferPointer(rebasing: raw[file.audioOffset..<(file.audioOffset + file.packetCount * file.format.bytesPerPacket)])
            for _ in 0..<7 {
                var decoder = IMA4Decoder(channels: file.format.channels)
                let t0 = Clocks.monotonic()
                try out.withUnsafeMutableBufferPointer { try decoder.decode(packets: audio, count: file.packetCount, into: $0) }
                coreBest = min(coreBest, Clocks.monotonic() - t0)
            }
        }
        checksum &+= Int(out[samples / 3])
        print(String(format: "IMA4 decode (CAFReader.decode, %.0f s stereo 44.1 kHz, %d samples): %.1f ms = %.1f M samples/s",
                     seconds, samples, best * 1e3, Double(samples) / best / 1e6))
        print(String(format: "IMA4 decode (IMA4Decoder core only):                          %.1f ms = %.1f M samples/s",
                     coreBest * 1e3, Double(samples) / coreBest / 1e6))

        // 2. ffmpeg's adpcm_ima_qt on the same file: whole process, and ffmpeg's own -benchmark time.
        var ffBest = Double.infinity
        var ffReported = Double.infinity
        for _ in 0..<3 {
            let t0 = Clocks.monotonic()
            let log = try shell(ffmpeg, ["-hide_banner", "-nostdin", "-benchmark", "-y", "-i", ima4, "-f", "s16le", "/dev/null"], stderr: true)
            ffBest = min(ffBest, Clocks.monotonic() - t0)
            if let r = log.range(of: "rtime=") {
                let text = log[r.upperBound...].prefix { $0 == "." || $0.isNumber }
                ffReported = min(ffReported, Double(text) ?? .infinity)
            }
        }
        print(String(format: "ffmpeg adpcm_ima_qt decode of the same file: %.1f ms whole process = %.1f M samples/s; ffmpeg -benchmark rtime %.1f ms = %.1f M samples/s",
                     ffBest * 1e3, Double(samples) / ffBest / 1e6, ffReported * 1e3, Double(samples) / ffReported / 1e6))

        // 3. Preload everything in the assets folder (or a generated game-like set when it is empty).
        var folder = assets
        var files = audioFiles(in: folder)
        if files.isEmpty {
            folder = work.appendingPathComponent("Assets").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try generateAssets(in: folder, ffmpeg: ffmpeg)
            files = audioFiles(in: folder)
            print("(\(assets)/ has no audio files: preloading \(files.count) generated ones instead)")
        }
        let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
        defer { engine.shutdown() }
        var preloadBest = Double.infinity
        var total = 0
        var failures = 0
        for _ in 0..<5 {
            let bank = ClipBank(engine: engine)
            let requests = files.map { ClipBank.Request(name: $0, path: $0) }
            let t0 = Clocks.monotonic()
            failures = bank.preload(requests) { _ in }.count
            preloadBest = min(preloadBest, Clocks.monotonic() - t0)
            total = bank.totalBytes
            bank.unloadAll()
        }
        let encoded = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        print(String(format: "preload %d files from %@ (%.1f MB encoded → %.1f MB PCM, %d failed): %.1f ms",
                     files.count, folder, Double(encoded) / 1e6, Double(total) / 1e6, failures, preloadBest * 1e3))
        print("(checksum \(checksum))")
    }

    static func audioFiles(in folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        let extensions: Set<String> = ["caf", "wav", "aif", "aiff", "aifc", "flac", "ogg", "oga", "opus"]
        return walker.compactMap { $0 as? String }
            .filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { folder + "/" + $0 }
            .sorted()
    }

    /// 24 effects of 0.2–2 s: mostly IMA4 CAF (as games ship them), some WAV, Ogg and FLAC.
    static func generateAssets(in folder: String, ffmpeg: String) throws {
        let kinds: [(String, String)] = [("caf", "adpcm_ima_qt"), ("caf", "adpcm_ima_qt"), ("caf", "adpcm_ima_qt"),
                                         ("caf", "pcm_s16le"), ("wav", "pcm_s16le"), ("ogg", "libvorbis"), ("flac", "flac"),
                                         ("caf", "adpcm_ima_qt")]
        for i in 0..<24 {
            let (ext, codec) = kinds[i % kinds.count]
            let duration = 0.2 + Double(i % 10) * 0.2
            let channels = i % 3 == 0 ? "|0.3*sin(2*PI*\(300 + i * 10)*t)" : ""
            try shell(ffmpeg, ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                               "aevalsrc=0.5*sin(2*PI*\(200 + i * 37)*t)*exp(-3*t)+0.05*(random(\(i))*2-1)\(channels):s=44100:d=\(duration)",
                               "-c:a", codec, "\(folder)/sfx\(i).\(ext)"])
        }
    }

    static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    @discardableResult
    static func shell(_ tool: String, _ arguments: [String], stderr: Bool = false) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        if stderr { process.standardError = pipe } else { process.standardOutput = pipe }
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(tool) \(arguments.joined(separator: " ")) failed") }
        return String(decoding: data, as: UTF8.self)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
