/// A part of the engine that lives beside the voice pool and follows the engine's life: the
/// contract ``AudioEngine`` drives, so that a feature plugs in without editing the engine.
///
/// The engine keeps its own subsystems in one list (``AudioEngine/subsystems``, made once in its
/// init), followed by those attached later with ``AudioEngine/attach(_:)`` — a subsystem in
/// another target of the package (a bank of designer sounds, a monitor) plugs in that way,
/// without editing the engine. It calls every hook below on each of them, in that order, from
/// the one place the event
/// happens: ``AudioEngine/update(deltaTime:)`` (the frame hooks), ``AudioEngine/render(into:)``
/// (the render hooks), the device-loss code (`DeviceRecovery.swift`), the bus setters and
/// ``AudioEngine/shutdown()``. Every hook has a default that does nothing; a subsystem implements
/// the ones it needs. Today: dialogue (`DialogueSystem`), music (``MusicSystem``), the output meter (``OutputMeter``) and the
/// audio session (``SessionSlot``). Parts that must run *inside* the core's game frame, under the
/// AL lock and within its one deferred AL batch — the mix and the environment — are
/// ``CoreStage``s of the core instead.
///
/// Threading: every hook is called with **no engine lock held** — neither the AL lock nor the
/// lifecycle lock, except where a hook says otherwise — so a subsystem takes its own lock first
/// and the AL lock inside it (``AudioEngine/withAL(_:)``), never the other way round. A hook must
/// not block for long: the frame hooks run on the game's thread, the render hooks on the thread
/// that renders.
///
/// ```swift
/// final class FrameCounter: EngineSubsystem {
///     let frames = Locked(0)
///     func endFrame(_ engine: AudioEngine, changes: BusChanges) { frames.withLock { $0 += 1 } }
/// }
/// ```
package protocol EngineSubsystem: AnyObject, Sendable {
    /// Once per game frame, before the core's frame step (``AudioEngine/update(deltaTime:)``):
    /// what must reach the voices in this very frame (the session's music duck).
    func beginFrame(_ engine: AudioEngine)
    /// Once per game frame, after the core's frame step, with the bus changes the frame made (a
    /// snapshot's fade, a sidechain, a duck) and those left over from calls that did not deliver
    /// their own.
    func endFrame(_ engine: AudioEngine, changes: BusChanges)
    /// Before a loopback render of `frames` frames (``AudioEngine/render(into:)``).
    func willRender(_ engine: AudioEngine, frames: Int)
    /// After a loopback render: `buffer` holds the output as it leaves the engine (limited).
    func didRender(_ engine: AudioEngine, _ buffer: UnsafeMutableBufferPointer<Float>, channels: Int)
    /// A bus setter changed the buses outside a frame (gain, mute, pause, a snapshot, a stop).
    func busesChanged(_ engine: AudioEngine, _ changes: BusChanges)
    /// The output device is gone: the core has already entered the lost state (its voices are
    /// virtual) and ``DeviceEvent/lost(device:)`` was announced. The lifecycle lock is held.
    func deviceLost(_ engine: AudioEngine)
    /// The core was rebuilt on a reopened device (the old context and every AL name of it are
    /// gone): make the AL objects again and carry on. The lifecycle lock is held.
    func deviceRestored(_ engine: AudioEngine, _ restoration: DeviceRestoration)
    /// The engine shuts down: stop, release AL objects (the core is still alive) and finish the
    /// event streams. Called once, before the core is torn down; the lifecycle lock is held.
    func shutdown(_ engine: AudioEngine)
}

extension EngineSubsystem {
    package func beginFrame(_ engine: AudioEngine) {}
    package func endFrame(_ engine: AudioEngine, changes: BusChanges) {}
    package func willRender(_ engine: AudioEngine, frames: Int) {}
    package func didRender(_ engine: AudioEngine, _ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {}
    package func busesChanged(_ engine: AudioEngine, _ changes: BusChanges) {}
    package func deviceLost(_ engine: AudioEngine) {}
    package func deviceRestored(_ engine: AudioEngine, _ restoration: DeviceRestoration) {}
    package func shutdown(_ engine: AudioEngine) {}
}

/// What changed on the buses since the subsystems last heard: collected by the core wherever bus
/// state changes (``EngineCore/syncBuses()`` is the one funnel), handed to the subsystems outside
/// the AL lock.
package struct BusChanges: Equatable, Sendable {
    /// Some bus's level (gain × snapshot × duck × sidechain, or its mute) changed.
    package var levels = false
    /// Which buses are held (paused by the game, `pauseAll(except:)`, an interruption) changed.
    package var holds = false
    /// Buses whose sounds were stopped by ``AudioEngine/stopAll(on:)``, in call order.
    package var stopped: [Bus] = []

    package init() {}

    package var isEmpty: Bool { !levels && !holds && stopped.isEmpty }

    package mutating func merge(_ other: BusChanges) {
        levels = levels || other.levels
        holds = holds || other.holds
        stopped += other.stopped
    }
}

/// The device an engine was rebuilt on after a loss (``EngineSubsystem/deviceRestored(_:_:)``).
package struct DeviceRestoration: Sendable {
    /// The new device's name.
    package var device: String
    /// The device that was asked for when the engine fell back to the default one, else nil.
    package var fellBackFrom: String?
}
