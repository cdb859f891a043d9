/// Game parameters from the game's side: defining them, setting them globally, per voice and
/// per emitter, reading them, and curves on buses.
extension AudioEngine {
    /// Defines a game parameter (``ParameterDefinition``), or redefines one of that name: its
    /// range, default and seek change; its value is kept, clamped to the new range.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a definition out of range or past
    /// ``ParameterDefinition/maxParametersPerEngine``, ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// try engine.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 800, seek: 4000))
    /// try engine.defineParameter(ParameterDefinition(name: "intensity", range: 0...1))
    /// ```
    public func defineParameter(_ definition: ParameterDefinition) throws(EarshotError) {
        try definition.validate()
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            try core.parameters.define(definition)
        }
    }

    /// The parameters defined so far, in the order they were first defined (empty after shutdown).
    public var parameterDefinitions: [ParameterDefinition] {
        withAL { core.isShutDown ? [] : core.parameters.definitions }
    }

    /// Sets a parameter's global value: what every voice hears that has no value of its own
    /// (``Voice/setParameter(_:_:ramp:)``) and whose emitter has none.
    ///
    /// The heard value moves there at the definition's ``ParameterDefinition/seek`` — or over
    /// `ramp` seconds when given (0: at once) — from the next ``update(deltaTime:)`` on, in
    /// playback time. A value outside the parameter's range is clamped to it.
    ///
    /// Throws ``EarshotError/unknownParameter(name:nearest:)`` for a name that is not defined,
    /// ``EarshotError/invalidArgument(_:)`` for a value or ramp that is not finite (or a negative
    /// ramp), ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// try engine.setParameter("rpm", 3200)               // at the rpm's seek speed
    /// try engine.setParameter("intensity", 1, ramp: 3)   // over three seconds
    /// ```
    public func setParameter(_ name: String, _ value: Double, ramp: Double? = nil) throws(EarshotError) {
        try Self.checkRamp(ramp)
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            try core.parameters.setGlobal(try core.parameters.index(of: name), value, ramp: ramp)
        }
    }

    /// A parameter's global value as voices hear it now (it moves toward the last value set at
    /// the seek speed).
    ///
    /// Throws ``EarshotError/unknownParameter(name:nearest:)`` for a name that is not defined and
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// let rpm = try engine.parameter("rpm")
    /// ```
    public func parameter(_ name: String) throws(EarshotError) -> Double {
        try withAL { () throws(EarshotError) -> Double in
            guard !core.isShutDown else { throw .engineShutDown }
            return core.parameters.global[try core.parameters.index(of: name)].current
        }
    }

    /// Sets a voice's own value of a parameter: its curves (and, for a layered voice, every
    /// layer's; for a timeline sound, every part's playing) read it instead of its emitter's or
    /// the global value — three cars, three engines.
    /// It starts from the value the voice heard and moves as ``setParameter(_:_:ramp:)`` says,
    /// in the voice's playback time (frozen while it or its bus is paused). A stale voice does
    /// nothing.
    ///
    /// Throws ``EarshotError/unknownParameter(name:nearest:)``, ``EarshotError/invalidArgument(_:)``
    /// for a value that is not finite, ``EarshotError/wrongEngine`` for another engine's voice,
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// let hum = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")], loop: true))
    /// let car = try engine.play(hum, options: SoundPlayOptions(position: Vector3(4, 0, -10)))
    /// try engine.setParameter("rpm", 5200, of: car)
    /// ```
    public func setParameter(_ name: String, _ value: Double, of voice: Voice,
                             ramp: Double? = nil) throws(EarshotError) {
        try withParameter(name, of: voice, ramp: ramp) { (p) throws(EarshotError) in
            let stage = core.parameters
            let d = stage.definitions[p]
            guard let v = d.clamped(value) else {
                throw .invalidArgument("parameter \"\(name)\": value \(value) is not finite")
            }
            func set(_ id: VoiceID) {
                guard let slot = core.pool.slot(id) else { return }   // ended: nothing to shape
                let i = stage.voices.entry(id) ?? stage.adopt(slot, id: id, pool: core.pool)
                let table = stage.voices
                if let k = table.entries[i].locals.firstIndex(where: { $0.parameter == p }) {
                    table.entries[i].locals[k].value.set(v, seek: d.seek, ramp: ramp)
                } else {
                    var pv = ParameterValue(stage.value(p, slot: i, pool: core.pool))
                    pv.set(v, seek: d.seek, ramp: ramp)
                    table.entries[i].locals.append(LocalParameter(parameter: p, value: pv))
                }
                table.entries[i].dirty = true
                for f in table.entries[i].followers { if let j = table.entry(f) { table.entries[j].dirty = true } }
            }
            set(voice.id)
            core.timelines.forEachOtherPart(of: voice.id, pool: core.pool, set)   // a timeline's parts
        }
    }

    /// A voice's value of a parameter as it hears it now — its own, its emitter's or the global
    /// one; nil for a stale voice or another engine's.
    ///
    /// Throws ``EarshotError/unknownParameter(name:nearest:)`` for a name that is not defined.
    public func parameter(_ name: String, of voice: Voice) throws(EarshotError) -> Double? {
        guard voice.link === link else { return nil }
        return try withAL { () throws(EarshotError) -> Double? in
            guard !core.isShutDown else { return nil }
            let p = try core.parameters.index(of: name)
            guard let slot = core.pool.slot(voice.id) else { return nil }
            if core.parameters.voices.entry(voice.id) != nil { return core.parameters.value(p, slot: slot, pool: core.pool) }
            let e = core.pool.voiceStates[slot].emitterIndex
            if e >= 0,
               let v = core.parameters.emitterValue(e, generation: core.pool.emitterGeneration(e), p) { return v }
            return core.parameters.global[p].current
        }
    }

    /// Sets an emitter's own value of a parameter: every voice on the emitter hears it unless it
    /// has one of its own. Moves as ``setParameter(_:_:ramp:)`` says. A removed emitter does nothing.
    ///
    /// Throws as ``setParameter(_:_:of:ramp:)-(_,_,Voice,_)`` does.
    ///
    /// ```swift
    /// let car = try engine.makeEmitter(SpatialProperties(position: Vector3(0, 0, -20)))
    /// try engine.setParameter("rpm", 4100, of: car)
    /// ```
    public func setParameter(_ name: String, _ value: Double, of emitter: Emitter,
                             ramp: Double? = nil) throws(EarshotError) {
        try withParameter(name, of: emitter, ramp: ramp) { (p) throws(EarshotError) in
            guard let e = core.pool.emitterIndex(emitter.id) else { return }
            try core.parameters.setEmitter(e, generation: emitter.id.generation, p, value, ramp: ramp)
        }
    }

    /// What setting a parameter on a voice or an emitter checks first — the handle is this
    /// engine's, the ramp valid, the engine running, the parameter defined — then `body` with
    /// the parameter's index, under the AL lock.
    private func withParameter(_ name: String, of handle: some EngineHandle, ramp: Double?,
                               _ body: (Int) throws(EarshotError) -> Void) throws(EarshotError) {
        guard handle.link === link else { throw .wrongEngine }
        try Self.checkRamp(ramp)
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            try body(try core.parameters.index(of: name))
        }
    }

    /// Gives a bus curves (empty: none). A bus curve shapes every voice on the bus, each with
    /// the value it hears (its own, its emitter's or the global one), combined with the voice's
    /// sound's curves (dB add, pitch multiplies …; see ``ParameterCurve``). Voices already playing
    /// on the bus follow from the next ``update(deltaTime:)``.
    ///
    /// Throws ``EarshotError/unknownParameter(name:nearest:)`` for a curve on an undefined
    /// parameter, ``EarshotError/invalidArgument(_:)`` for a bad curve or an unknown bus,
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// try engine.defineParameter(ParameterDefinition(name: "health", range: 0...100, defaultValue: 100))
    /// try engine.setCurves([ParameterCurve(parameter: "health", property: .lowPass,
    ///                                      points: [.init(0, 0.1), .init(30, 1)])], for: .sfx)
    /// ```
    public func setCurves(_ curves: [ParameterCurve], for bus: Bus) throws(EarshotError) {
        guard curves.count <= ParameterCurve.maxCurvesPerTarget else {
            throw .invalidArgument("a bus holds at most \(ParameterCurve.maxCurvesPerTarget) curves (got \(curves.count))")
        }
        for c in curves { try c.validate() }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            guard let b = core.busIndex(bus) else {
                throw .invalidArgument("no bus named \"\(bus.name)\" (add it with addBus first)")
            }
            try core.parameters.setBusCurves(curves, bus: b)
            core.parameters.adoptBusVoices(b, pool: core.pool)
        }
    }

    private static func checkRamp(_ ramp: Double?) throws(EarshotError) {
        if let ramp, !(ramp.isFinite && ramp >= 0) {
            throw .invalidArgument("ramp \(ramp) s (must be finite and ≥ 0)")
        }
    }
}

extension Voice {
    /// Sets this voice's own value of a game parameter (see
    /// ``AudioEngine/setParameter(_:_:of:ramp:)-(_,_,Voice,_)``): for a layered sound, every
    /// layer hears it. A stale handle does nothing; after shutdown it throws
    /// ``EarshotError/engineShutDown``.
    ///
    /// ```swift
    /// let hum = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")], loop: true))
    /// let car = try engine.play(hum)
    /// try car.setParameter("rpm", 3200)
    /// ```
    public func setParameter(_ name: String, _ value: Double, ramp: Double? = nil) throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        try engine.setParameter(name, value, of: self, ramp: ramp)
    }

    /// This voice's value of a game parameter as it hears it now (nil for a stale handle).
    public func parameter(_ name: String) throws(EarshotError) -> Double? {
        guard let engine else { return nil }
        return try engine.parameter(name, of: self)
    }
}

extension Emitter {
    /// Sets this emitter's own value of a game parameter (see
    /// ``AudioEngine/setParameter(_:_:of:ramp:)-(_,_,Emitter,_)``).
    ///
    /// ```swift
    /// let car = try engine.makeEmitter(SpatialProperties(position: Vector3(0, 0, -20)))
    /// try car.setParameter("rpm", 4100)
    /// ```
    public func setParameter(_ name: String, _ value: Double, ramp: Double? = nil) throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        try engine.setParameter(name, value, of: self, ramp: ramp)
    }
}
