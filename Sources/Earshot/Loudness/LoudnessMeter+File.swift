/// Measuring a whole file: decoded in blocks of 100 ms through the stream decoders (any length
/// in bounded memory), so `earshot info FILE` and a designer's check read what ffmpeg's
/// `ebur128` filter reads.
extension LoudnessMeter {
    /// The loudness and true peak of the audio file at `path` (every format a stream plays: WAV,
    /// AIFF, CAF, FLAC, Ogg Vorbis and Opus, MP3, 1…16 channels); `truePeak: false` skips the
    /// true peak (a third of the cost).
    ///
    /// Throws what opening and decoding the file throws (``EarshotError/fileNotFound(path:)``,
    /// ``EarshotError/unreadableFile(path:reason:)``, ``EarshotError/decodeFailed(path:reason:)``…),
    /// and ``EarshotError/unsupportedEncoding(_:)`` for a rate outside ``sampleRates``.
    ///
    /// ```swift
    /// let r = try LoudnessMeter.measure(path: "Assets/Sounds/beep.wav")
    /// print(r.summary)
    /// ```
    public static func measure(path: String, truePeak: Bool = true) throws(EarshotError) -> LoudnessReading {
        let decoder = try StreamDecoders.open(path: path)
        defer { decoder.close() }
        guard sampleRates.contains(decoder.sampleRate) else {
            throw .unsupportedEncoding("\(path): \(decoder.sampleRate) Hz (loudness is measured at \(sampleRates.lowerBound)…\(sampleRates.upperBound) Hz)")
        }
        let meter = try LoudnessMeter(channels: decoder.channels, sampleRate: decoder.sampleRate, truePeak: truePeak)
        let block = max(1, decoder.sampleRate / 10)
        var buffer = [Float](repeating: 0, count: block * decoder.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { (b) throws(EarshotError) -> Int in
                guard let base = b.baseAddress else { return 0 }
                return try decoder.read(into: base, frames: block)
            }
            guard n > 0 else { break }
            try buffer.withUnsafeBufferPointer { (b) throws(EarshotError) in
                try meter.add(UnsafeBufferPointer(rebasing: b[0..<(n * decoder.channels)]))
            }
        }
        return meter.reading()
    }
}
