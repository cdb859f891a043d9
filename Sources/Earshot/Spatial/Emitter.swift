/// A thing in the world that makes sound: a car, a torch, an NPC. Voices played on it follow it.
///
/// Emitters are cheap handles (generation-counted like ``Voice``): move them every frame, and the
/// engine pushes the new positions of their audible voices to OpenAL in one batch at
/// ``AudioEngine/update(deltaTime:)``. Thousands may exist; only the voices that win a real source
/// cost OpenAL anything.
///
/// ```swift
/// let hum = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
/// let car = try engine.makeEmitter(SpatialProperties(position: Vector3(10, 0, 0)))
/// _ = try engine.play(hum, options: .init(loop: true, emitter: car))
/// car.position = Vector3(9, 0, 0)          // next frame
/// engine.removeEmitter(car)                // its voices stop (with the steal fade)
/// ```
///
/// A handle does not keep its engine alive: after the engine is shut down or released the
/// emitter reads as removed (``properties``, ``position`` and ``velocity`` are nil) and setters
/// do nothing. It belongs to its engine: passed to another engine it is refused with
/// ``EarshotError/wrongEngine`` by the calls that throw (`play`) and ignored by the others.
public struct Emitter: Sendable, Hashable, EngineHandle {
    /// The engine's link, which holds the engine weakly (see ``Voice``).
    let link: EngineLink
    let id: EmitterID

    /// The emitter's properties (nil for a removed emitter). Setting validates: invalid values are
    /// ignored, never passed to OpenAL.
    public var properties: SpatialProperties? {
        get { engine?.properties(of: self) }
        nonmutating set { if let newValue { engine?.setProperties(newValue, of: self) } }
    }

    /// The emitter's position (the hot path: one lock, no validation beyond finiteness); nil for
    /// a removed emitter, as ``Voice/position`` is for an ended voice. Setting nil, a non-finite
    /// position, or on a removed emitter does nothing.
    public var position: Vector3? {
        get { engine?.properties(of: self)?.position }
        nonmutating set { if let newValue { engine?.setPosition(newValue, of: self) } }
    }

    /// The emitter's velocity, for doppler; nil for a removed emitter.
    public var velocity: Vector3? {
        get { engine?.properties(of: self)?.velocity }
        nonmutating set {
            guard let newValue, let engine, var p = engine.properties(of: self), newValue.isFinite else { return }
            p.velocity = newValue
            engine.setProperties(p, of: self)
        }
    }

    public static func == (a: Emitter, b: Emitter) -> Bool { a.isSameHandle(as: b) }
    public func hash(into hasher: inout Hasher) { hashHandle(into: &hasher) }
}

/// A slot index and generation of an emitter.
struct EmitterID: Hashable, Sendable {
    var index: UInt32
    var generation: UInt32
}
