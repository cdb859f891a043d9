/// The environment's part of the core's frame (a ``CoreStage`` after the voices): moves the
/// reverb zones' blend with the listener, ramps each voice source's sends and occlusion filters,
/// remakes the zone slots and bus effects on a new device and deletes them at teardown.
///
/// Its state lives on the core (``EngineCore/reverbZones``, ``EngineCore/zoneMixer``,
/// ``EngineCore/busEffects``, ``EngineCore/sendRouter``), because the voice pool's service reads
/// the send router when it hands out sources; the stage is the one place the frame, the rebuild
/// and the teardown reach it (EngineCore+Environment.swift holds the operations).
///
/// ```swift
/// let stage = EnvironmentStage()
/// assert(stage.phase == .afterVoices)   // a voice started this frame gets its sends at once
/// ```
final class EnvironmentStage: CoreStage {
    var phase: CoreStage.Phase { .afterVoices }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        core.stepZones(elapsed: time.elapsed)
        core.sendRouter.step(elapsed: min(max(time.elapsed, 0), 0.25))
    }

    func rebuild(_ core: EngineCore) throws(EarshotError) {
        try core.rebuildZones()
    }

    func teardown(_ core: EngineCore) {
        core.zoneMixer?.teardown()   // after the sources that sent to its slots are gone
        core.zoneMixer = nil
        for e in core.busEffects.values {
            EFX.deleteSlot(e.slot)
            EFX.deleteEffect(e.object)
        }
        core.busEffects = [:]
        core.sendRouter.teardown()
    }
}
