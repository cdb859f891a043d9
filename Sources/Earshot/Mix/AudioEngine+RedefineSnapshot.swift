extension AudioEngine {
    /// Gives the active snapshot named like `snapshot` its gains and filters, keeping where it
    /// is: its weight and any fade under way, whether it is ending, and its place in the begin
    /// order (a live edit of a designer's bank must not bring back a snapshot the game ended,
    /// nor move one the game faded half-way in). The buses take the new values from the next
    /// rendered frame. Returns whether such a snapshot was active (one that is not is left alone:
    /// the next ``begin(_:fade:intensity:)`` uses the new values anyway).
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` as ``begin(_:fade:intensity:)`` does for the
    /// snapshot's values or a bus the engine does not have, and ``EarshotError/engineShutDown``
    /// after ``shutdown()``; nothing changes then.
    ///
    /// ```swift
    /// try engine.begin(Snapshot("pause", busGains: [.sfx: -12]), fade: 0.3)
    /// try engine.redefine(Snapshot("pause", busGains: [.sfx: -18]))   // deeper, same fade
    /// ```
    @discardableResult
    public func redefine(_ snapshot: Snapshot) throws(EarshotError) -> Bool {
        try snapshot.validate()
        return try changingBuses { () throws(EarshotError) -> Bool in
            guard !core.isShutDown else { throw .engineShutDown }
            return try core.mixer.redefine(snapshot, host: core)
        }
    }
}
