/// One of the engine's listeners (see ``AudioEngine/addListener(_:)``): a handle that stays
/// valid until the listener is removed.
///
/// It belongs to its engine: another engine's handle is refused with
/// ``EarshotError/wrongEngine``, a removed one with ``EarshotError/invalidArgument(_:)``, and
/// every call after ``AudioEngine/shutdown()`` throws ``EarshotError/engineShutDown``.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let second = try engine.addListener(Listener(position: Vector3(100, 0, 0)))
/// try engine.setListener(Listener(position: Vector3(101, 0, 0), weight: 0.5), for: second)
/// try engine.removeListener(second)
/// ```
public struct ListenerID: Sendable, Hashable, EngineHandle {
    let link: EngineLink
    /// The listener's serial number in its engine (never reused; 0 is the first listener).
    let id: UInt32

    public static func == (a: ListenerID, b: ListenerID) -> Bool { a.isSameHandle(as: b) }
    public func hash(into hasher: inout Hasher) { hashHandle(into: &hasher) }
}
