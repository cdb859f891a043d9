/// The game's side of timeline sounds: releasing the sustain point (``SoundLayer/Timing``).
extension AudioEngine {
    /// Releases a voice's sustain point (FMOD's key-off): a timeline sound's loops play to the
    /// end of their current pass, and its tail layers start on the frame the sustain loop's last
    /// pass ends (each after its own delay). Any other looping voice plays to the end of its
    /// pass and ends. A voice that does not loop, a stale handle, or a second release does
    /// nothing. Released voices end as ``VoiceEndReason/finished``. The tails start at the
    /// handle's gain and pitch (``Voice/gain``, ``Voice/pitch``) as the parts playing are.
    ///
    /// ```swift
    /// let hum = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")], loop: true))
    /// let voice = try engine.play(hum)
    /// engine.release(voice)                 // the hum ends at the end of its pass
    /// ```
    public func release(_ voice: Voice) {
        guard voice.link === link else { return }
        withAL {
            guard !core.isShutDown else { return }
            core.pool.accountPauses(now: core.now)
            core.release(voice.id, logger: logger)
        }
    }
}

extension Voice {
    /// Releases the voice's sustain point: see ``AudioEngine/release(_:)``.
    ///
    /// ```swift
    /// let voice = try engine.play(engine.loadClip(path: "Assets/Sounds/hum-loop.wav"), options: .init(loop: true))
    /// voice.release()
    /// ```
    public func release() { engine?.release(self) }

    /// The same as ``release()`` (FMOD's name).
    public func keyOff() { release() }

    /// Whether the voice is a handle over parts — a timeline sound's, a following switch's
    /// (``SoundSwitch/follow``), or a switch's whose picked case is a timeline — so that its
    /// ``gain`` and ``pitch`` are factors on each part's start values (reading 1 after a play
    /// above gain 0, 0 after a play at gain 0) rather than the voice's own level. False for any
    /// other voice, a stale handle, another engine's or after shutdown.
    ///
    /// ```swift
    /// let voice = try engine.play(engine.loadClip(path: "Assets/Sounds/hum-loop.wav"))
    /// print(voice.isHandleOverParts)   // false: a plain voice
    /// ```
    public var isHandleOverParts: Bool { engine?.isHandleOverParts(self) ?? false }
}

extension AudioEngine {
    /// See ``Voice/isHandleOverParts``.
    func isHandleOverParts(_ voice: Voice) -> Bool {
        guard voice.link === link else { return false }
        return withAL { !core.isShutDown && core.timelines.index(voice.id) != nil }
    }
}
