/// The decode step before upload: a ``StreamDecoder`` over an ambisonic file that hands the
/// stream layer what it plays — for first order the four FuMa channels OpenAL's
/// `AL_EXT_BFORMAT3D` takes (W × 1/√2, X, Y, Z), for orders 2 and 3 one feed per virtual
/// loudspeaker (``AmbisonicDecoderMatrix``). Reads, seeks and closes go to the file's decoder.
final class AmbisonicStreamDecoder: StreamDecoder {
    let source: any StreamDecoder
    let format: AmbisonicFormat
    let order: Int
    let matrix: AmbisonicDecoderMatrix?
    let facts: StreamFileInfo
    /// The file's frames as read, and as AmbiX; grown to the largest read asked for (a chunk).
    private var raw: [Float] = []
    private var ambix: [Float] = []

    /// `source` must hold 4, 9 or 16 channels (checked by the caller: ``AmbisonicBed``).
    init(_ source: any StreamDecoder, format: AmbisonicFormat, order: Int, matrix: AmbisonicDecoderMatrix?) {
        self.source = source
        self.format = format
        self.order = order
        self.matrix = matrix
        var facts = source.facts
        facts.channels = matrix?.speakers.count ?? 4
        self.facts = facts
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(EarshotError) -> Int {
        let k = source.channels
        if raw.count < frames * k { raw = [Float](repeating: 0, count: frames * k) }
        let got = try raw.withUnsafeMutableBufferPointer { (b) throws(EarshotError) -> Int in
            guard let base = b.baseAddress else { return 0 }
            return try source.read(into: base, frames: frames)
        }
        guard got > 0 else { return 0 }
        if let matrix {
            if ambix.count < got * k { ambix = [Float](repeating: 0, count: got * k) }
            raw.withUnsafeBufferPointer { r in
                ambix.withUnsafeMutableBufferPointer { a in
                    guard let rb = r.baseAddress, let ab = a.baseAddress else { return }
                    format.toAmbiX(rb, ab, frames: got, channels: k)
                    matrix.decode(ab, buffer, frames: got)
                }
            }
        } else {
            Self.toFuMaFirstOrder(raw, format: format, into: buffer, frames: got)
        }
        return got
    }

    /// First order to the FuMa B-format OpenAL takes: AmbiX W Y Z X → W/√2 X Y Z; FuMa as is.
    static func toFuMaFirstOrder(_ input: [Float], format: AmbisonicFormat, into out: UnsafeMutablePointer<Float>, frames: Int) {
        let w = Float(Double(0.5).squareRoot())
        for f in 0..<frames {
            let i = f * 4
            switch format {
            case .ambix:
                out[i] = input[i] * w
                out[i + 1] = input[i + 3]
                out[i + 2] = input[i + 1]
                out[i + 3] = input[i + 2]
            case .fuma:
                out[i] = input[i]; out[i + 1] = input[i + 1]; out[i + 2] = input[i + 2]; out[i + 3] = input[i + 3]
            }
        }
    }

    func seek(toFrame frame: Int) throws(EarshotError) { try source.seek(toFrame: frame) }

    func close() { source.close() }
}

/// A decoded clip as a ``StreamDecoder``: a bed loaded whole (``AmbisonicBed/Loading/clip``)
/// plays from memory through the same stream path, with no file read while it plays.
final class PCMStreamDecoder: StreamDecoder {
    let facts: StreamFileInfo
    private var samples: [Float]
    private var position = 0
    private var closed = false

    init(_ audio: PCMAudio, path: String) {
        switch audio.samples {
        case .float32(let s): samples = s
        case .int16(let s): samples = s.map { Float($0) / 32768 }
        }
        facts = StreamFileInfo(path: path, sampleRate: audio.sampleRate, channels: audio.channels,
                               frameCount: samples.count / max(audio.channels, 1))
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(EarshotError) -> Int {
        guard !closed else { throw .engineShutDown }
        let n = min(frames, facts.frameCount - position)
        guard n > 0 else { return 0 }
        let c = facts.channels
        samples.withUnsafeBufferPointer { s in
            guard let base = s.baseAddress else { return }
            buffer.update(from: base + position * c, count: n * c)
        }
        position += n
        return n
    }

    func seek(toFrame frame: Int) throws(EarshotError) {
        guard !closed else { throw .engineShutDown }
        position = min(max(0, frame), facts.frameCount)
    }

    func close() {
        closed = true
        samples = []
    }
}
