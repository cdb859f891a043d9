import Foundation

/// The loudness a sound is normalised by (`loudness: -23` on a sound of a scene or bank): a
/// clip file's integrated loudness, or for a short one-shot its max momentary loudness.
///
/// - A clip of at least ``shortClipSeconds`` (3 s, one short-term window) is measured by its
///   integrated (gated) loudness: what a loop, an ambience or a line of dialogue sounds like over
///   its length.
/// - A shorter clip (a footstep, a shot, a UI click) is measured by its max momentary loudness,
///   the loudest 400 ms: integrated loudness is undefined under 400 ms and, over a second or
///   two, averages a one-shot's attack with its tail. A clip under 400 ms reads its 400 ms window
///   with the silence after it counted (as a meter reads it).
///
/// Files the stream decoders cannot read (Apple IMA4 in CAF, which only Earshot's clip decoder
/// reads, known by the CAF header's format) are measured from the clip decoder's output, as the
/// engine plays them; any other file through the stream decoders, whose errors are thrown as
/// they are (a cut file is not measured on what is left).
///
/// Measured once per file and kept (``measure(path:)``, keyed by the file's path, size and
/// modification time; at most ``cacheLimit`` files), so a bank's reload or a second scene
/// measures only what changed.
///
/// ```swift
/// let l = try ClipLoudness.measure(path: "Assets/Sounds/beep.wav")
/// print(l.lufs ?? -.infinity, l.basis)                      // -12.1 maxMomentary
/// print(l.gainDecibels(toward: -23) ?? 0)                   // -10.9: played 10.9 dB down
/// ```
public struct ClipLoudness: Sendable, Equatable {
    /// What the number is.
    public enum Basis: String, Sendable, Equatable {
        case integrated, maxMomentary
    }

    /// Clips shorter than this (seconds) are measured by their max momentary loudness.
    public static let shortClipSeconds = 3.0
    /// The most files whose loudness is kept.
    public static let cacheLimit = 4_096

    /// LUFS; nil for a silent clip (nothing above −70 LUFS).
    public var lufs: Double?
    public var basis: Basis

    public init(lufs: Double?, basis: Basis) {
        self.lufs = lufs
        self.basis = basis
    }

    /// The clip's loudness from a full measurement of `seconds` of it.
    public init(_ r: LoudnessReading) {
        if r.seconds >= Self.shortClipSeconds {
            self.init(lufs: r.integrated, basis: .integrated)
        } else {
            self.init(lufs: r.maxMomentary, basis: .maxMomentary)
        }
    }

    /// The gain in dB that brings it to `target` LUFS (nil for a silent clip: left as it is).
    public func gainDecibels(toward target: Double) -> Double? { lufs.map { target - $0 } }

    /// The loudness of the file at `path`, measured once (see the type's doc). Throws what
    /// ``LoudnessMeter/measure(path:truePeak:)`` throws — for an IMA4 CAF what
    /// ``ClipDecoder/decode(path:options:)`` throws.
    public static func measure(path: String) throws(EarshotError) -> ClipLoudness {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let key = "\(path)\u{0}\(attributes?[.size] as? Int ?? -1)\u{0}\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        if let known = cache.withLock({ $0[key] }) { return known }
        let reading: LoudnessReading
        let head = try FileBytes.readPrefix(path: path, count: ClipDecoder.sniffBytes)
        if head.withUnsafeBytes({ ClipDecoder.route(for: $0) }) == .caf {
            // A CAF encoding only the clip decoder reads (Apple IMA4): measured as the engine
            // decodes it to play it, within the clip decoder's own size limit. Chosen by the
            // file's header, not by a failure of the stream decoder, so that an unreadable,
            // cut or malformed file of any other kind is reported as what it is (the clip
            // decoder reads cut files leniently and would measure what is left).
            reading = try Self.measure(ClipDecoder.decode(path: path))
        } else {
            reading = try LoudnessMeter.measure(path: path, truePeak: false)
        }
        let loudness = ClipLoudness(reading)
        cache.withLock { c in
            if c.count >= cacheLimit { c.removeAll() }   // rare: start over rather than grow
            c[key] = loudness
        }
        return loudness
    }

    /// Decoded audio's loudness, fed to the meter 100 ms at a time (no float copy of the whole).
    static func measure(_ audio: PCMAudio) throws(EarshotError) -> LoudnessReading {
        let meter = try LoudnessMeter(channels: audio.channels, sampleRate: audio.sampleRate, truePeak: false)
        let block = max(1, audio.sampleRate / 10) * audio.channels
        var buffer = [Float](repeating: 0, count: block)
        var start = 0
        while start < audio.samples.count {
            let n = min(block, audio.samples.count - start)
            switch audio.samples {
            case .int16(let s): for k in 0..<n { buffer[k] = Float(s[start + k]) / 32_768 }
            case .float32(let s): for k in 0..<n { buffer[k] = s[start + k] }
            }
            try buffer.withUnsafeBufferPointer { (b) throws(EarshotError) in try meter.add(UnsafeBufferPointer(rebasing: b[0..<n])) }
            start += n
        }
        return meter.reading()
    }

    private static let cache = Locked<[String: ClipLoudness]>([:])
}
