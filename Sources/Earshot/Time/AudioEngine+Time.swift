/// The audio clock.
extension AudioEngine {
    /// The audio clock: seconds of output *heard* since the engine started — what a rhythm game,
    /// subtitles or lip sync follow, and what ``PlayOptions/startTime`` is given in.
    ///
    /// On a loopback engine it is the frames rendered ÷ the sample rate (exact: ``audioFrame``
    /// steps by exactly the frames of each ``render(frames:)``). On a live device it is where the
    /// sample leaving the device is: OpenAL Soft's device clock minus its output latency
    /// (`ALC_SOFT_device_clock`), or the monotonic clock where the device does not report one.
    /// It never runs backwards and it stands still while nothing is heard: while an
    /// ``AudioSession`` interruption holds the audio and while the device is lost (a new device
    /// carries on from where it stood). After ``shutdown()`` it keeps its last value.
    ///
    /// It is not the time ``update(deltaTime:)`` is given: a game's frame time comes from its own
    /// clock and jitters with its frames; the audio clock moves with the output, in whole renders
    /// on a loopback engine and in the device's mixing periods live. Read it in the frame to
    /// place sounds on it: `startTime = engine.audioTime + 0.5` starts a voice half a second of
    /// output later, exactly.
    ///
    /// ```swift
    /// let start = engine.audioFrame
    /// _ = try engine.render(frames: 4_800)      // a loopback engine
    /// assert(engine.audioFrame - start == 4_800)
    /// var line = PlayOptions()
    /// line.startTime = engine.audioTime + 0.5   // on the frame half a second of output later
    /// ```
    public var audioTime: Double {
        withAL { core.isShutDown ? core.audioClock.lastTime : core.audioTime() }
    }

    /// ``audioTime`` in frames of the output (× ``sampleRate``, rounded).
    public var audioFrame: Int {
        let (time, rate) = withAL { (core.isShutDown ? core.audioClock.lastTime : core.audioTime(), core.sampleRate) }
        return Int((time * Double(rate)).rounded())
    }
}
