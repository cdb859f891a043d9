/// The markers a stream reports as they are heard: its cues, and the beats and bars of music's
/// tempo, found in the file frames its queued buffers map to (loop seams, seeks and
/// time-stretching included). Called by the pump (StreamSystem+Schedule.swift).
extension QueuedStream {
    /// How far apart (seconds of the file) two time-stretched segments may join and still be
    /// taken as one run when markers are looked for.
    static let joinTolerance = 0.05

    /// The markers and beats whose file frames are played between absolute queue positions
    /// `lo` and `hi`, timed from `position` (heard at `audioNow`), in order.
    func marks(from lo: Int, to hi: Int, position: Int, audioNow: Double, secondsPerFrame: Double,
               origin: MarkerEvent.Origin) -> [MarkerEvent] {
        guard lo < hi else { return [] }
        var out: [MarkerEvent] = []
        var base = queueBase
        for e in queue {
            defer { base += e.frames }
            guard base < hi, base + e.frames > lo else { continue }
            for seg in e.segments {
                guard let f = seg.fileFrame, seg.step > 0 else { continue }
                let qs = base + seg.offset
                let a = max(qs, lo), b = min(qs + seg.count, hi)
                guard a < b else { continue }
                let fa = Double(f) + Double(a - qs) * seg.step
                let fb = Double(f) + Double(b - qs) * seg.step
                func time(_ x: Double) -> Double {
                    audioNow + (Double(qs) + (x - Double(f)) / seg.step - Double(position)) * secondsPerFrame
                }
                // A time-stretched segment maps linearly from its first frame, also across a loop
                // seam inside it: what lies past the end of the file is the loop's start again.
                let end = Double(frameCount), start = Double(loopRegion?.lowerBound ?? 0)
                var pieces: [(lo: Double, hi: Double, shift: Double)] = []
                if fa < end { pieces.append((fa, min(fb, end), 0)) }
                if fb > end { pieces.append((start + max(0, fa - end), start + fb - end, end - start)) }
                for piece in pieces {
                    // Time-stretched segments join only roughly (the stretcher's overlaps): a
                    // start near where the last search ended continues from there, so that no
                    // point is reported twice or skipped; a jump (a loop seam) starts afresh.
                    var lo = piece.lo
                    if let last = scanFile, abs(lo - last) < Self.joinTolerance * Double(fileRate) { lo = last }
                    points(from: lo, to: piece.hi, time: { time($0 + piece.shift) }, origin: origin, into: &out)
                    scanFile = max(lo, piece.hi)
                }
            }
        }
        // In time order; a bar stays before its first beat.
        return out.enumerated().sorted { ($0.element.audioTime, $0.offset) < ($1.element.audioTime, $1.offset) }.map(\.element)
    }

    /// Appends the markers at file frames `fa ..< fb`, and the beats and bars of its beat grid
    /// (music's ``Tempo``), timed by `time`.
    private func points(from fa: Double, to fb: Double, time: (Double) -> Double, origin: MarkerEvent.Origin,
                        into out: inout [MarkerEvent]) {
        guard fa < fb else { return }
        for c in cueFrames where Double(c.frame) >= fa && Double(c.frame) < fb {
            out.append(MarkerEvent(origin: origin, kind: .marker, name: c.name, audioTime: time(Double(c.frame))))
        }
        tempo?.beats(from: fa, to: fb, fileRate: fileRate, until: beatsUntil ?? .infinity, time: time, origin: origin, into: &out)
    }
}
