import Logging

/// Dialogue's rules: the table and locale, each speaker's line and queue, the global limit of
/// lines, and the subtitle events waiting for their frame. A subsystem (it hears every frame
/// and render to start queued lines on time and send subtitles on the audio clock); it plays
/// lines only through ``AudioStream``'s public calls — no AL call, no stream-system state.
///
/// Every line is planned on the audio clock when it starts: its start `t`, its end `t + length`,
/// its subtitle's `show` at `t + first audible frame`, its cues, its `hide` at `t + last audible
/// frame`. A queued line starts at the frame its speaker's line ends (scheduled with
/// ``AudioStream/play(at:)`` just before the render or the live horizon that reaches it).
///
/// Lock order: this system's lock, then the stream lock and the AL lock (inside the streams'
/// calls); nothing calls back into it.
final class DialogueSystem: EngineSubsystem, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `state` (a Locked).

    /// Who takes turns: lines said by one emitter, or (without one) by one speaker name.
    enum SpeakerKey: Hashable {
        case emitter(Emitter)
        case named(String)
    }

    /// A line queued or playing.
    final class Line {
        let handle: LineHandle
        let resolved: ResolvedLine
        let span: LineSpan
        let cues: [SubtitleCue]
        let speaker: SpeakerKey
        fileprivate(set) var saidAt: Double
        let stream: AudioStream
        /// Audio time it starts (set when scheduled) and ends.
        fileprivate(set) var start = 0.0
        var end: Double { start + span.duration }
        var show: Double { start + Double(span.firstAudible) / Double(span.sampleRate) }
        var hide: Double { start + Double(span.lastAudible + 1) / Double(span.sampleRate) }

        init(handle: LineHandle, resolved: ResolvedLine, span: LineSpan, cues: [SubtitleCue], speaker: SpeakerKey,
             saidAt: Double, stream: AudioStream) {
            self.handle = handle
            self.resolved = resolved
            self.span = span
            self.cues = cues
            self.speaker = speaker
            self.saidAt = saidAt
            self.stream = stream
        }
    }

    struct State {
        var table: DialogueTable?
        var locale = "en"
        var maxLines = 4
        var playing: [Line] = []
        var queued: [Line] = []
        /// Subtitle events not yet sent, by time.
        var pending: [SubtitleEvent] = []
        var nextID: UInt64 = 0
        var isShutDown = false
        /// The audio time of the last frame, and whether the voice bus was held (paused) then.
        var lastFrame: Double?
        var held = false
    }

    /// The most lines queued at once, engine-wide; a line said beyond it is dropped.
    static let maxQueued = 256
    /// Live devices: how far ahead a queued line is scheduled (the streams' live horizon plus a
    /// game frame).
    static let liveLookahead = StreamSystem.liveHorizon + 0.05
    /// Live devices: how long after the streams' set-up horizon a line said now starts, so that
    /// their pump (on its own thread) meets the start before it is due and plays it from its
    /// first frame on that frame, behind a silent lead-in.
    static let liveMargin = 0.02

    /// When a change made now is heard: the audio clock plus the output latency, as the streams
    /// read it (the audio clock itself on a loopback engine).
    static func heardNow(_ engine: AudioEngine) -> Double {
        engine.withStreamAL { engine.streamAudioTime + engine.streamOutputLatency }
    }

    /// The earliest audio time a line said now can start on: now on a loopback engine (the next
    /// render's first frame); live, where what is mixed next is heard plus the streams' horizon
    /// and ``liveMargin`` — so that it starts whole on its planned frame, never late.
    static func earliestStart(_ engine: AudioEngine) -> Double {
        engine.isLoopback ? engine.audioTime : heardNow(engine) + StreamSystem.liveHorizon + liveMargin
    }

    let state = Locked(State())
    let broadcast = EventBroadcast<SubtitleEvent>(capacity: 1_024)
    let logger = EarshotLogging.logger("earshot.dialogue")

    // MARK: Hooks

    /// Whether a line is queued or playing or an event waits: the hooks cost one lock and
    /// nothing else until the game says a line. Idle, the pause follower forgets its last frame.
    private var hasWork: Bool {
        state.withLock { s in
            let busy = !s.playing.isEmpty || !s.queued.isEmpty || !s.pending.isEmpty
            if !busy { s.lastFrame = nil }
            return busy
        }
    }

    func willRender(_ engine: AudioEngine, frames: Int) {
        // Loopback: start what is due in the render about to be mixed (the streams' pump runs
        // after this hook, as the music system comes after this system in the list).
        guard hasWork else { return }
        let now = engine.audioTime
        advance(engine, now: now, horizon: Double(frames) / Double(engine.sampleRate))
    }

    func didRender(_ engine: AudioEngine, _ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
        guard hasWork else { return }
        let now = engine.audioTime
        expireAndFinish(now: now)
        send(upTo: now)
    }

    func endFrame(_ engine: AudioEngine, changes: BusChanges) {
        guard hasWork else { return }
        let now = engine.audioTime
        followHold(now: now, held: (try? engine.isHeld(.voice)) ?? false)
        if !engine.isLoopback { advance(engine, now: now, horizon: Self.liveLookahead) }
        expireAndFinish(now: now)
        send(upTo: now + (engine.isLoopback ? 0 : 1e-9))
    }

    func shutdown(_ engine: AudioEngine) {
        let lines = state.withLock { s -> [Line] in
            s.isShutDown = true
            defer { s.playing = []; s.queued = []; s.pending = [] }
            return s.playing + s.queued
        }
        for line in lines { line.handle.resolve(.dropped) }
        broadcast.finish()
    }

    // MARK: Rules

    /// Adds a said line: cuts a lower-priority line of its speaker, or queues behind it.
    func add(_ line: Line, engine: AudioEngine, now: Double) {
        let cutAt = engine.isLoopback ? now : Self.heardNow(engine)
        let cut: [Line] = state.withLock { s in
            guard !s.isShutDown else { return [] }
            let mine = s.playing.filter { $0.speaker == line.speaker && $0.end > now }
            let cuts = mine.filter { $0.resolved.line.priority < line.resolved.line.priority }
            for old in cuts { endLocked(&s, old, at: cutAt, as: .cut) }
            // Queued lines of the speaker that rank lower wait behind it; a more important line
            // goes in front of them.
            let index = s.queued.firstIndex {
                $0.speaker == line.speaker && $0.resolved.line.priority < line.resolved.line.priority
            } ?? s.queued.endIndex
            s.queued.insert(line, at: index)
            return cuts
        }
        for old in cut { old.handle.resolve(.cut) }
        if state.withLock({ $0.isShutDown }) { line.handle.resolve(.dropped); return }
        // Now, or with the live lead-in.
        advance(engine, now: now, horizon: engine.isLoopback ? 0 : Self.liveLookahead)
    }

    /// Ends line `id` (playing: faded out now, its subtitle hidden; queued: removed).
    func end(_ id: UInt64, as outcome: LineOutcome) {
        guard let engine = state.withLock({ s in s.playing.first { $0.handle.id == id } ?? s.queued.first { $0.handle.id == id } })?.stream.engine else {
            return
        }
        let now = engine.audioTime
        let cutAt = engine.isLoopback ? now : Self.heardNow(engine)
        let ended = state.withLock { s -> Line? in
            if let i = s.queued.firstIndex(where: { $0.handle.id == id }) { return s.queued.remove(at: i) }
            guard let line = s.playing.first(where: { $0.handle.id == id }) else { return nil }
            endLocked(&s, line, at: cutAt, as: outcome)
            return line
        }
        ended?.handle.resolve(outcome)
        advance(engine, now: now, horizon: engine.isLoopback ? 0 : Self.liveLookahead)
    }

    /// Takes `line` off the playing list at audio time `time` (when the cut is heard): fades it out
    /// (or stops it when it has not begun), drops its subtitle events from then on and hides a
    /// subtitle shown before.
    private func endLocked(_ s: inout State, _ line: Line, at time: Double, as outcome: LineOutcome) {
        s.playing.removeAll { $0 === line }
        let id = line.handle.id
        // Events before the cut stay (live, a `show` may still be waiting for its frame).
        s.pending.removeAll { event in
            guard event.time >= time else { return false }
            switch event {
            case .show(let e): return e.lineID == id
            case .cue(let e): return e.lineID == id
            case .hide(let e): return e.lineID == id
            }
        }
        if line.start > time {
            line.stream.stop()
        } else {
            line.stream.fade(to: 0, duration: DialogueTable.cutFade, stopsAtEnd: true)
        }
        if line.show < time, line.hide > time {
            insert(&s, .hide(.init(time: time, key: line.resolved.line.key, speaker: line.resolved.line.speaker,
                                   reason: outcome, lineID: id)))
        }
    }

    /// Starts every queued line whose speaker is free before `now + horizon` and for which the
    /// global limit has room, at the frame its speaker's last line ends (or now).
    func advance(_ engine: AudioEngine, now: Double, horizon: Double) {
        var failed: [(Line, LineOutcome)] = []
        let earliest = engine.isLoopback ? now : Self.earliestStart(engine)
        state.withLock { s in
            guard !s.isShutDown else { return }
            var i = 0
            while i < s.queued.count {
                let line = s.queued[i]
                let mine = s.playing.filter { $0.speaker == line.speaker && $0.end > now }
                if mine.contains(where: { $0.start > earliest + horizon }) { i += 1; continue }   // its next line is planned already
                let free = max(earliest, mine.map(\.end).max() ?? earliest)
                // The global limit at `free`: lines still playing then.
                let busy = s.playing.filter { $0.end > free }.count
                var at = free
                if busy >= s.maxLines {
                    let ends = s.playing.map(\.end).filter { $0 > free }.sorted()
                    at = ends[busy - s.maxLines]
                }
                guard at < earliest + horizon || at <= earliest else { i += 1; continue }
                s.queued.remove(at: i)
                if let expire = line.resolved.line.expire, at - line.saidAt > expire {
                    line.stream.stop()
                    failed.append((line, .expired))
                    continue
                }
                line.start = at
                do {
                    try line.stream.play(at: at)
                } catch {
                    logger.warning("dialogue line \(line.resolved.line.key) could not start: \(error)")
                    failed.append((line, .dropped))
                    continue
                }
                s.playing.append(line)
                plan(&s, line)
            }
        }
        for (line, outcome) in failed { line.handle.resolve(outcome) }
    }

    /// Puts `line`'s subtitle events on the schedule.
    private func plan(_ s: inout State, _ line: Line) {
        let key = line.resolved.line.key, speaker = line.resolved.line.speaker, id = line.handle.id
        insert(&s, .show(.init(time: line.show, key: key, speaker: speaker, text: line.resolved.text,
                               locale: line.resolved.locale, lineID: id)))
        for cue in line.cues where cue.time >= 0 && cue.time < line.span.duration {
            insert(&s, .cue(.init(time: line.start + cue.time, key: key, speaker: speaker, text: cue.text, lineID: id)))
        }
        insert(&s, .hide(.init(time: line.hide, key: key, speaker: speaker, reason: .finished, lineID: id)))
    }

    private func insert(_ s: inout State, _ event: SubtitleEvent) {
        let i = s.pending.firstIndex { $0.time > event.time } ?? s.pending.endIndex
        s.pending.insert(event, at: i)
    }

    /// Resolves lines that ended and drops queued ones past their `expire`.
    func expireAndFinish(now: Double) {
        let (done, expired) = state.withLock { s -> ([Line], [Line]) in
            let done = s.playing.filter { $0.end <= now }
            s.playing.removeAll { $0.end <= now }
            let expired = s.queued.filter { l in l.resolved.line.expire.map { now - l.saidAt > $0 } ?? false }
            s.queued.removeAll { l in l.resolved.line.expire.map { now - l.saidAt > $0 } ?? false }
            return (done, expired)
        }
        for line in done { line.handle.resolve(.finished) }
        for line in expired {
            line.stream.stop()
            line.handle.resolve(.expired)
        }
    }

    /// While the game holds the voice bus (a pause), lines stand still: everything planned —
    /// ends, subtitle events, queued lines' waits — moves on by the time the hold lasted, as
    /// the game's frames see it (to within a frame).
    func followHold(now: Double, held: Bool) {
        state.withLock { s in
            defer { s.lastFrame = now; s.held = held }
            guard s.held, let last = s.lastFrame, now > last else { return }
            let d = now - last
            for line in s.playing { line.start += d }
            for line in s.queued { line.saidAt += d }
            s.pending = s.pending.map { $0.delayed(by: d) }
        }
    }

    /// Sends every subtitle event before audio time `time`.
    func send(upTo time: Double) {
        let due = state.withLock { s -> [SubtitleEvent] in
            let n = s.pending.firstIndex { $0.time >= time } ?? s.pending.endIndex
            defer { s.pending.removeFirst(n) }
            return Array(s.pending.prefix(n))
        }
        if !due.isEmpty { broadcast.send(due) }
    }
}
