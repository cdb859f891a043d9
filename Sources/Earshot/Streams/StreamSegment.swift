/// A stretch of a queued buffer: `count` frames from `offset` in the buffer that hold file frames
/// `fileFrame…` (or silence, `fileFrame == nil`, the lead-in of a track queued to play after
/// another). A buffer that crosses a loop seam holds two segments.
struct StreamSegment: Equatable {
    var offset: Int
    var fileFrame: Int?
    var count: Int
    /// File frames per frame of the buffer: 1, or the rate of time-stretched audio (a stretched
    /// segment maps to the file within one stretcher sequence, see ``TimeStretcher``).
    var step: Double = 1
}

/// Decoded frames waiting to be uploaded into an OpenAL buffer.
struct StagedChunk {
    var samples: [Float]
    var frames: Int
    var segments: [StreamSegment]

    static func silence(frames: Int, channels: Int) -> StagedChunk {
        StagedChunk(samples: [Float](repeating: 0, count: frames * channels), frames: frames,
                    segments: [StreamSegment(offset: 0, fileFrame: nil, count: frames)])
    }
}
