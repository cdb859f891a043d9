// libFuzzer harnesses for every clip and music decoder. Built by `make fuzz` (Makefile.fuzz.mk)
// with swiftc -sanitize=fuzzer,address from the decoder sources alone (no OpenAL), one binary
// per target, the target chosen at compile time by -D (FUZZ_SNDFILE, FUZZ_VORBIS, FUZZ_MEMORY,
// FUZZ_SNIFF, FUZZ_MUSIC_SNDFILE, FUZZ_MUSIC_VORBIS, FUZZ_MP3; FUZZ_MARKERS and FUZZ_CHAPTERS
// run MarkerFuzz.swift's harnesses). Any EarshotError is an accepted outcome; a
// crash, a sanitizer report (leaks included), a hang or memory beyond -rss_limit_mb is a finding.
#if canImport(Glibc)
import Glibc
#endif

/// The decode limit the fuzzers run under: 16 MiB of samples, so that a bomb is refused by the
/// limit check — as in the engine — rather than by libFuzzer's RSS limit.
let fuzzOptions = ClipDecoder.Options(maxBytes: 16 << 20)

enum DecoderFuzz {
    /// WAV/AIFF/FLAC/Ogg/CAF … through libsndfile's virtual I/O (never handed Ogg Vorbis).
    static func sndfile(_ bytes: UnsafeRawBufferPointer) {
        do throws(EarshotError) {
            let audio = try SndFileDecoder.decode(bytes, name: "fuzz", options: fuzzOptions)
            precondition(audio.byteCount <= fuzzOptions.maxBytes, "decoded past the limit")  // trap: a finding
        } catch { _ = error.description }
    }

    /// Ogg Vorbis through libvorbisfile's callbacks.
    static func vorbis(_ bytes: UnsafeRawBufferPointer) {
        do throws(EarshotError) {
            let audio = try VorbisFileDecoder.decode(bytes, name: "fuzz", options: fuzzOptions)
            precondition(audio.byteCount <= fuzzOptions.maxBytes, "decoded past the limit")  // trap: a finding
        } catch { _ = error.description }
        do throws(EarshotError) { _ = try VorbisFileDecoder.inspect(bytes, name: "fuzz") } catch { _ = error.description }
    }

    /// The in-memory front door (`ClipDecoder.decode(data:)`, a `MemorySource` under every library).
    static func memory(_ bytes: UnsafeRawBufferPointer) {
        let data = [UInt8](bytes)
        data.withUnsafeBytes { cursorAgainstModel($0) }
        do throws(EarshotError) {
            let audio = try ClipDecoder.decode(data: data, name: "fuzz", options: fuzzOptions)
            precondition(audio.byteCount <= fuzzOptions.maxBytes, "decoded past the limit")  // trap: a finding
        } catch { _ = error.description }
    }

    /// Format sniffing and header inspection (`route(for:)`, `inspect(data:)`).
    static func sniff(_ bytes: UnsafeRawBufferPointer) {
        // decode(path:) routes on the first sniffBytes bytes, decode(data:) on all of them: a file
        // must take the same decoder from disk and from memory.
        let whole = ClipDecoder.route(for: bytes)
        let head = ClipDecoder.route(for: UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, ClipDecoder.sniffBytes)]))
        precondition(whole == head, "route \(whole) from the whole file, \(head) from its first \(ClipDecoder.sniffBytes) bytes")  // trap: a finding
        do throws(EarshotError) {
            let info = try ClipDecoder.inspect(data: [UInt8](bytes), name: "fuzz")
            if let frames = info.frames { precondition(frames <= ClipFileInfo.maxPlausibleFrames, "implausible length reported") }  // trap: a finding
        } catch { _ = error.description }
    }

    /// A music stream decoder on the bytes written to a file (they open paths): open, read
    /// blocks, seek to places the first bytes pick, read again.
    static func music(_ bytes: UnsafeRawBufferPointer, vorbis: Bool) {
        let path = "/dev/shm/earshot-fuzz-\(getpid())" + (vorbis ? ".ogg" : ".snd")
        guard let f = fopen(path, "wb") else { return }
        if let base = bytes.baseAddress { fwrite(base, 1, bytes.count, f) }
        fclose(f)
        defer { unlink(path) }
        do throws(EarshotError) {
            let decoder: any StreamDecoder
            if vorbis {
                guard let d = try VorbisStreamDecoder.openIfVorbis(path: path) else { return }
                decoder = d
            } else {
                decoder = try SndFileStreamDecoder(path: path)
            }
            guard (1...2).contains(decoder.channels), decoder.frameCount > 0 else { return }
            var buffer = [Float](repeating: 0, count: 1_024 * decoder.channels)
            var total = 0
            for round in 0..<3 {
                while total < 1 << 20 {
                    let n = try buffer.withUnsafeMutableBufferPointer { (b) throws(EarshotError) -> Int in
                        guard let base = b.baseAddress else { return 0 }
                        return try decoder.read(into: base, frames: 1_024)
                    }
                    precondition(n >= 0 && n <= 1_024, "read \(n) frames of 1024")  // trap: a finding
                    if n == 0 { break }
                    total += n
                }
                let pick = bytes.count > round ? Int(bytes[round]) : 0
                try decoder.seek(toFrame: min(decoder.frameCount, decoder.frameCount * pick / 255))
            }
        } catch { _ = error.description }
    }
}

extension DecoderFuzz {
    /// MP3 (libsndfile 1.2 through libmpg123): the clip decoder from memory and the music
    /// stream decoder from a file. The seeds are MP3s (make-seeds.sh); libFuzzer mutates bytes.
    static func mp3(_ bytes: UnsafeRawBufferPointer) {
        sndfile(bytes)
        music(bytes, vorbis: false)
    }

    /// MemorySource (the cursor under every library's virtual I/O) against a model of lseek/read:
    /// the input's last byte picks up to 31 operations, each made of 9 bytes read backwards from
    /// the end (1 byte kind, 8 bytes little-endian argument), run over the whole input. Every
    /// read must copy exactly the model's bytes; every seek must land where lseek would, or fail
    /// leaving the cursor where it was; ASan catches any access outside the buffer.
    static func cursorAgainstModel(_ buf: UnsafeRawBufferPointer) {
        guard let last = buf.last else { return }
        let n = min(Int(last & 31), (buf.count - 1) / 9)
        let source = MemorySource(buf)
        var model = 0
        var scratch = [UInt8](repeating: 0, count: 4096)
        for i in 0..<n {
            let at = buf.count - 1 - (i + 1) * 9
            let kind = buf[at] % 5
            var arg: Int64 = 0
            for b in 0..<8 { arg |= Int64(buf[at + 1 + b]) << (8 * b) }
            if kind == 0 {
                let count = Int(truncatingIfNeeded: arg) % 8192   // negative counts too
                let got = scratch.withUnsafeMutableBytes { dst in source.read(into: dst.baseAddress, count: min(count, dst.count)) }
                let expected = max(0, min(min(count, scratch.count), buf.count - model))
                precondition(got == expected, "read(\(count)) at \(model) of \(buf.count) returned \(got), expected \(expected)")  // trap: a finding
                for j in 0..<got { precondition(scratch[j] == buf[model + j], "read copied the wrong byte") }  // trap: a finding
                model += got
            } else {
                let whence: Int32 = kind == 1 ? SEEK_SET : kind == 2 ? SEEK_CUR : kind == 3 ? SEEK_END : 77
                let origin: Int64? = kind == 1 ? 0 : kind == 2 ? Int64(model) : kind == 3 ? Int64(buf.count) : nil
                var expected: Int?
                if let origin {
                    let (t, o) = origin.addingReportingOverflow(arg)
                    if !o, t >= 0, t <= Int64(buf.count) { expected = Int(t) }
                }
                let got = source.seek(offset: arg, whence: whence)
                precondition(got == expected, "seek(\(arg), \(whence)) from \(model) returned \(String(describing: got)), expected \(String(describing: expected))")  // trap: a finding
                if let got { model = got }
            }
            precondition(source.position == model, "position \(source.position), model \(model)")  // trap: a finding
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    #if FUZZ_SNDFILE
    DecoderFuzz.sndfile(bytes)
    #elseif FUZZ_VORBIS
    DecoderFuzz.vorbis(bytes)
    #elseif FUZZ_MEMORY
    DecoderFuzz.memory(bytes)
    #elseif FUZZ_SNIFF
    DecoderFuzz.sniff(bytes)
    #elseif FUZZ_MUSIC_SNDFILE
    DecoderFuzz.music(bytes, vorbis: false)
    #elseif FUZZ_MUSIC_VORBIS
    DecoderFuzz.music(bytes, vorbis: true)
    #elseif FUZZ_MP3
    DecoderFuzz.mp3(bytes)
    #elseif FUZZ_MARKERS
    MarkerFuzz.markers(bytes)
    #elseif FUZZ_CHAPTERS
    MarkerFuzz.chapters(bytes)
    #endif
    return 0
}
