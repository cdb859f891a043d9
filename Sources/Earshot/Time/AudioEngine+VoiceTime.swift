/// Voices on the audio clock: where a voice is, when it started, and its clip's markers.
extension Voice {
    /// Where the voice is in its clip, in seconds of the clip, every pass counted: a 1 s loop
    /// heard for 2.5 s is at 2.5 (its place in the clip is `time` modulo the clip's duration), a
    /// play from an ``PlayOptions/offset`` of 0.5 s starts at 0.5, and at a pitch of 2 it moves
    /// two seconds a second. Nil for a stale handle.
    ///
    /// It is the position of the frame heard now — ``AudioEngine/audioTime``'s frame: on a
    /// loopback engine the next render's first frame (exact to the frame); on a live device the
    /// mixing position less the output latency. It stands before the voice starts (its offset),
    /// while the voice or its bus is paused, and at the end of a one-shot. A virtual voice's
    /// time runs on like a heard one's.
    ///
    /// ```swift
    /// let hum = try engine.play(engine.loadClip(path: "Assets/Sounds/hum-loop.wav"), options: .init(loop: true))
    /// if let t = hum.time { print("\(t) s into the hum, loops included") }
    /// ```
    public var time: Double? { engine?.timelineSeconds(of: self) }

    /// The ``AudioEngine/audioTime`` the voice's first frame is (or was to be) heard at: the
    /// ``PlayOptions/startTime`` it was given (plus its ``PlayOptions/delay``), else the frame of
    /// the play call plus the delay — on a live device, the output latency later. Exact on a
    /// loopback engine and for scheduled starts on a live one; a play at once on a live device
    /// that a mix overtakes while it is made is heard one mix (the device's update, 1,024 frames
    /// by default) after the time given. Nil for a stale handle.
    ///
    /// ```swift
    /// var options = PlayOptions()
    /// options.startTime = engine.audioTime + 0.5
    /// let click = try engine.play(engine.loadClip(path: "Assets/Sounds/beep.wav"), options: options)
    /// print(click.startTime ?? 0)   // exactly the time asked for
    /// ```
    public var startTime: Double? { engine?.withSlot(of: self) { engine?.core.pool.startAudioTime(ofSlot: $0) } ?? nil }
}

extension AudioEngine {
    /// ``Voice/time`` of `voice`.
    func timelineSeconds(of voice: Voice) -> Double? {
        withSlot(of: voice) { i in
            let pool = core.pool
            let rate = pool.voiceStates[i].clipRate
            return rate > 0 ? core.heardPosition(i) / rate : 0
        }
    }

    /// The clip markers voices passed since the last call, as events (under the AL lock, after
    /// an update or a render), in the order they are heard.
    func takeVoiceMarkers() -> [MarkerEvent] {
        var events = core.takeVoiceMarkers { MarkerEvent(origin: .voice(Voice(engine: self, id: $0.id)), kind: .marker,
                                                         name: $0.name, audioTime: $0.time) }
        if events.count > 1 { events.sort { $0.audioTime < $1.audioTime } }
        return events
    }
}
