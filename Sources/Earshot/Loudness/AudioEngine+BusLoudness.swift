/// Live momentary and short-term loudness of a bus (``AudioEngine/loudness(of:)``) or of the
/// master (``AudioEngine/masterLoudness()``). See <doc:Loudness> for how a bus's is estimated.
///
/// ```swift
/// let sfx = try engine.loudness(of: .sfx)
/// if sfx.momentary > -16 { print("sfx is hot: \(sfx.momentary) LUFS") }
/// ```
public struct LiveLoudness: Sendable, Equatable {
    /// LUFS over the last 400 ms; −∞ for silence.
    public var momentary: Double
    /// LUFS over the last 3 s; −∞ for silence.
    public var shortTerm: Double
    /// True when estimated from the clips' K-weighted levels and the gains voices are heard at
    /// (every bus; the master on a device, or with ``AudioEngine/setLoudnessMetering(_:)`` off);
    /// false when measured on the output samples by libebur128 (the master of a loopback
    /// engine with loudness metering on).
    public var isEstimate: Bool

    public init(momentary: Double, shortTerm: Double, isEstimate: Bool) {
        self.momentary = momentary
        self.shortTerm = shortTerm
        self.isEstimate = isEstimate
    }
}

extension AudioEngine {
    /// The live loudness of `bus` (a group: of every bus below it too), estimated each game
    /// frame: OpenAL mixes every bus into one output, so there is no per-bus signal to meter.
    /// Each real voice counts its clip's K-weighted power (measured once at load, on blocks of
    /// about 10 ms) at its playhead times the gain it is heard at; music on the bus counts its
    /// unweighted power. Momentary is the mean over the last 400 ms of engine time, short-term
    /// over 3 s, ungated, as BS.1770. −∞ when nothing was heard and after ``shutdown()``.
    /// Throws ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    ///
    /// ```swift
    /// let music = try engine.loudness(of: .music)
    /// print("music at \(music.momentary) LUFS (3 s: \(music.shortTerm))")
    /// ```
    public func loudness(of bus: Bus) throws(EarshotError) -> LiveLoudness {
        try withAL { () throws(EarshotError) -> LiveLoudness in
            let b = try core.requireBus(bus)
            guard !core.isShutDown else { return LiveLoudness(momentary: -.infinity, shortTerm: -.infinity, isEstimate: true) }
            let r = core.busLoudness.reading(ofBus: b)
            return LiveLoudness(momentary: r.momentary, shortTerm: r.shortTerm, isEstimate: true)
        }
    }

    /// The live loudness of the master: measured on the output (``outputLoudness()``) when a
    /// loopback engine meters it (``setLoudnessMetering(_:)``), else the sum of every bus's
    /// estimate (``loudness(of:)``) — always so on a device, whose mix happens in OpenAL's own
    /// thread. The estimate does not see the limiter, reverb returns or OpenAL's panning.
    ///
    /// ```swift
    /// let master = try engine.masterLoudness()
    /// print("\(master.momentary) LUFS\(master.isEstimate ? " (estimated)" : "")")
    /// ```
    public func masterLoudness() throws(EarshotError) -> LiveLoudness {
        if let measured = outputLoudness() {
            return LiveLoudness(momentary: measured.momentary ?? -.infinity, shortTerm: measured.shortTerm ?? -.infinity, isEstimate: false)
        }
        return try withAL { () throws(EarshotError) -> LiveLoudness in
            guard !core.isShutDown else { return LiveLoudness(momentary: -.infinity, shortTerm: -.infinity, isEstimate: true) }
            let r = core.busLoudness.reading(ofBus: nil)
            return LiveLoudness(momentary: r.momentary, shortTerm: r.shortTerm, isEstimate: true)
        }
    }
}

extension AudioEngine {
    /// `earshot-bench loudness` only: steps the bus loudness `count` times, `interval` seconds
    /// apart from `start` (later than any earlier step), each as a game frame runs it, under the
    /// AL lock, without rendering, so the bench times the estimate alone.
    package func stepBusLoudnessForBenchmark(from start: Double, count: Int, interval: Double) {
        withAL {
            guard !core.isShutDown else { return }
            for i in 1...max(1, count) { core.busLoudness.step(now: start + Double(i) * interval, host: core) }
        }
    }
}
