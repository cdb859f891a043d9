import CVorbisFile

/// Reads markers from the Vorbis comments of an Ogg Vorbis file, in the chapter convention
/// (the Xiph "Chapter Extension", written by ffmpeg and read by VLC and foobar2000):
///
/// ```text
/// CHAPTER000=00:00:00.250
/// CHAPTER000NAME=hit
/// CHAPTER001=00:00:00.750
/// CHAPTER001NAME=line
/// ```
///
/// Keys are matched without regard to case; numbers run 000 … 999 (so at most 1,000 markers). A
/// time is `H:MM:SS` with one or more hour digits (at most 6) and an optional fraction of up to 9
/// digits, turned into the nearest frame at the stream's rate with integer arithmetic (0.25 s at
/// 44.1 kHz is frame 11,025 exactly). A chapter whose time does not parse is left out (counted);
/// a name without a time is ignored. Each chapter is a ``Marker/Kind/cue`` whose id is its number.
///
/// ```swift
/// let lines = ["CHAPTER000=00:00:00.250", "CHAPTER000NAME=hit"].map { Array($0.utf8) }
/// let (markers, leftOut) = VorbisCommentMarkers.parse(comments: lines, sampleRate: 48_000)
/// print(markers[0].frame, leftOut)   // 12000 0
/// ```
enum VorbisCommentMarkers {
    /// The longest time value read (`HHHHHH:MM:SS.fffffffff` is 22 bytes).
    static let maxTimeBytes = 64

    /// The chapters of the Ogg Vorbis file at `path`, checked against `frameCount` (the length
    /// of its audio, as for every format: see ``MarkerReader/read(path:frameCount:)``).
    static func read(path: String, frameCount: Int) throws(EarshotError) -> FileMarkers {
        try VorbisFileDecoder.withFile(path) { (vf, _) throws(EarshotError) in
            try read(vf, name: path, frames: frameCount)
        }
    }

    /// The chapters of Ogg Vorbis bytes in memory, checked against `frameCount`.
    static func read(_ bytes: UnsafeRawBufferPointer, name: String, frameCount: Int) throws(EarshotError) -> FileMarkers
    {
        try VorbisFileDecoder.withMemoryFile(bytes, name: name) { (vf, _) throws(EarshotError) in
            try read(vf, name: name, frames: frameCount)
        }
    }

    private static func read(
        _ vf: UnsafeMutablePointer<OggVorbis_File>, name: String, frames: Int
    ) throws(EarshotError) -> FileMarkers {
        guard let info = ov_info(vf, -1), info.pointee.rate > 0 else {
            throw .malformedFile("\(name): no Vorbis stream information")
        }
        guard let vc = ov_comment(vf, -1) else { return FileMarkers() }
        let count = Int(vc.pointee.comments)
        var lines: [[UInt8]] = []
        if count > 0, let texts = vc.pointee.user_comments, let lengths = vc.pointee.comment_lengths {
            for i in 0..<count {
                guard let text = texts[i], lengths[i] > 8 else { continue }
                // Only comments that can be chapters are copied, and only what is read of them.
                let head = UnsafeRawBufferPointer(start: text, count: 7)
                guard head.elementsEqual("CHAPTER".utf8, by: { $0 & 0xDF == $1 }) else { continue }
                let keep = min(Int(lengths[i]), 16 + MarkerReader.maxNameBytes + maxTimeBytes)
                lines.append(Array(UnsafeRawBufferPointer(start: text, count: keep)))
            }
        }
        let (markers, leftOut) = parse(comments: lines, sampleRate: Int(info.pointee.rate))
        return MarkerReader.finish(markers, frameCount: frames, leftOut: leftOut)
    }

    /// The chapters among `comments` (each `KEY=value` as bytes) at `sampleRate`, and how many
    /// chapters were left out because their time did not parse.
    static func parse(comments: [[UInt8]], sampleRate: Int) -> (markers: [Marker], leftOut: Int) {
        var times: [Int: Int] = [:], names: [Int: String] = [:]
        var leftOut = 0
        var order: [Int] = []
        for c in comments {
            guard let eq = c.firstIndex(of: UInt8(ascii: "=")), eq >= 10 else { continue }
            let key = c[..<eq].map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
            guard key.starts(with: "CHAPTER".utf8) else { continue }
            let digits = key[7..<10]
            guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { continue }
            let number = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            let value = c[(eq + 1)...]
            if key.count == 10 {
                guard times[number] == nil else { continue }   // the first of a repeated key counts
                if let frame = frame(value, sampleRate: sampleRate) {
                    times[number] = frame
                    order.append(number)
                } else {
                    leftOut += 1
                }
            } else if key[10...].elementsEqual("NAME".utf8), names[number] == nil {
                names[number] = MarkerReader.name(value)
            }
        }
        let markers = order.map { Marker(name: names[$0] ?? "", frame: times[$0] ?? 0, kind: .cue, id: $0) }
        return (markers, leftOut)
    }

    /// `H:MM:SS[.f]` as the nearest frame at `sampleRate`, or nil when it does not parse.
    static func frame<C: Collection>(_ value: C, sampleRate: Int) -> Int? where C.Element == UInt8 {
        guard value.count <= maxTimeBytes, sampleRate > 0, sampleRate <= 768_000 else { return nil }
        let text = Array(value)
        let parts = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let secondsPart = parts[2].split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        func number(_ d: ArraySlice<UInt8>, maxDigits: Int) -> Int? {
            guard !d.isEmpty, d.count <= maxDigits, d.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return d.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard let h = number(parts[0], maxDigits: 6), let m = number(parts[1], maxDigits: 2), m < 60,
              let s = number(secondsPart[0], maxDigits: 2), s < 60 else { return nil }
        var fraction = 0, scale = 1
        if secondsPart.count == 2 {
            guard let f = number(secondsPart[1], maxDigits: 9) else { return nil }
            fraction = f
            scale = (0..<secondsPart[1].count).reduce(1) { r, _ in r * 10 }
        }
        // h < 10⁶: whole seconds < 3.6·10⁹, × 768,000 < 2.8·10¹⁵; fraction × rate < 7.7·10¹⁴.
        let whole = (h * 3_600 + m * 60 + s) * sampleRate
        return whole + (fraction * sampleRate + scale / 2) / scale
    }
}
