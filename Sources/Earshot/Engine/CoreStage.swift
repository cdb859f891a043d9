/// A subsystem's part inside the core's game frame: the mix (``Mixer``: snapshots and sidechain
/// ducking) and the environment (``EnvironmentStage``: reverb zones, sends, bus effects).
///
/// Where an ``EngineSubsystem`` lives beside the core with a lock of its own, a stage lives in
/// the core, under the AL lock: ``EngineCore/stepFrame()`` runs every stage's ``step(_:time:)``
/// inside the frame's one deferred AL batch — the ``Phase/beforeVoices`` stages before the voice
/// pool ranks and starts voices (so the voices take this frame's bus levels), the
/// ``Phase/afterVoices`` stages after it (so a voice started this frame gets its sends at once)
/// — then the device-loss rebuild calls ``rebuild(_:)`` and the teardown ``teardown(_:)`` on each,
/// in the order of ``EngineCore/stages``. A new stage is one more entry in that list.
///
/// ```swift
/// final class Meter: CoreStage {
///     var phase: CoreStage.Phase { .afterVoices }
///     var voices = 0
///     func step(_ core: EngineCore, time: CoreStage.FrameTime) { voices = core.pool.realCount }
/// }
/// ```
protocol CoreStage: AnyObject {
    typealias Phase = CoreStagePhase
    typealias FrameTime = CoreFrameTime
    /// When in the frame the stage steps.
    var phase: Phase { get }
    /// One game frame, under the AL lock with AL updates deferred.
    func step(_ core: EngineCore, time: FrameTime)
    /// The core was rebuilt on a new device (its sources and clips are back): remake the
    /// stage's AL objects. Under the AL lock.
    func rebuild(_ core: EngineCore) throws(EarshotError)
    /// The core is torn down (after the sources are deleted): delete the stage's AL objects.
    func teardown(_ core: EngineCore)
}

extension CoreStage {
    func rebuild(_ core: EngineCore) throws(EarshotError) {}
    func teardown(_ core: EngineCore) {}
}

/// When in the core's frame a ``CoreStage`` steps.
enum CoreStagePhase: Sendable {
    /// Before the voice pool ranks, steals and starts voices.
    case beforeVoices
    /// After the voice pool has settled this frame's sources.
    case afterVoices
}

/// The clock of one core frame (``CoreStage/step(_:time:)``).
struct CoreFrameTime: Sendable {
    /// The engine clock now, seconds (frames rendered on loopback, monotonic on a live device).
    var now: Double
    /// Seconds since the previous frame on that clock.
    var elapsed: Double
}
