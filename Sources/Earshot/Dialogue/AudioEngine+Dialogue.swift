/// Dialogue: a line table, the locale, lines said by speakers who take turns, and subtitles on
/// the audio clock (see <doc:DialogueAndSubtitles>).
extension AudioEngine {
    /// Sets the lines ``say(_:by:)`` plays (replacing any table before; lines said already go on).
    ///
    /// Unless `table.ducking` is nil, ``Bus/voice`` now ducks ``Bus/music`` and
    /// ``Bus/ambience`` with it — the default under dialogue — where no ducking of those buses
    /// by the voice bus is set yet (one the game set is kept).
    ///
    /// ```swift
    /// var table = DialogueTable(locales: ["en"], fallback: "en", filePattern: "Voice/{locale}/{key}.ogg", baseDirectory: "Assets")
    /// table.lines["intro.guard.01"] = DialogueLine(key: "intro.guard.01", speaker: "guard", text: ["en": "Halt!"])
    /// try engine.setDialogueTable(table)
    /// ```
    public func setDialogueTable(_ table: DialogueTable) throws(EarshotError) {
        guard !dialogue.state.withLock({ $0.isShutDown }) else { throw .engineShutDown }
        guard table.lines.count <= DialogueTable.maxLines else {
            throw .tooLarge(name: "dialogue table", what: "lines", size: table.lines.count, limit: DialogueTable.maxLines,
                            setting: "DialogueTable.maxLines")
        }
        if let ducking = table.ducking {
            for target in [Bus.music, Bus.ambience] where try self.ducking(of: target, by: .voice) == nil {
                try setDucking(ducking, of: target, by: .voice)
            }
        }
        dialogue.state.withLock { $0.table = table }
    }

    /// The table ``setDialogueTable(_:)`` set, or nil.
    public var dialogueTable: DialogueTable? { dialogue.state.withLock { $0.table } }

    /// Takes the line table away when it is still `table` (true then): ``say(_:by:)`` throws
    /// until another is set; lines said already go on. What a bank's unload calls, so that it
    /// never takes away a table the game or another bank set since. Duckings the table set stay.
    ///
    /// ```swift
    /// let table = DialogueTable(locales: ["en"])
    /// try engine.setDialogueTable(table)
    /// print(engine.removeDialogueTable(ifStill: table))   // true
    /// ```
    @discardableResult
    public func removeDialogueTable(ifStill table: DialogueTable) -> Bool {
        dialogue.state.withLock { s -> Bool in
            guard s.table == table else { return false }
            s.table = nil
            return true
        }
    }

    /// Sets the locale lines are said in from now on (`fr`, `fr-CA`): each line is looked up along
    /// ``DialogueTable/chain(for:)`` (`fr-CA → fr →` the table's fallback). Lines already said
    /// keep their file. Throws ``EarshotError/invalidArgument(_:)`` for a locale that is not
    /// 1…35 letters, digits, `-` or `_`.
    ///
    /// ```swift
    /// try engine.setLocale("fr")
    /// ```
    public func setLocale(_ locale: String) throws(EarshotError) {
        guard DialogueTable.isLocaleTag(locale) else { throw .invalidArgument("locale \"\(locale)\" is not a language tag (letters, digits, - or _)") }
        dialogue.state.withLock { $0.locale = locale }
    }

    /// The locale lines are said in (``setLocale(_:)``; "en" until set).
    public var locale: String { dialogue.state.withLock { $0.locale } }

    /// Sets how many lines may play at once, engine-wide (1…64; default 4): a line beyond it
    /// waits, queued, until one ends. Each playing line holds one of the engine's stream
    /// sources (``Configuration/musicSources``), shared with music.
    public func setMaxSimultaneousLines(_ count: Int) throws(EarshotError) {
        guard (1...64).contains(count) else { throw .invalidArgument("simultaneous lines \(count) is outside 1…64") }
        dialogue.state.withLock { $0.maxLines = count }
    }

    /// Says line `key` of the table in the current locale: positioned on `emitter` (its file
    /// must be mono), or without one head-relative on ``Bus/voice``. Streamed from disk.
    ///
    /// Lines said by one emitter (or, without one, by one table speaker) take turns: a line of
    /// higher ``DialoguePriority`` cuts the one playing with a ``DialogueTable/cutFade`` fade,
    /// a lower or equal one queues and starts on the frame the one before ends; a queued line
    /// waiting longer than its ``DialogueLine/expire`` is dropped (``LineOutcome/expired``).
    /// At most ``setMaxSimultaneousLines(_:)`` lines play at once.
    ///
    /// Throws ``EarshotError/lineMissing(key:localesTried:)`` for a key not in the table or
    /// without a file in any locale of the chain (a fallback's file plays with
    /// ``LineHandle/warning`` set and a logged warning), ``EarshotError/invalidArgument(_:)``
    /// without a table or for a stereo line on an emitter, what ``openStream(path:options:)``
    /// throws for its file, and ``EarshotError/engineShutDown``.
    ///
    /// ```swift
    /// let line = try engine.say("intro.guard.01")
    /// Task { print(await line.finished) }
    /// ```
    @discardableResult
    public func say(_ key: String, by emitter: Emitter? = nil) throws(EarshotError) -> LineHandle {
        let (table, locale, shutDown, queued) = dialogue.state.withLock { ($0.table, $0.locale, $0.isShutDown, $0.queued.count) }
        guard !shutDown else { throw .engineShutDown }
        guard let table else { throw .invalidArgument("no dialogue table: call setDialogueTable first") }
        guard queued < DialogueSystem.maxQueued else {
            throw .tooLarge(name: key, what: "queued dialogue lines", size: queued + 1, limit: DialogueSystem.maxQueued,
                            setting: "DialogueSystem.maxQueued")
        }
        let resolved = try table.resolve(key, locale: locale)
        var warning: String?
        if let asked = resolved.fellBackFrom {
            let tried = table.chain(for: asked).prefix { $0 != resolved.locale }
            warning = "\(key): no \(tried.joined(separator: " or ")) file, playing \(resolved.locale)"
            dialogue.logger.warning("dialogue \(warning ?? "")")
        }
        let span = try LineSpan.scan(path: resolved.path)
        let cues = try LineSpan.cues(path: resolved.path, table: resolved.cues, frameCount: span.frameCount,
                                     sampleRate: span.sampleRate)
        let stream = try openStream(path: resolved.path, options: .init(bus: .voice, emitter: emitter))
        let id = dialogue.state.withLock { s -> UInt64 in
            s.nextID &+= 1
            return s.nextID
        }
        let handle = LineHandle(id: id, resolved: resolved, warning: warning, system: dialogue)
        let line = DialogueSystem.Line(handle: handle, resolved: resolved, span: span, cues: cues,
                                       speaker: emitter.map { .emitter($0) } ?? .named(resolved.line.speaker),
                                       saidAt: DialogueSystem.earliestStart(self), stream: stream)
        // A line's wait (for `expire`) counts from the earliest frame it could have started on.
        dialogue.add(line, engine: self, now: audioTime)
        return handle
    }

    /// Every line's subtitle, on the audio clock: ``SubtitleEvent/show(_:)`` at its first audible
    /// frame, each ``SubtitleEvent/cue(_:)`` at its frame, ``SubtitleEvent/hide(_:)`` at its last
    /// audible frame or where it was cut. Each event is sent once the audio clock has passed it
    /// (after the render that mixed it; live, in the first ``update(deltaTime:)`` after it is
    /// heard) and carries its exact audio time. A new stream on each read; every stream sees
    /// every event; finished at ``shutdown()`` (a stream read afterwards is finished at once). A
    /// consumer that falls behind keeps the newest 1 024 events.
    public var subtitles: AsyncStream<SubtitleEvent> { dialogue.broadcast.stream() }

    /// Calls `observer` for every subtitle event (as ``subtitles`` carries them) on the thread that
    /// sends it — the one calling ``render(frames:)`` or ``update(deltaTime:)`` — until
    /// ``shutdown()``. The observer must not block; it may call the engine.
    ///
    /// ```swift
    /// engine.observeSubtitles { event in
    ///     if case .show(let s) = event { print(s.speaker, s.text, s.time) }
    /// }
    /// ```
    public func observeSubtitles(_ observer: @escaping @Sendable (SubtitleEvent) -> Void) {
        dialogue.broadcast.observe(observer)
    }
}
