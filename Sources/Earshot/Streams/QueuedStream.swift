import COpenAL

/// One OpenAL buffer on a track's source queue and what it holds.
struct QueuedBuffer {
    var buffer: ALuint
    var frames: Int
    var segments: [StreamSegment]
    /// The samples queued (before a stereo track's balance): the meters read them and a
    /// scheduled stop queues their first part again.
    var samples: [Float]?
}

/// The state of one stream: decoder, source, buffer queue, position bookkeeping.
///
/// Owned by the `StreamSystem` while it holds a source, and by its handle (a ``MusicTrack``, an
/// ``AudioStream``, which holds one per channel when its channels are split: ``StreamLayout``);
/// every field is touched only under the stream system's lock (hence `@unchecked Sendable`).
/// AL calls on `source` additionally happen inside `withAL`.
///
/// The queue mirrors OpenAL's buffer queue exactly (head first), so `AL_SAMPLE_OFFSET` — which
/// counts from the head of the queue, processed buffers included — maps to a file frame by
/// walking the queue's segments: positions are sample-accurate across loop seams and seeks.
final class QueuedStream: @unchecked Sendable {
    enum State { case idle, playing, paused }

    let decoder: any StreamDecoder
    let path: String
    /// The bus the stream plays on: its gain, pause, stop, snapshots and ducking apply.
    let bus: Bus
    /// The emitter the track follows (``MusicTrack/follow(_:)``), nil for a head-relative track.
    var emitter: Emitter?
    /// Where a mono stream that is one channel of a split file sits, head-relative
    /// (``StreamLayout/speakerPosition(channel:of:)``); nil: placed by ``pan`` or ``emitter``.
    var speaker: Vector3?
    /// The sound field (an ambisonic bed) this stream is part of, turned as a whole each frame
    /// (StreamSystem+Field.swift); nil for every other stream.
    var field: SoundFieldPlacement?
    /// What ``StreamSystem/applyField(_:to:source:host:)`` last sent (nil: just claimed).
    var placedField: [Float]?
    /// The emitter's properties last sent to the source (nil: the source is head-relative or
    /// just claimed).
    var placedAtEmitter: SpatialProperties?
    let channels: Int
    let fileRate: Int
    let frameCount: Int

    // Settings
    var volume: Float = 1
    var pan: Float = 0
    var rate: Float = 1
    var rateMode: MusicTrack.RateMode = .keepsPitch
    var numberOfLoops = 0
    var loopRegion: Range<Int>?
    var meteringEnabled = false
    var fade: FadeState?
    /// The volume to restore after a crossfade's fade-out has stopped the track.
    var pendingRestore: Float?

    // Playback
    var state: State = .idle
    /// A play session (play … end) is under way and owes exactly one end event.
    var sessionActive = false
    /// Paused by a hold (an audio-session interruption, or the track's bus paused by
    /// `setPaused(_:for:)` or `pauseAll(except:)`); resumed when the last hold is lifted
    /// (``StreamSystem/syncBusHolds(host:)``).
    var heldBySession = false
    var source: ALuint?
    /// The AL_GAIN last set on `source` (nil: not known, e.g. just claimed), so that an unchanged
    /// gain is not sent to OpenAL again.
    var appliedGain: Float?
    var freeBuffers: [ALuint] = []
    var queue: [QueuedBuffer] = []
    /// Recently played buffers (metering only), newest last.
    var history: [QueuedBuffer] = []
    /// The file frame the decoder produces next.
    var decodeFrame = 0
    /// Further passes of the loop region still to decode (−1 = forever).
    var loopsLeft = 0
    /// The decoder has produced its last frame for this session (end of file or failure).
    var decoderDone = false
    /// The stream has nothing more to queue: the decoder is done and the time-stretcher (if any)
    /// has handed out everything. Setting it true ends the stream now (an OpenAL failure);
    /// false lets decoding go on (loops added after the end was reached).
    var exhausted: Bool {
        get { decoderDone && stretchedFrames == 0 && (stretcher?.bufferedFrames ?? 0) == 0 }
        set {
            decoderDone = newValue
            if newValue { dropStretcher() } else { stretcher?.reopen() }
        }
    }
    /// The time-stretcher while the track plays at a rate other than 1 in `keepsPitch` mode (and
    /// until it has handed out what it holds after the rate returned to 1); nil otherwise, and
    /// chunks come straight from the decoder.
    private var stretcher: TimeStretcher?
    /// Stretched frames not yet staged, and where they come from.
    private var stretchedOutput: [Float] = []
    private var stretchedMarks: [TimeStretcher.Mark] = []
    /// The stretcher's output frame of `stretchedOutput[0]`.
    private var stretchedStart = 0
    private var stretchedFrames: Int { stretchedOutput.count / channels }
    /// The file frames behind the stretcher's input (stream frame → file frame, in order).
    private var inputMap: [(stream: Int, file: Int, count: Int)] = []
    /// The pitch OpenAL plays the queue at: the rate on a tape, 1 when the rate is stretched.
    var sourcePitch: Float { rateMode == .tape ? rate : 1 }
    var failure: EarshotError?
    /// The file frame to report (and resume from) while no queue exists.
    var idlePosition = 0
    /// The track to start when this one ends (gaplessly, with a silent lead-in).
    var next: QueuedStream?
    /// This track has been queued behind another one and waits for it.
    var waiting = false
    var underruns = 0
    /// The file frame heard at `lastHeardClock` (music clock), recorded at each pump while the
    /// source plays: where to resume after the output device is lost.
    var lastHeardFrame: Int?
    var lastHeardClock: Double = 0
    /// Loops left when the device was lost (restored with the track).
    var loopsLeftAtLoss: Int?
    var meters: MeterReading
    /// Its power as the bus meters read it, measured at the last pump (0 while not playing).
    var streamedPower: Float = 0

    // Time (StreamSystem+Schedule.swift)
    /// Who its marker events come from (its handle, held weakly by the closure); nil or a nil
    /// result: no markers are reported.
    var markerOrigin: (() -> MarkerEvent.Origin?)?
    /// The audio time a scheduled start (``MusicTrack/play(at:)``) waits for; nil when none is pending.
    var startAt: Double?
    /// The audio time a scheduled stop (``MusicTrack/stop(at:)``) waits for.
    var stopAt: Double?
    /// The queue was trimmed to end on the frame of a scheduled stop: when the source stops, the
    /// track ends (`.stopped`) at ``stopPosition`` rather than underrunning.
    var endsAtQueueEnd = false
    var stopPosition = 0
    /// Beats and bars to report (``MusicTrack/tempo``).
    var tempo: Tempo?
    /// Markers given in code (``MusicTrack/markers``), and their file frames in order.
    var cues: [MusicTrack.Cue] = []
    var cueFrames: [(name: String, frame: Int)] = []
    /// Frames unqueued from the source since it was claimed (the absolute position of the
    /// queue's head), and how far markers have been looked for, on the same scale.
    var queueBase = 0
    var scannedTo = 0
    /// The file frame the last marker search ended at (nil: a new queue).
    var scanFile: Double?
    var hasMarks: Bool { tempo != nil || !cueFrames.isEmpty }
    /// Beats and bars heard at or after this audio time are not reported: a ``MusicSet`` state
    /// that is left stops counting at its boundary while it fades out (nil: no cut-off).
    var beatsUntil: Double?
    /// The stems of one ``MusicSet`` state share a group: after a device loss they resume from
    /// one position (``StreamSystem/alignGroupsAfterLoss()``).
    var group: ObjectIdentifier?
    var onEnd: (@Sendable (MusicTrack.Event) -> Void)?

    let events: AsyncStream<MusicTrack.Event>
    let continuation: AsyncStream<MusicTrack.Event>.Continuation
    /// Where a plain stream's ends go (``AudioStream/events``: every consumer sees every end),
    /// finished with the stream system; nil for a music track, whose ends go to `events`.
    let broadcast: EventBroadcast<MusicTrack.Event>?

    init(decoder: any StreamDecoder, bus: Bus = .music, broadcast: EventBroadcast<MusicTrack.Event>? = nil) {
        self.broadcast = broadcast
        self.decoder = decoder
        self.bus = bus
        path = decoder.path
        channels = decoder.channels
        fileRate = decoder.sampleRate
        frameCount = decoder.frameCount
        meters = .silent(channels: decoder.channels)
        (events, continuation) = AsyncStream.makeStream(of: MusicTrack.Event.self, bufferingPolicy: .unbounded)
    }

    deinit {
        continuation.finish()
        broadcast?.finish()
    }

    // MARK: Decoding (no OpenAL)

    /// The next `frames` frames to queue (fewer at the end), or nil when the stream has nothing
    /// more: straight from the decoder (``decodeFile(frames:)``), or through the time-stretcher
    /// when the rate is not 1 and the track keeps its pitch.
    func decodeChunk(frames: Int) -> StagedChunk? {
        guard frames > 0 else { return nil }
        let stretching = rateMode == .keepsPitch && rate != 1
        if stretcher == nil {
            guard stretching else { return decodeFile(frames: frames) }
            stretcher = TimeStretcher(channels: channels, sampleRate: fileRate)
            stretchedStart = 0
            inputMap.removeAll()
        }
        guard var st = stretcher else { return nil }
        st.targetRate = rateMode == .keepsPitch ? Double(rate) : 1
        // A stream that starts (or restarts after a seek) at a rate starts at that rate; a
        // change while it plays glides.
        if queue.isEmpty, st.outputFrames == 0 { st.jumpToTargetRate() }
        // Feed the stretcher until it has `frames` frames of output (or the file ends).
        let feed = max(frames, 2 * st.sequence + st.seek)
        while stretchedFrames < frames {
            if !st.isFinished {
                if let chunk = decodeFile(frames: feed) {
                    for seg in chunk.segments {
                        if let f = seg.fileFrame { inputMap.append((st.inputEnd + seg.offset, f, seg.count)) }
                    }
                    chunk.samples.withUnsafeBufferPointer { st.append($0) }
                } else {
                    st.finish()
                }
            }
            let before = stretchedFrames
            st.process(into: &stretchedOutput, marks: &stretchedMarks)
            if stretchedFrames == before, st.isFinished { break }
        }
        let take = min(frames, stretchedFrames)
        let chunk = take > 0 ? stageStretched(frames: take) : nil
        stretcher = st
        if decoderDone || st.isIdle, st.bufferedFrames == 0, stretchedFrames == 0 {
            // Back at rate 1 with nothing held (or the end): chunks come from the decoder again.
            dropStretcher()
        }
        return chunk
    }

    /// Takes the first `n` stretched frames as a chunk whose segments map them to file frames.
    private func stageStretched(frames n: Int) -> StagedChunk {
        let samples = Array(stretchedOutput[0..<(n * channels)])
        stretchedOutput.removeFirst(n * channels)
        var segments: [StreamSegment] = []
        let end = stretchedStart + n
        for (i, mark) in stretchedMarks.enumerated() {
            let next = i + 1 < stretchedMarks.count ? stretchedMarks[i + 1].outputFrame : Int.max
            let from = max(mark.outputFrame, stretchedStart), to = min(next, end)
            guard from < to else { continue }
            let stream = mark.streamFrame + Double(from - mark.outputFrame) * mark.step
            segments += fileSegments(stream: stream, step: mark.step, offset: from - stretchedStart, count: to - from)
        }
        // Marks wholly before the new start are done with; the last one that reaches past it stays.
        if let keep = stretchedMarks.lastIndex(where: { $0.outputFrame <= end }) { stretchedMarks.removeFirst(keep) }
        stretchedStart = end
        // Input runs that no pending mark and no future output can refer to are done with.
        if let st = stretcher {
            let marked = stretchedMarks.map { Int($0.streamFrame.rounded(.down)) }.min() ?? Int.max
            let oldest = min(marked, st.inputStart - st.overlap)
            if let first = inputMap.first, first.stream + first.count <= oldest {
                inputMap.removeAll { $0.stream + $0.count <= oldest }
            }
        }
        return StagedChunk(samples: samples, frames: n, segments: segments)
    }

    /// Segments for `count` output frames from stream frame `stream` on: at step 1 one per input
    /// run (exact across loop seams), otherwise one whose file frame is that of its first frame.
    private func fileSegments(stream: Double, step: Double, offset: Int, count: Int) -> [StreamSegment] {
        func file(_ s: Int) -> (frame: Int, left: Int)? {
            guard let e = inputMap.last(where: { $0.stream <= s }) else { return nil }
            return (min(frameCount, e.file + (s - e.stream)), max(0, e.stream + e.count - s))
        }
        let first = Int(stream.rounded(.down))
        guard step == 1 else {
            return [StreamSegment(offset: offset, fileFrame: file(first)?.frame ?? decodeFrame, count: count, step: step)]
        }
        var out: [StreamSegment] = []
        var done = 0
        while done < count {
            guard let (f, left) = file(first + done), left > 0 else {
                out.append(StreamSegment(offset: offset + done, fileFrame: file(first + done)?.frame ?? decodeFrame, count: count - done))
                break
            }
            let n = min(left, count - done)
            out.append(StreamSegment(offset: offset + done, fileFrame: f, count: n))
            done += n
        }
        return out
    }

    /// Forgets the time-stretcher and what it held (a seek, a restart, a failure, or its work done).
    func dropStretcher() {
        stretcher = nil
        stretchedOutput.removeAll()
        stretchedMarks.removeAll()
        stretchedStart = 0
        inputMap.removeAll()
    }

    /// Decodes up to `frames` frames, wrapping at the loop end inside the stream (gapless: the
    /// frames after the seam come from the same decoder, seeked sample-accurately). Returns nil
    /// when the stream has nothing more. A decode error ends the stream: what was decoded before
    /// it is returned, ``failure`` is set and ``decoderDone`` becomes true.
    private func decodeFile(frames: Int) -> StagedChunk? {
        guard !decoderDone, frames > 0 else { return nil }
        var samples = [Float](repeating: 0, count: frames * channels)
        var filled = 0
        var segments: [StreamSegment] = []
        var progressSinceWrap = true
        do throws(EarshotError) {
            while filled < frames {
                var want = frames - filled
                if let end = loopEnd { want = min(want, max(0, end - decodeFrame)) }
                var got = 0
                if want > 0 {
                    got = try samples.withUnsafeMutableBufferPointer { (buf) throws(EarshotError) -> Int in
                        guard let base = buf.baseAddress else { return 0 }
                        return try decoder.read(into: base + filled * channels, frames: want)
                    }
                }
                if got > 0 {
                    if let last = segments.last, let lf = last.fileFrame, lf + last.count == decodeFrame {
                        segments[segments.count - 1].count += got
                    } else {
                        segments.append(StreamSegment(offset: filled, fileFrame: decodeFrame, count: got))
                    }
                    filled += got
                    decodeFrame += got
                    progressSinceWrap = true
                    continue
                }
                // At the loop end or the end of the file.
                guard loopsLeft != 0 else {
                    decoderDone = true
                    break
                }
                guard progressSinceWrap else {
                    throw EarshotError.decodeFailed(path: path, reason: "the loop region yields no audio")
                }
                let start = loopRegion?.lowerBound ?? 0
                if try copyShortLoop(from: start, into: &samples, filled: &filled, frames: frames, segments: &segments) {
                    progressSinceWrap = true
                    continue
                }
                try decoder.seek(toFrame: start)
                decodeFrame = start
                if loopsLeft > 0 { loopsLeft -= 1 }
                progressSinceWrap = false
            }
        } catch {
            failure = error
            decoderDone = true
        }
        guard filled > 0 else { return nil }
        if filled < frames { samples.removeSubrange((filled * channels)...) }
        return StagedChunk(samples: samples, frames: filled, segments: segments)
    }

    /// A short loop's frames, decoded once (its range in the file, interleaved samples):
    /// QueuedStream+ShortLoop.swift.
    var shortLoop: (range: Range<Int>, samples: [Float])?

    /// Where the decoder must wrap: the loop region's end while passes remain and the decoder is
    /// before it; nil to read to the end of the file.
    private var loopEnd: Int? {
        guard loopsLeft != 0, let region = loopRegion, decodeFrame <= region.upperBound else { return nil }
        return region.upperBound
    }

    /// Moves the decoder to `frame` for a new stretch of playback.
    func restartDecoder(at frame: Int) {
        decoderDone = false
        dropStretcher()
        failure = nil
        do throws(EarshotError) {
            if decodeFrame != frame { try decoder.seek(toFrame: frame) }
            decodeFrame = frame
        } catch {
            failure = error
            decoderDone = true
        }
    }

    // MARK: Queue bookkeeping

    /// Frames on the queue (processed ones not yet unqueued included).
    var queuedFrames: Int { queue.reduce(0) { $0 + $1.frames } }

    /// The file frame being played at queue offset `offset` (`AL_SAMPLE_OFFSET`): silence maps to
    /// the first file frame after it; past the end of the queue, the frame after the last one
    /// queued.
    func fileFrame(atQueueOffset offset: Int) -> Int {
        var base = 0   // queue offset where the current entry starts
        var inSilence = false
        for entry in queue {
            for seg in entry.segments {
                if inSilence {
                    if let f = seg.fileFrame { return f }
                    continue
                }
                let segStart = base + seg.offset
                if offset < segStart + seg.count {
                    if let f = seg.fileFrame {
                        let into = max(0, offset - segStart)
                        return seg.step == 1 ? f + into : min(frameCount, f + Int((Double(into) * seg.step).rounded(.down)))
                    }
                    inSilence = true
                }
            }
            base += entry.frames
        }
        for entry in queue.reversed() {
            if let seg = entry.segments.last(where: { $0.fileFrame != nil }), let f = seg.fileFrame {
                return min(frameCount, f + Int((Double(seg.count) * seg.step).rounded()))
            }
        }
        return source == nil ? idlePosition : decodeFrame
    }

    /// Levels of the `window` frames that end at queue offset `offset` (the frame playing now).
    func measure(atQueueOffset offset: Int, window: Int) -> MeterReading {
        // Blocks in play order: history, then queue; the play point is in the queue.
        var blocks: [(samples: [Float], frames: Int)] = []
        for e in history { if let s = e.samples { blocks.append((s, e.frames)) } else { blocks.removeAll() } }
        var off = max(0, offset)
        for e in queue {
            let take = min(off, e.frames)
            guard take > 0 else { break }
            if let s = e.samples { blocks.append((s, take)) } else { blocks.removeAll() }
            off -= take
        }
        var acc = MeterReading.Accumulator(channels: channels)
        var need = window
        for block in blocks.reversed() where need > 0 {
            let n = min(need, block.frames)
            block.samples.withUnsafeBufferPointer { acc.add($0, start: block.frames - n, frames: n) }
            need -= n
        }
        return acc.reading
    }

    /// The mean square (over the channels) of the `window` frames queued from queue offset
    /// `offset` on, as played (0 where the queue holds no samples): what the bus meters read.
    func power(atQueueOffset offset: Int, window: Int) -> Float {
        var base = 0, sum: Float = 0, counted = 0
        let from = max(0, offset), to = from + max(1, window)
        for e in queue {
            defer { base += e.frames }
            guard base + e.frames > from else { continue }
            guard base < to else { break }
            guard let samples = e.samples else { continue }
            let a = max(from, base) - base, b = min(to, base + e.frames) - base
            samples.withUnsafeBufferPointer { buf in
                for i in (a * channels)..<min(buf.count, b * channels) { sum += buf[i] * buf[i] }
            }
            counted += b - a
        }
        return counted > 0 ? sum / Float(counted * channels) : 0
    }

    /// Keeps the newest played buffers that together cover `window` frames.
    func trimHistory(window: Int) {
        var total = 0
        var keep = 0
        for e in history.reversed() {
            guard total < window else { break }
            total += e.frames
            keep += 1
        }
        history.removeFirst(history.count - keep)
    }
}
