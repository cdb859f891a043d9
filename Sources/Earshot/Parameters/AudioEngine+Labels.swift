/// Labelled parameters from the game's side (``ParameterDefinition/init(name:labels:)``): set
/// and read by label — globally, on an emitter, on a voice — at once (a label does not seek).
extension AudioEngine {
    /// Sets a labelled parameter's global value by label: every voice and switch that has no
    /// value of its own (nor its emitter) hears it, and a ``SoundSwitch`` played from now on
    /// picks that label's case.
    ///
    /// Throws ``EarshotError/unknownParameter(name:nearest:)`` for a name that is not defined,
    /// ``EarshotError/invalidArgument(_:)`` for a label the parameter does not have (or a
    /// parameter without labels), ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// try engine.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood", "metal"]))
    /// try engine.setParameter("surface", "wood")
    /// ```
    public func setParameter(_ name: String, _ label: String) throws(EarshotError) {
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            let p = try core.parameters.index(of: name)
            try core.parameters.setGlobal(p, try core.parameters.labelValue(p, label), ramp: 0)
        }
    }

    /// Sets an emitter's own label of a labelled parameter: the switches played on it pick that
    /// label's case. Throws as ``setParameter(_:_:)-(String,String)`` does, and
    /// ``EarshotError/wrongEngine`` for another engine's emitter; a removed emitter does nothing.
    public func setParameter(_ name: String, _ label: String, of emitter: Emitter) throws(EarshotError) {
        guard emitter.link === link else { throw .wrongEngine }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            let p = try core.parameters.index(of: name)
            let v = try core.parameters.labelValue(p, label)
            guard let e = core.pool.emitterIndex(emitter.id) else { return }
            try core.parameters.setEmitter(e, generation: emitter.id.generation, p, v, ramp: 0)
        }
    }

    /// The global label of a labelled parameter now (nil for a parameter without labels).
    ///
    /// Throws ``EarshotError/unknownParameter(name:nearest:)`` for a name that is not defined.
    public func parameterLabel(_ name: String) throws(EarshotError) -> String? {
        try withAL { () throws(EarshotError) -> String? in
            guard !core.isShutDown else { throw .engineShutDown }
            let p = try core.parameters.index(of: name)
            return core.parameters.definitions[p].label(of: core.parameters.global[p].target)
        }
    }
}

extension Emitter {
    /// Sets this emitter's own label of a labelled parameter (see
    /// ``AudioEngine/setParameter(_:_:of:)-(String,String,Emitter)``).
    ///
    /// ```swift
    /// let player = try engine.makeEmitter(SpatialProperties(position: Vector3(0, 0, -2)))
    /// try player.setParameter("surface", "metal")
    /// ```
    public func setParameter(_ name: String, _ label: String) throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        try engine.setParameter(name, label, of: self)
    }
}

extension ParameterStage {
    /// The value of `label` on labelled parameter `p` (``EarshotError/invalidArgument(_:)`` for a
    /// label it does not have).
    func labelValue(_ p: Int, _ label: String) throws(EarshotError) -> Double {
        let d = definitions[p]
        guard !d.labels.isEmpty else {
            throw .invalidArgument("parameter \"\(d.name)\" has no labels (set it by value)")
        }
        guard let v = d.value(ofLabel: label) else {
            throw .invalidArgument("parameter \"\(d.name)\" has no label \"\(label)\" (its labels: \(d.labels.joined(separator: ", ")))")
        }
        return v
    }

    /// The label index a switch played on emitter `emitter` (−1: none) hears for parameter `p`
    /// now: the value the game set last (its emitter's, else the global one).
    func labelIndex(_ p: Int, emitter: Int, generation: UInt32) -> Int {
        var v = global[p].target
        if emitter >= 0, let el = emitterLocals[emitter], el.generation == generation,
           let own = el.values.first(where: { $0.parameter == p }) { v = own.value.target }
        return max(0, min(Int(v.rounded()), definitions[p].labels.count - 1))
    }
}
