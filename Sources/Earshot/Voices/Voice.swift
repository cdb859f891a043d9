/// A handle to one playing instance of a ``Clip``.
///
/// Handles are generation-counted: when the voice ends (finished, stopped, evicted) its slot may
/// be reused, and the old handle goes stale safely — ``isPlaying`` is false, ``status`` is
/// ``VoiceStatus/stopped`` and setters do nothing. A voice that lost its real source to a more
/// important one is *not* ended: it is virtual, its time runs on, and it comes back when it can.
///
/// ```swift
/// let engineLoop = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
/// let voice = try engine.play(engineLoop, options: .init(loop: true, position: Vector3(4, 0, 0)))
/// voice.gain = 0.5
/// voice.position = Vector3(3, 0, 0)
/// voice.stop(fade: 0.2)
/// ```
///
/// A handle does not keep its engine alive: once the engine is shut down or released, the
/// handle is stale like one of an ended voice (``status`` is ``VoiceStatus/stopped``, getters
/// return nil, setters and ``stop(fade:)`` do nothing). Passed to another engine's calls it reads
/// like a stale one there too (those calls never touch that engine's voice in the same slot), and
/// voices of two engines are never equal.
public struct Voice: Sendable, Hashable, EngineHandle {
    /// The engine's link (holds the engine weakly): handles kept by a game must not keep a
    /// discarded engine (its device, context and clip memory) alive. A strong reference to the
    /// small link, not a weak one in the handle, so that copying a handle costs one retain.
    let link: EngineLink
    let id: VoiceID

    /// Whether the voice is still playing, on a real source or virtually: false from the moment
    /// ``stop(fade:)`` returns — also while a stop fade still sounds (the voice is leaving; it
    /// ends, and its ``VoiceEvent`` comes, once the fade is over).
    public var isPlaying: Bool { engine?.isPlaying(self) ?? false }

    /// Waits until the voice ends and returns why: ``VoiceEndReason/finished``, `stopped`,
    /// `evicted`, `stolen`, ``VoiceEndReason/refused`` (a play that never started) or
    /// ``VoiceEndReason/engineShutDown`` when the engine shuts down (or is gone) first.
    ///
    /// It returns within one ``AudioEngine/update(deltaTime:)`` or ``AudioEngine/render(frames:)``
    /// of the end (the engine delivers ends after each); for a voice that has ended already it
    /// returns at once, with its reason while the engine still knows it — nil once the voice's
    /// slot has ended another voice since (the engine keeps one end per slot). Any number of tasks
    /// may await one voice. A waiting task that is cancelled keeps waiting until the voice ends
    /// or the engine shuts down.
    ///
    /// ```swift
    /// let line = try engine.play(engine.loadClip(path: "Assets/Sounds/beep.wav"))
    /// Task {
    ///     if await line.finished == .finished { print("the line was heard to its end") }
    /// }
    /// ```
    public var finished: VoiceEndReason? {
        get async {
            guard let engine else { return .engineShutDown }
            return await engine.finished(self)
        }
    }

    /// Real, virtual, pending, stopped or refused.
    public var status: VoiceStatus {
        engine?.status(of: self) ?? (id == .refused ? .refused : .stopped)
    }

    /// Stops the voice, fading out over `fade` seconds (never less than the engine's fade time).
    /// From the moment it returns, ``isPlaying`` is false and ``status`` is ``VoiceStatus/stopped``,
    /// though the fade-out still sounds.
    /// The fade runs in playback time: if the voice or its bus is paused during it, the voice
    /// falls silent, waits, and finishes the fade once resumed. A voice without a source stops at
    /// once; one already paused stops within the engine's fade time.
    public func stop(fade: Double = 0) { engine?.stop(self, fade: fade) }

    /// The voice's world position (positioned voices); nil for a stale handle or a panned voice.
    /// Setting a non-finite position, or on a stale handle, does nothing.
    public var position: Vector3? {
        get { engine?.position(of: self) }
        nonmutating set { if let newValue { engine?.setPosition(newValue, of: self) } }
    }

    /// The voice's own gain, as the game sets it (nil for a stale handle): its play's gain times
    /// its clip handle's (``Clip/withGain(_:)``) and, for a sound's voice, the sound's gain and
    /// variation, or the last value set — never a curve's factor (a voice under
    /// ``SoundDefinition/curves`` or bus curves is heard at this times theirs), so that reading
    /// it and setting it back changes nothing.
    ///
    /// Set on a layered sound's voice, its other layers move in proportion and keep their levels
    /// relative to the first also when it is raised from 0. On the handle of a timeline sound, or
    /// of a following switch (``SoundSwitch/follow``), or of a switch whose case is a timeline,
    /// it is a factor on each part's start gain, parts started later (a tail, the next case)
    /// included: it reads 1 after a play at a gain above 0 and 0 after a play at gain 0 — from
    /// which each part's level is as at gain 1, so that a gain set later is heard.
    public var gain: Float? {
        get { engine?.own(self)?.gain }
        nonmutating set { if let newValue { engine?.setGain(newValue, of: self) } }
    }

    /// The voice's own pitch, as the game sets it (nil for a stale handle): without a curve's
    /// factor; on a timeline's or following switch's handle the factor on its parts' pitches (1
    /// after a play).
    public var pitch: Float? {
        get { engine?.own(self)?.pitch }
        nonmutating set { if let newValue { engine?.setPitch(newValue, of: self) } }
    }

    /// The pan of a non-positional voice, −1…+1 (nil for a stale handle).
    public var pan: Float? {
        get { engine?.read(self) { $0.pan } ?? nil }
        nonmutating set { if let newValue { engine?.setPan(newValue, of: self) } }
    }

    public static func == (a: Voice, b: Voice) -> Bool { a.isSameHandle(as: b) }
    public func hash(into hasher: inout Hasher) { hashHandle(into: &hasher) }
}

/// A slot index and the generation that was current when the handle was made.
struct VoiceID: Hashable, Sendable {
    var index: UInt32
    var generation: UInt32
}
