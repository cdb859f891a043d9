/// Changes the speed of interleaved float audio without changing its pitch: the time-stretching
/// behind a ``MusicTrack``'s ``MusicTrack/rate`` in ``MusicTrack/RateMode/keepsPitch`` mode.
///
/// The method is WSOLA (waveform-similarity overlap-add). The input is read in *sequences* of
/// ``sequenceSeconds`` (50 ms). Each step takes the next sequence at a nominal input position
/// that advances `rate × (sequence − overlap)` frames per step, shifted forward by up to
/// ``seekSeconds`` (20 ms) to where its first ``overlapSeconds`` (10 ms) best match the end of
/// the previous sequence (the largest normalised cross-correlation, searched every 4th frame and
/// then refined frame by frame), and crossfades the two linearly over that overlap. The output
/// advances `sequence − overlap` frames per step, so it lasts the input's duration divided by the
/// rate, and since every sample is the input's own waveform, its pitch is the input's.
///
/// - A rate change glides: the rate moves towards ``targetRate`` by at most ``glidePerSecond``
///   per second of output, one step at a time, and every step is crossfaded, so a change never
///   makes a click.
/// - At rate 1 (once a glide has reached it) the stretcher passes its input through sample for
///   sample; it enters and leaves this passthrough on the sample where the other mode stopped,
///   so no frame is dropped or repeated at the switch.
/// - Positions: every run of output carries a ``Mark`` naming the input frame it starts at and
///   how many input frames each output frame stands for, so a player can report its position in
///   the file while it plays stretched audio (exact in passthrough, within a sequence otherwise).
/// - The input is a continuous stream (a loop seam is the caller's business: it feeds the frames
///   after the seam right after those before it, and the stretcher treats them as one waveform).
///
/// It allocates as it goes (its buffers hold at most a few sequences plus what one ``append(_:)``
/// brings); it does not lock — its owner (a track's stream) touches it under the stream lock. It
/// has no OpenAL in it and can be used alone.
///
/// ```swift
/// var stretcher = TimeStretcher(channels: 1, sampleRate: 48_000)
/// stretcher.targetRate = 0.5          // half speed, same pitch
/// var out: [Float] = [], marks: [TimeStretcher.Mark] = []
/// let tone = (0..<48_000).map { Float(sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
/// tone.withUnsafeBufferPointer { stretcher.append($0) }
/// stretcher.finish()
/// stretcher.process(into: &out, marks: &marks)   // about 96,000 frames of 440 Hz
/// ```
struct TimeStretcher {
    /// Where a run of output comes from: output frame `outputFrame` (counted from the first frame
    /// this stretcher produced) plays input frame `streamFrame` (counted from the first frame
    /// appended), and each further output frame advances `step` input frames until the next mark.
    struct Mark: Equatable {
        var outputFrame: Int
        var streamFrame: Double
        var step: Double
    }

    /// Length of one sequence (the unit the stretcher cuts and splices).
    static let sequenceSeconds = 0.05
    /// The crossfade between consecutive sequences.
    static let overlapSeconds = 0.01
    /// How far a sequence may shift to match the one before it.
    static let seekSeconds = 0.02
    /// How fast the rate follows ``targetRate``: rate units per second of output.
    static let glidePerSecond = 5.0
    /// The rates the stretcher accepts (a ``MusicTrack`` uses 0.5…2).
    static let rateRange: ClosedRange<Double> = 0.25...4

    let channels: Int
    let sampleRate: Int
    /// Frames of one sequence, of its overlap and of the seek window.
    let sequence: Int, overlap: Int, seek: Int

    /// The rate to reach (clamped to ``rateRange``): input frames per output frame.
    var targetRate: Double = 1 {
        didSet { targetRate = min(Self.rateRange.upperBound, max(Self.rateRange.lowerBound, targetRate.isFinite ? targetRate : 1)) }
    }
    /// The rate of the last step (it glides towards ``targetRate``).
    private(set) var rate: Double = 1

    /// Input frames (interleaved) from stream frame `inputStart` to `inputEnd`.
    private var input: [Float] = []
    private(set) var inputStart = 0
    private(set) var inputEnd = 0
    /// The nominal input position of the next sequence.
    private var position: Double = 0
    /// The last `overlap` frames of the previous sequence, still to be crossfaded (empty: none).
    private var tail: [Float] = []
    /// The input frame right after `tail`: where the waveform continues without a splice.
    private var resume = 0
    /// No more input will come: ``process(into:marks:)`` drains everything.
    private(set) var isFinished = false
    /// The stream frame after the last real input frame, once ``finish()`` padded the input.
    private var realEnd: Int?
    /// Output frames produced so far.
    private(set) var outputFrames = 0

    init(channels: Int, sampleRate: Int) {
        precondition(channels > 0 && sampleRate > 0, "TimeStretcher needs channels and a sample rate")  // trap: programmer error
        self.channels = channels
        self.sampleRate = sampleRate
        sequence = max(64, Int((Self.sequenceSeconds * Double(sampleRate)).rounded()))
        overlap = max(16, Int((Self.overlapSeconds * Double(sampleRate)).rounded()))
        seek = max(8, Int((Self.seekSeconds * Double(sampleRate)).rounded()))
    }

    /// Whether the stretcher holds nothing and passes audio through: its owner may drop it and
    /// read the input directly.
    var isIdle: Bool { rate == 1 && targetRate == 1 && tail.isEmpty && resume == inputEnd }

    /// Input frames appended but not yet turned into output (the stretcher's latency).
    var bufferedFrames: Int { inputEnd - resume + tail.count / channels }

    /// Appends interleaved frames (a whole number of frames) to the input.
    mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        precondition(samples.count % channels == 0, "TimeStretcher.append: not a whole number of frames")  // trap: programmer error
        input.append(contentsOf: samples)
        inputEnd += samples.count / channels
    }

    /// No more input: the stretcher pads the input with silence so that it can stretch up to the
    /// last frame, and ends its output where the input's last frame falls at the rate (a short
    /// fade-out there, as the sequence that would have crossfaded over it is silence).
    mutating func finish() {
        guard !isFinished else { return }
        isFinished = true
        realEnd = inputEnd
        input.append(contentsOf: repeatElement(0, count: (sequence + seek) * channels))
        inputEnd += sequence + seek
    }

    /// More input after all (a loop count raised after the end was reached): the padding goes.
    mutating func reopen() {
        guard isFinished, let end = realEnd else { return }
        isFinished = false
        realEnd = nil
        let keep = max(0, end - inputStart)
        input.removeLast(input.count - min(input.count, keep * channels))
        inputEnd = max(inputStart, end)
        resume = min(resume, inputEnd)
        position = min(position, Double(inputEnd))
    }

    /// Produces every output frame the input allows, appending to `out` and `marks`.
    mutating func process(into out: inout [Float], marks: inout [Mark]) {
        while true {
            if rate == 1 && targetRate == 1 {
                passThrough(into: &out, marks: &marks)
                return
            }
            if let end = realEnd, position >= Double(end) {
                // Past the end of the input: the last tail fades into the silence after it.
                emitTail(into: &out, marks: &marks, fadingOut: true)
                resume = inputEnd
                return
            }
            let p = Int(position.rounded(.down))
            let window = tail.isEmpty ? 1 : seek
            guard inputEnd - p >= sequence + window - 1 else { return }   // more input first
            // Near the end the sequence is taken from the last real frames (shifting back if it
            // must, as WSOLA may), so that the stretch goes on to the nominal end without
            // playing the padding.
            var from = p, last = p + window - 1
            if let end = realEnd, last + sequence > end {
                last = max(inputStart, end - sequence)
                from = max(inputStart, min(from, last - window + 1))
            }
            let start = tail.isEmpty ? from : from + bestOffset(from: from, window: last - from + 1)
            let body = sequence - overlap
            // At the end of the input: only the frames whose nominal position is before it, and
            // none of the silent padding after it.
            var count = body
            if let end = realEnd, position + rate * Double(body) > Double(end) || start + body > end {
                let nominal = Int(((Double(end) - position) / rate).rounded(.up))
                count = max(1, min(body, nominal, end - start))
            }
            marks.append(Mark(outputFrame: outputFrames, streamFrame: position, step: rate))
            input.withUnsafeBufferPointer { inp in
                let base = (start - inputStart) * channels
                var done = 0
                out.reserveCapacity(out.count + count * channels)
                if !tail.isEmpty {
                    let n = min(overlap, count) * channels
                    tail.withUnsafeBufferPointer { t in
                        for i in 0..<n {
                            let w = (Float(i / channels) + 0.5) / Float(overlap)
                            out.append(t[i] + (inp[base + i] - t[i]) * w)
                        }
                    }
                    done = n / channels
                }
                if count > done { out.append(contentsOf: inp[(base + done * channels)..<(base + count * channels)]) }
                tail = Array(inp[(base + body * channels)..<(base + sequence * channels)])
            }
            outputFrames += count
            resume = start + sequence
            position += rate * Double(body)
            if count < body {
                Self.fadeOut(&out, frames: min(count, overlap), channels: channels)
                tail.removeAll()
                resume = inputEnd
                position = Double(realEnd ?? inputEnd)
                return
            }
            glide(outputFrames: body)
            trim(before: min(Int(position.rounded(.down)), resume))
        }
    }

    /// A linear fade to silence over the last `frames` frames of `out`.
    private static func fadeOut(_ out: inout [Float], frames: Int, channels: Int) {
        guard frames > 0 else { return }
        let startFrame = out.count / channels - frames
        for f in 0..<frames {
            let g = Float(frames - f) / Float(frames + 1)
            for c in 0..<channels { out[(startFrame + f) * channels + c] *= g }
        }
    }

    /// Sets the rate to ``targetRate`` at once, without a glide (a stream that starts or
    /// restarts at a rate).
    mutating func jumpToTargetRate() { rate = targetRate }

    /// Moves the rate one step towards the target.
    private mutating func glide(outputFrames n: Int) {
        guard rate != targetRate else { return }
        let most = Self.glidePerSecond * Double(n) / Double(sampleRate)
        rate = rate < targetRate ? min(targetRate, rate + most) : max(targetRate, rate - most)
    }

    /// Rate 1: the pending tail, then the input from where it continues (up to the real end),
    /// unchanged.
    private mutating func passThrough(into out: inout [Float], marks: inout [Mark]) {
        emitTail(into: &out, marks: &marks, fadingOut: false)
        let end = min(inputEnd, realEnd ?? inputEnd)
        if end > resume {
            marks.append(Mark(outputFrame: outputFrames, streamFrame: Double(resume), step: 1))
            input.withUnsafeBufferPointer { inp in
                out.append(contentsOf: inp[((resume - inputStart) * channels)..<((end - inputStart) * channels)])
            }
            outputFrames += end - resume
        }
        resume = max(resume, realEnd == nil ? end : inputEnd)
        position = Double(resume)
        trim(before: resume)
    }

    private mutating func emitTail(into out: inout [Float], marks: inout [Mark], fadingOut: Bool) {
        guard !tail.isEmpty else { return }
        marks.append(Mark(outputFrame: outputFrames, streamFrame: Double(resume - overlap), step: 1))
        out.append(contentsOf: tail)
        if fadingOut { Self.fadeOut(&out, frames: overlap, channels: channels) }
        outputFrames += overlap
        tail.removeAll(keepingCapacity: true)
    }

    /// The shift `0..<window` at which the input best continues the tail.
    private func bestOffset(from p: Int, window: Int) -> Int {
        input.withUnsafeBufferPointer { inp in
            tail.withUnsafeBufferPointer { t in
                guard let inBase = inp.baseAddress, let tBase = t.baseAddress else { return 0 }
                let n = overlap * channels
                // Normalised cross-correlation, eight lanes at a time (the search is the
                // stretcher's whole cost: a plain float loop does not vectorise its sums).
                func score(_ k: Int) -> Float {
                    let x = inBase + (p + k - inputStart) * channels
                    var dot = SIMD8<Float>(), energy = SIMD8<Float>()
                    var i = 0
                    while i + 8 <= n {
                        let a = UnsafeRawPointer(tBase + i).loadUnaligned(as: SIMD8<Float>.self)
                        let b = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD8<Float>.self)
                        dot += a * b
                        energy += b * b
                        i += 8
                    }
                    var d = dot.sum(), e = energy.sum()
                    while i < n {
                        d += tBase[i] * x[i]
                        e += x[i] * x[i]
                        i += 1
                    }
                    return d / (e + 1e-9).squareRoot()
                }
                var best = 0, bestScore = -Float.infinity
                for k in stride(from: 0, to: window, by: 4) {
                    let s = score(k)
                    if s > bestScore { bestScore = s; best = k }
                }
                let coarse = best
                for k in max(0, coarse - 3)...min(window - 1, coarse + 3) where k != coarse {
                    let s = score(k)
                    if s > bestScore { bestScore = s; best = k }
                }
                return best
            }
        }
    }

    /// Forgets input before stream frame `frame` (kept in blocks, so that trimming stays cheap).
    private mutating func trim(before frame: Int) {
        let dead = frame - inputStart
        guard dead > 4_096 || (dead > 0 && frame >= inputEnd) else { return }
        input.removeFirst(dead * channels)
        inputStart = frame
    }
}
