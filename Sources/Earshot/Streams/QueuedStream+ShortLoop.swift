/// Short loops held in memory: a loop of a few frames decoded once and copied pass by pass.
extension QueuedStream {
    /// The most frames a loop may span and be held in memory (``copyShortLoop``): 16,384
    /// (128 KiB of stereo floats).
    static let shortLoopFrames = 16_384

    /// At a loop seam, for a loop of at most ``shortLoopFrames``: copies whole passes of it from
    /// memory into `samples` (one segment each) while passes remain and there is room, instead
    /// of a seek and a read per pass — a looping one-frame file cost ten times the CPU of a
    /// normal track that way. Leaves the decoder where `decodeFrame` says. False
    /// when the loop is longer (or yields nothing): the caller seeks as usual.
    func copyShortLoop(from start: Int, into samples: inout [Float], filled: inout Int, frames: Int,
                               segments: inout [StreamSegment]) throws(EarshotError) -> Bool {
        let end = loopRegion?.upperBound ?? decodeFrame   // at the end of the file when no region
        guard end > start, end - start <= Self.shortLoopFrames else { return false }
        if shortLoop?.range != start..<end {
            var held = [Float](repeating: 0, count: (end - start) * channels)
            try decoder.seek(toFrame: start)
            var got = 0
            while got < end - start {
                let n = try held.withUnsafeMutableBufferPointer { (buf) throws(EarshotError) -> Int in
                    guard let base = buf.baseAddress else { return 0 }
                    return try decoder.read(into: base + got * channels, frames: end - start - got)
                }
                if n <= 0 { break }
                got += n
            }
            decodeFrame = start + got   // where the decoder is now
            guard got == end - start else { return false }
            shortLoop = (start..<end, held)
        }
        guard let loop = shortLoop else { return false }
        let span = loop.range.count
        while filled < frames, loopsLeft != 0 {
            if loopsLeft > 0 { loopsLeft -= 1 }
            let n = min(span, frames - filled)
            samples.withUnsafeMutableBufferPointer { dst in
                loop.samples.withUnsafeBufferPointer { src in
                    guard let d = dst.baseAddress, let s = src.baseAddress else { return }
                    (d + filled * channels).update(from: s, count: n * channels)
                }
            }
            segments.append(StreamSegment(offset: filled, fileFrame: start, count: n))
            filled += n
            decodeFrame = start + n
        }
        // A pass cut by the end of the chunk goes on from the decoder; a whole one left it at the end.
        if decodeFrame != end { try decoder.seek(toFrame: decodeFrame) }
        return true
    }
}
