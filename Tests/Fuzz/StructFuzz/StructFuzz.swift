// The structure-aware fuzzer (issue 24): reads real seed files of one container (ffmpeg and sox
// write them: Tests/Fuzz/make-seeds.sh), and for each case copies one, maybe edits its structure
// (chunks, blocks, pages or frames inserted, duplicated, dropped, swapped, truncated; crafted
// chunks the seeds lack), then sets one to three *fields* (sizes, counts, rates, channels,
// offsets, codes) to edge values of their own width — 0, 1, max, max−1, the sign boundary,
// the original ±1 … — and makes the checksums true again (Ogg pages, FLAC frames) so that the
// libraries parse past them. Every case goes through the clip decoders from memory and
// `inspect`; every fourth through the path doors too (written to /dev/shm), and every eighth
// through the music stream decoders. Built with -sanitize=address by `make struct-fuzz`
// (Makefile.fuzz.mk); in-process, no libFuzzer, so a case costs what the decoders cost.
//
//   struct-fuzz CONTAINER SEED_DIR CASES [RNG_SEED] [OUT_DIR]
//
// CONTAINER is caf, wav, aiff, flac, ogg or mp3. The case being run is kept in
// OUT_DIR/struct-CONTAINER-current before it runs: when the process dies by a signal (a trap,
// an ASan report, SIGALRM after 20 s for a hang) that file is the input that did it. The
// result of a run is its exit status: 0 clean; anything else a finding.
#if canImport(Glibc)
import Glibc
#endif

/// LeakSanitizer's check that reports and carries on (ASan builds only).
@_silgen_name("__lsan_do_recoverable_leak_check")
func lsanRecoverableLeakCheck() -> Int32

@main
enum StructFuzz {
    static let options = ClipDecoder.Options(maxBytes: 16 << 20)

    static func main() {
        let args = CommandLine.arguments
        if args.count == 3, args[1] == "replay" { replay(args[2]) }
        guard args.count >= 4, let container = Container(rawValue: args[1]), let cases = Int(args[3]) else {
            fputs("usage: struct-fuzz caf|wav|aiff|flac|ogg|mp3 SEED_DIR CASES [RNG_SEED] [OUT_DIR]\n", stderr)
            exit(2)
        }
        let seeds = loadSeeds(args[2], container)
        guard !seeds.isEmpty else { fputs("no \(container.seedExtensions) seeds in \(args[2])\n", stderr); exit(2) }
        var rng = FuzzRNG(seed: args.count > 4 ? UInt64(args[4]) ?? 1 : 1)
        let out = args.count > 5 ? args[5] : "."
        let current = open("\(out)/struct-\(container)-current", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard current >= 0 else { fputs("cannot write \(out)\n", stderr); exit(2) }
        let scratch = "/dev/shm/earshot-struct-\(getpid())." + container.seedExtensions[0]
        defer { unlink(scratch) }

        // STRUCT_LEAK_CHECK=N: a leak check after every Nth case (1: every case; slow), to find the
        // case that leaked; STRUCT_FROM=K: cases before K are generated (the same sequence) but not run.
        let leakEvery = getenv("STRUCT_LEAK_CHECK").flatMap { Int(String(cString: $0)) } ?? 0
        markersOnly = getenv("STRUCT_MARKERS").map { String(cString: $0) == "1" } ?? false
        let from = getenv("STRUCT_FROM").flatMap { Int(String(cString: $0)) } ?? 0
        var tally: [String: Int] = [:]
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        for i in 0..<cases {
            var bytes = seeds[rng.below(seeds.count)]
            mutate(&bytes, container, others: seeds, rng: &rng)
            if i < from { continue }
            _ = ftruncate(current, 0)
            _ = bytes.withUnsafeBytes { pwrite(current, $0.baseAddress, $0.count, 0) }
            alarm(20)
            tally[run(bytes, container, path: i % 4 == 0 ? scratch : nil, music: i % 8 == 0), default: 0] += 1
            alarm(0)
            if leakEvery > 0, (i + 1) % leakEvery == 0, lsanRecoverableLeakCheck() != 0 {
                fputs("leak by case \(i) (checked every \(leakEvery)): the last case is kept in \(out)/struct-\(container)-current\n", stderr)
                unlink(scratch)
                exit(1)
            }
            if (i + 1) % 100_000 == 0 { progress(i + 1, start, tally) }
        }
        progress(cases, start, tally)
        _ = ftruncate(current, 0)
        close(current)
    }

    /// `struct-fuzz replay FILE`: every door on one input, a leak check after each, naming the
    /// door that leaked.
    static func replay(_ file: String) -> Never {
        guard let bytes = try? FileBytes.read(path: file) else { fputs("cannot read \(file)\n", stderr); exit(2) }
        var leaked = false
        func door(_ name: String, _ body: () -> Void) {
            body()
            if lsanRecoverableLeakCheck() != 0 { fputs("^^^ leaked in \(name)\n", stderr); leaked = true }
        }
        door("decode(data:)") { _ = try? ClipDecoder.decode(data: bytes, name: file, options: options) }
        door("inspect(data:)") { _ = try? ClipDecoder.inspect(data: bytes, name: file) }
        door("decode(path:)") { _ = try? ClipDecoder.decode(path: file, options: options) }
        door("inspect(path:)") { _ = try? ClipDecoder.inspect(path: file) }
        door("music") { streamMusic(file) }
        exit(leaked ? 1 : 0)
    }

    static func progress(_ n: Int, _ start: timespec, _ tally: [String: Int]) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
        let parts = tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("#\(n) cases in \(Int(seconds)) s (\(Int(Double(n) / max(seconds, 0.001)))/s): \(parts)")
        fflush(stdout)
    }

    static func loadSeeds(_ dir: String, _ c: Container) -> [[UInt8]] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [[UInt8]] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let ext = name.split(separator: ".").last, c.seedExtensions.contains(String(ext)) else { continue }
            if let bytes = try? FileBytes.read(path: "\(dir)/\(name)") { out.append(bytes) }
        }
        return out
    }

    /// One case: structure, then fields, then checksums.
    static func mutate(_ b: inout [UInt8], _ c: Container, others: [[UInt8]], rng: inout FuzzRNG) {
        if rng.chance(35) {
            for _ in 0..<(1 + rng.below(2)) {
                switch c {
                case .caf, .wav, .aiff: ChunkLayouts.restructure(&b, c, rng: &rng)
                case .flac: StreamLayouts.flacRestructure(&b, rng: &rng)
                case .ogg: StreamLayouts.oggRestructure(&b, others: others, rng: &rng)
                case .mp3: StreamLayouts.mp3Restructure(&b, rng: &rng)
                }
                guard !b.isEmpty else { return }
            }
        }
        let fields: [Field]
        switch c {
        case .caf, .wav, .aiff: fields = ChunkLayouts.fields(b, c)
        case .flac: fields = StreamLayouts.flacFields(b)
        case .ogg: fields = StreamLayouts.oggFields(b)
        case .mp3: fields = StreamLayouts.mp3Fields(b)
        }
        if !fields.isEmpty {
            for _ in 0..<(1 + rng.below(3)) {
                let f = fields[rng.below(fields.count)]
                guard let original = f.read(b) else { continue }
                f.write(f.edgeValue(original: original, rng: &rng), into: &b)
            }
        }
        if rng.chance(8), !b.isEmpty { b[rng.below(b.count)] = UInt8(truncatingIfNeeded: rng.next()) }
        // Cut short (issue 35.9), after the fields: a whole structure that promises what is gone.
        if rng.chance(15), b.count > 1 { b.removeLast(1 + rng.below(b.count - 1)) }
        if c == .ogg, rng.chance(90) { StreamLayouts.oggFixCRCs(&b) }
        if c == .flac, rng.chance(85) { StreamLayouts.flacFixCRCs(&b) }
    }

    /// Runs one case through the decoders; returns the outcome's name for the tally. Any
    /// EarshotError is an accepted outcome; a broken invariant traps (a finding).
    static func run(_ bytes: [UInt8], _ c: Container, path: String?, music: Bool) -> String {
        if markersOnly { return runMarkers(bytes, path: path) }
        let memory = Result { () throws(EarshotError) in try ClipDecoder.decode(data: bytes, name: "fuzz", options: options) }
        if case .success(let audio) = memory {
            precondition(audio.byteCount <= options.maxBytes, "decoded past the limit")  // trap: a finding
            precondition(audio.truncation == nil, "a strict decode kept a truncation")  // trap: a finding
        }
        checkTruncation(bytes, memory)
        if case .success(let info) = Result(catching: { () throws(EarshotError) in try ClipDecoder.inspect(data: bytes, name: "fuzz") }) {
            if let frames = info.frames { precondition(frames <= ClipFileInfo.maxPlausibleFrames, "implausible length reported") }  // trap: a finding
            MarkerFuzz.check(FileMarkers(markers: info.markers, leftOut: info.markersLeftOut, shortened: info.markersShortened),
                             frameCount: info.frames ?? ClipFileInfo.maxPlausibleFrames)
        }
        if let path, !bytes.isEmpty {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            if fd >= 0 {
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                let disk = Result { () throws(EarshotError) in try ClipDecoder.decode(path: path, options: options) }
                if c == .caf, ClipDecoder.route(for: bytes.withUnsafeBytes { UnsafeRawBufferPointer(rebasing: $0[0..<min($0.count, 64)]) }) == .caf {
                    // Earshot's own reader: a path and the same bytes must agree exactly.
                    let named = Result { () throws(EarshotError) in try ClipDecoder.decode(data: bytes, name: path, options: options) }
                    switch (named, disk) {
                    case (.success(let a), .success(let b)): precondition(a == b, "path and memory decode differently")  // trap: a finding
                    case (.failure(let a), .failure(let b)): precondition(a == b, "path and memory fail differently: \(a) / \(b)")  // trap: a finding
                    default: preconditionFailure("path and memory disagree: \(named) / \(disk)")  // trap: a finding
                    }
                }
                _ = try? ClipDecoder.inspect(path: path)
                if music { streamMusic(path) }
            }
        }
        switch memory {
        case .success: return "decoded"
        case .failure(let e):
            switch e {
            case .malformedFile: return "malformed"
            case .unsupportedEncoding: return "unsupported"
            case .unreadableFile: return "unreadable"
            case .tooLarge: return "tooLarge"
            case .truncated: return "truncated"
            default: return "other"
            }
        }
    }

    /// A file cut short (issue 35.9): the error names more frames expected than found, and
    /// lenient loading of the same bytes gives what is there with the truncation recorded — its
    /// found frames those decoded. A whole file decodes the same either way.
    static func checkTruncation(_ bytes: [UInt8], _ strict: Result<PCMAudio, EarshotError>) {
        var lenientOptions = options
        lenientOptions.allowsTruncated = true
        let lenient = Result { () throws(EarshotError) in try ClipDecoder.decode(data: bytes, name: "fuzz", options: lenientOptions) }
        // if-case, not a switch over the pair: swiftc 6.3.1 -O crashed on that (CopyPropagation).
        if case .failure(let error) = strict, case .truncated(_, let expected, let found, _) = error {
            precondition(found >= 0 && (expected.map { $0 > found } ?? true), "truncated: \(String(describing: expected)) expected, \(found) found")  // trap: a finding
            if case .success(let audio) = lenient {
                let cut = audio.truncation
                precondition(cut?.foundFrames == audio.frameCount, "lenient: \(String(describing: cut)) for \(audio.frameCount) frames")  // trap: a finding
            }
        }
        if case .success(let whole) = strict {
            guard case .success(let other) = lenient else { preconditionFailure("a whole file fails when lenient") }  // trap: a finding
            // Frame counts, not samples: float files hold NaNs, which equal nothing.
            precondition(whole.frameCount == other.frameCount && other.truncation == nil, "lenient loading changed a whole file")  // trap: a finding
        }
    }

    /// STRUCT_MARKERS=1: each case goes through the marker readers only (faster, so more cases).
    /// Set once by main before the first case; the fuzzer runs on one thread.
    nonisolated(unsafe) static var markersOnly = false

    /// The marker readers on one case: from memory at a length the case picks, through
    /// `inspect(data:)` at the length it reports, and (when `path` is given) from a file — which
    /// must give exactly what memory gives.
    static func runMarkers(_ bytes: [UInt8], path: String?) -> String {
        let inspected = Result { () throws(EarshotError) in try ClipDecoder.inspect(data: bytes, name: "fuzz") }
        if case .success(let info) = inspected {
            MarkerFuzz.check(FileMarkers(markers: info.markers, leftOut: info.markersLeftOut, shortened: info.markersShortened),
                             frameCount: info.frames ?? ClipFileInfo.maxPlausibleFrames)
        }
        // The length the audio has (most cases), or one at an edge.
        let known = (try? inspected.get())?.frames ?? 400
        let frames = [known, known, known, 0, 1, known + 1, 48_000, ClipFileInfo.maxPlausibleFrames][bytes.count % 8]
        let memory = Result { () throws(EarshotError) in try MarkerReader.read(data: bytes, name: path ?? "fuzz", frameCount: frames) }
        if case .success(let found) = memory { MarkerFuzz.check(found, frameCount: frames) }
        if let path, !bytes.isEmpty {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            if fd >= 0 {
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                let disk = Result { () throws(EarshotError) in try MarkerReader.read(path: path, frameCount: frames) }
                switch (memory, disk) {
                case (.success(let a), .success(let b)): precondition(a == b, "path and memory markers differ")  // trap: a finding
                case (.failure(let a), .failure(let b)): precondition(a == b, "path and memory fail differently: \(a) / \(b)")  // trap: a finding
                default: preconditionFailure("path and memory disagree: \(memory) / \(disk)")  // trap: a finding
                }
            }
        }
        switch memory {
        case .success(let found): return found.markers.isEmpty ? "none" : "markers"
        case .failure(let e):
            switch e {
            case .malformedFile: return "malformed"
            case .unreadableFile: return "unreadable"
            default: return "other"
            }
        }
    }

    /// Opens `path` as music and reads it through, seeking back once.
    static func streamMusic(_ path: String) {
        do throws(EarshotError) {
            let decoder = try MusicDecoders.open(path: path)
            precondition(decoder.frameCount > 0 && decoder.frameCount <= ClipFileInfo.maxPlausibleFrames, "music length \(decoder.frameCount)")  // trap: a finding
            var buffer = [Float](repeating: 0, count: 1_024 * decoder.channels)
            for round in 0..<2 {
                var total = 0
                while total < 1 << 18 {
                    let n = try buffer.withUnsafeMutableBufferPointer { (b) throws(EarshotError) -> Int in
                        guard let base = b.baseAddress else { return 0 }
                        return try decoder.read(into: base, frames: 1_024)
                    }
                    precondition(n >= 0 && n <= 1_024, "read \(n) frames of 1024")  // trap: a finding
                    if n == 0 { break }
                    total += n
                }
                try decoder.seek(toFrame: round == 0 ? decoder.frameCount / 2 : 0)
            }
        } catch { _ = error.description }
    }
}
