/// One channel of a multichannel file as a mono ``StreamDecoder``: how a stream whose channel
/// count has no OpenAL format (``StreamLayout``) is played as a group of mono streams.
///
/// The channels share one decoder through a ``ChannelSplit``: the streams of a group decode the
/// same frames in the same pump (same rate, loops and seeks), so the first channel to ask for a
/// block decodes it and the others copy their channel from it. A channel that asks for frames the
/// block does not hold (it was seeked alone) makes the split seek and decode again: each channel
/// always gets its own frames, never another position's.
final class ChannelSplit {
    let decoder: any StreamDecoder
    /// The last block decoded: interleaved, starting at file frame `blockStart`.
    private var block: [Float] = []
    private var blockStart = 0
    private var blockFrames = 0
    /// Where the shared decoder is.
    private var position = 0

    init(_ decoder: any StreamDecoder) { self.decoder = decoder }

    /// The mono decoders, one per channel.
    func channels() -> [ChannelDecoder] {
        (0..<decoder.channels).map { ChannelDecoder(split: self, channel: $0) }
    }

    /// Copies channel `channel` of frames `start ..< start + frames` into `buffer`; returns how
    /// many frames there were (fewer at the end of the file).
    fileprivate func read(channel: Int, start: Int, into buffer: UnsafeMutablePointer<Float>,
                          frames: Int) throws(EarshotError) -> Int {
        if start < blockStart || start + frames > blockStart + blockFrames {
            // Not held: decode a block from `start` (at least `frames`).
            if position != start { try decoder.seek(toFrame: start) }
            let n = decoder.channels
            if block.count < frames * n { block = [Float](repeating: 0, count: frames * n) }
            var got = 0
            while got < frames {
                let r = try block.withUnsafeMutableBufferPointer { (b) throws(EarshotError) -> Int in
                    guard let base = b.baseAddress else { return 0 }
                    return try decoder.read(into: base + got * n, frames: frames - got)
                }
                if r <= 0 { break }
                got += r
            }
            blockStart = start
            blockFrames = got
            position = start + got
        }
        let n = decoder.channels
        let available = max(0, min(frames, blockStart + blockFrames - start))
        let from = start - blockStart
        block.withUnsafeBufferPointer { b in
            for i in 0..<available { buffer[i] = b[(from + i) * n + channel] }
        }
        return available
    }

    func close() { decoder.close() }
}

/// Channel `channel` of a ``ChannelSplit``'s file, as a mono decoder.
final class ChannelDecoder: StreamDecoder {
    let split: ChannelSplit
    let channel: Int
    private var position = 0

    init(split: ChannelSplit, channel: Int) {
        self.split = split
        self.channel = channel
    }

    var facts: StreamFileInfo {
        var f = split.decoder.facts
        f.channels = 1
        return f
    }

    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(EarshotError) -> Int {
        let got = try split.read(channel: channel, start: position, into: buffer, frames: frames)
        position += got
        return got
    }

    func seek(toFrame frame: Int) throws(EarshotError) {
        guard frame >= 0, frame <= frameCount else {
            throw .decodeFailed(path: path, reason: "seek to frame \(frame) outside 0…\(frameCount)")
        }
        position = frame
    }

    func close() { split.close() }
}
