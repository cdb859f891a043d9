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
}
