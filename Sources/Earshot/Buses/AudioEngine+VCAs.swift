/// VCAs: level controls over sets of buses (see ``VCA``).
extension AudioEngine {
    /// Defines a VCA over its buses at gain 1, or gives the VCA of that name these buses (its
    /// gain and any fade under way are kept; buses no longer named return to their own level).
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a name that is not valid, a bus the engine
    /// does not have, a bus named twice, more than ``VCA/maxBuses`` buses or more than
    /// ``VCA/maxCount`` VCAs; ``EarshotError/engineShutDown`` after ``shutdown()``. Nothing
    /// changes then.
    ///
    /// ```swift
    /// try engine.defineVCA(VCA("everything but ui", buses: [.sfx, .music, .voice, .ambience]))
    /// ```
    public func defineVCA(_ vca: VCA) throws(EarshotError) {
        try vca.validate()
        try changingBuses { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            let members = try vca.buses.map { b throws(EarshotError) in try core.requireBus(b) }
            let table = core.vcaTable
            guard table.index(of: vca.name) != nil || table.entries.count < VCA.maxCount else {
                throw .invalidArgument("an engine may have at most \(VCA.maxCount) VCAs")
            }
            table.define(vca, members: members)
            core.applyVCAFactors()
        }
    }

    /// Removes a VCA: its buses return to their own level at once. Nothing for an unknown name or
    /// after ``shutdown()``.
    ///
    /// ```swift
    /// engine.removeVCA("gameplay")
    /// ```
    public func removeVCA(_ name: String) {
        changingBuses {
            guard !core.isShutDown, core.vcaTable.remove(name) else { return }
            core.applyVCAFactors()
        }
    }

    /// Moves a VCA's gain (linear, 0…``VCA/maxGain``) from where it is to `gain` over `fade`
    /// seconds, linearly in amplitude (at once for 0): each member bus — and everything below a
    /// member group — is heard at its own level times this. Fades run on the engine clock, as
    /// snapshot fades do (standing still while an audio-session interruption holds the audio).
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for an unknown VCA, a gain that is negative,
    /// above +24 dB or not finite, or a fade that is negative or not finite;
    /// ``EarshotError/engineShutDown`` after ``shutdown()``.
    ///
    /// ```swift
    /// try engine.defineVCA(VCA("gameplay", buses: [.sfx, .music]))
    /// try engine.setVCA("gameplay", gain: 0.316, fade: 1)   // −10 dB over a second
    /// ```
    public func setVCA(_ name: String, gain: Float, fade: Double = 0) throws(EarshotError) {
        try VCA.checkGain(gain)
        try Self.checkFade(fade)
        try changingBuses { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            guard core.vcaTable.set(name, gain: gain, fade: fade, now: core.now, frozen: core.interruptionHold) else {
                throw Self.noVCA(name)
            }
            core.applyVCAFactors()
        }
    }

    /// A VCA's gain now (linear; mid-fade, where the fade is as of the last update). Throws
    /// ``EarshotError/invalidArgument(_:)`` for an unknown VCA.
    ///
    /// ```swift
    /// let g = try engine.vcaGain("gameplay")
    /// ```
    public func vcaGain(_ name: String) throws(EarshotError) -> Float {
        try withAL { () throws(EarshotError) -> Float in
            guard let g = core.vcaTable.gain(of: name) else { throw Self.noVCA(name) }
            return g
        }
    }

    /// The engine's VCAs, in the order they were defined (empty after ``shutdown()``).
    public var vcas: [VCA] { withAL { core.isShutDown ? [] : core.vcaTable.entries.map(\.vca) } }

    static func noVCA(_ name: String) -> EarshotError {
        .invalidArgument("no VCA named \"\(name)\" (define it with defineVCA first)")
    }
}
