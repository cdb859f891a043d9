import Synchronization

/// The live loudness of a loopback engine's master output: a ``LoudnessMeter`` fed every render
/// as it leaves the engine (after the limiter), like ``OutputMeter``.
///
/// Opt-in (``AudioEngine/isLoudnessMeteringEnabled``): when off, the render path pays one atomic
/// load. When on it measures momentary, short-term, integrated (bounded: a fixed histogram, so it
/// runs without end) and LRA, and the sample peak — not the true peak, which would triple its
/// cost (`earshot-bench loudness` measures it). A real device mixes inside OpenAL's own thread,
/// out of Earshot's sight: there, render offline (`earshot render`) to measure.
///
/// An ``EngineSubsystem``: its only hook is `didRender`.
final class OutputLoudnessMeter: EngineSubsystem {
    let enabled = Atomic<Bool>(false)
    /// The meter (a class over C state), only reached inside the lock.
    private let meter = Locked<LoudnessMeter?>(nil)

    /// Starts a new measurement (everything before is forgotten).
    func start(sampleRate: Int, channels: Int) throws(EarshotError) {
        let m = try LoudnessMeter(channels: channels, sampleRate: sampleRate, truePeak: false, bounded: true)
        meter.withLock { $0 = m }
    }

    func stop() { meter.withLock { $0 = nil } }

    func reading() -> LoudnessReading? { meter.withLock { $0?.reading() } }

    func didRender(_ engine: AudioEngine, _ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
        guard enabled.load(ordering: .relaxed) else { return }
        meter.withLock { m in
            guard let m, m.channels == channels else { return }
            // Whole frames by the render's precondition; the library's only failure is out of
            // memory, which a bounded meter does not reach after init.
            try? m.add(UnsafeBufferPointer(buffer))
        }
    }

    func shutdown(_ engine: AudioEngine) {
        enabled.store(false, ordering: .relaxed)
        stop()
    }
}
