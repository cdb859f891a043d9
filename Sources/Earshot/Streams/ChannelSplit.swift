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
    /// The window reaches the end of the file: a read past it gets what there is.
    private var blockAtEnd = false
    /// The most frames the window keeps (1 s at 48 kHz; 16 channels: 3 MB): enough for a group's
    /// decode-ahead, so that each channel does not decode the file again.
    static let windowFrames = 48_000

    init(_ decoder: any StreamDecoder) { self.decoder = decoder }

    /// The mono decoders, one per channel.
    func channels() -> [ChannelDecoder] {
        (0..<decoder.channels).map { ChannelDecoder(split: self, channel: $0) }
    }

    /// Copies channel `channel` of frames `start ..< start + frames` into `buffer`; returns how
    /// many frames there were (fewer at the end of the file).
    fileprivate func read(channel: Int, start: Int, into buffer: UnsafeMutablePointer<Float>,
                          frames: Int) throws(EarshotError) -> Int {
        let n = decoder.channels
        let blockEnd = blockStart + blockFrames
        let held = start >= blockStart && (start + frames <= blockEnd || (blockAtEnd && start <= blockEnd))
        if !held {
            if start == blockEnd, blockFrames > 0, !blockAtEnd {
                // The next frames after the window (the first channel of a group decoding
                // ahead): appended, so the channels started after it find them still held.
                try decodeAppending(frames: frames)
                let excess = blockFrames - max(Self.windowFrames, frames)
                if excess > 0 {
                    block.removeFirst(excess * n)
                    blockStart += excess
                    blockFrames -= excess
                }
            } else {
                // Not held: decode a new window from `start`.
                if position != start { try decoder.seek(toFrame: start) }
                block.removeAll(keepingCapacity: true)
                blockStart = start
                blockFrames = 0
                position = start
                blockAtEnd = false
                try decodeAppending(frames: frames)
            }
        }
        let available = max(0, min(frames, blockStart + blockFrames - start))
        let from = start - blockStart
        block.withUnsafeBufferPointer { b in
            for i in 0..<available { buffer[i] = b[(from + i) * n + channel] }
        }
        return available
    }

    /// Decodes up to `frames` frames at ``position`` onto the end of the window; a short count
    /// marks the end of the file.
    private func decodeAppending(frames: Int) throws(EarshotError) {
        let n = decoder.channels
        let old = block.count
        block.append(contentsOf: repeatElement(0, count: frames * n))
        var got = 0
        while got < frames {
            let r = try block.withUnsafeMutableBufferPointer { (b) throws(EarshotError) -> Int in
                guard let base = b.baseAddress else { return 0 }
                return try decoder.read(into: base + old + got * n, frames: frames - got)
            }
            if r <= 0 { break }
            got += r
        }
        block.removeLast((frames - got) * n)
        blockFrames += got
        position += got
        blockAtEnd = got < frames
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
