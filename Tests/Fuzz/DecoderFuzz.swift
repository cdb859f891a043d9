// libFuzzer harnesses for every clip and music decoder. Built by `make fuzz` (Makefile.fuzz.mk)
// with swiftc -sanitize=fuzzer,address from the decoder sources alone (no OpenAL), one binary
// per target, the target chosen at compile time by -D (FUZZ_SNDFILE, FUZZ_VORBIS, FUZZ_MEMORY,
// FUZZ_SNIFF, FUZZ_MUSIC_SNDFILE, FUZZ_MUSIC_VORBIS). Any EarshotError is an accepted outcome; a
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
        do throws(EarshotError) {
            let audio = try ClipDecoder.decode(data: data, name: "fuzz", options: fuzzOptions)
            precondition(audio.byteCount <= fuzzOptions.maxBytes, "decoded past the limit")  // trap: a finding
        } catch { _ = error.description }
    }

    /// Format sniffing and header inspection (`route(for:)`, `inspect(data:)`).
    static func sniff(_ bytes: UnsafeRawBufferPointer) {
        _ = ClipDecoder.route(for: bytes)
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
            let decoder: any MusicDecoder
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
    #endif
    return 0
}
