// libFuzzer harness for Earshot's CAF reader and IMA4 decoder.
//
// Built by `make fuzz` (Makefile.fuzz.mk) with `swiftc -sanitize=fuzzer,address` together with
// CAFReader.swift, IMA4Decoder.swift, PCMAudio.swift and EarshotError.swift only: those files
// need no OpenAL, libsndfile or vorbisfile. Not part of the SwiftPM package.

/// Runs one input through everything the reader does with hostile bytes: parse, decode, and a
/// raw IMA4 decode of the bytes as packets. Any EarshotError is an accepted outcome; a crash,
/// a sanitizer report, a hang or an allocation beyond libFuzzer's -rss_limit_mb is a finding.
enum CAFFuzz {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        do {
            let file = try CAFReader.parse(bytes, name: "fuzz")
            // The parse result must describe ranges inside the input.
            precondition(file.audioOffset >= 0 && file.audioOffset + file.audioByteCount <= bytes.count, "audio range outside the input")  // trap: a finding
            precondition(file.firstFrame + file.frameCount <= file.packetCount * file.format.framesPerPacket, "frames beyond the packets")  // trap: a finding
            let audio = try CAFReader.decode(file, bytes: bytes, name: "fuzz")
            precondition(audio.frameCount == file.frameCount, "decoded \(audio.frameCount) frames, parsed \(file.frameCount)")  // trap: a finding
        } catch {
            _ = error.description
        }

        // The IMA4 decoder on its own: first byte picks 1–4 channels, the rest are packets.
        guard bytes.count > 1 else { return }
        let channels = Int(bytes[0] % 4) + 1
        let body = UnsafeRawBufferPointer(rebasing: bytes[1...])
        let packets = body.count / (34 * channels)
        var decoder = IMA4Decoder(channels: channels)
        var out = [Int16](repeating: 0, count: packets * 64 * channels)
        out.withUnsafeMutableBufferPointer { dst in
            do throws(EarshotError) { try decoder.decode(packets: body, count: packets, into: dst) } catch { _ = error.description }
        }
    }
}
