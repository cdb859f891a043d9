/// Environmental audio: reverb zones around the listener (see the "Rooms and walls" article).
extension AudioEngine {
    /// What the output offers for environmental audio: EFX present, auxiliary sends granted.
    /// Without EFX, zones are accepted and every voice plays dry.
    public var efxSupport: EFXSupport { withAL { core.efx } }

    /// The reverb zones in use, as last set.
    public var reverbZones: [ReverbZone] { withAL { core.environment.reverbZones } }

    /// Replaces the reverb zones. Each is validated (``ReverbZone/validated()``) and names must be
    /// unique; a bad zone throws ``EarshotError/invalidArgument(_:)`` and changes nothing.
    ///
    /// Every positioned voice (placed at a position or on an emitter) sends to the zones the
    /// listener hears, one zone per auxiliary send (``Configuration/zoneSends``, default 2);
    /// panned voices stay dry. As the listener moves, ``update(deltaTime:)`` glides each zone's reverb in
    /// and out in playback time (see ``ZoneBlend`` for which zones are chosen and how loud).
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// try engine.setReverbZones([
    ///     ReverbZone(name: "cell", shape: .box(center: Vector3(0, 1.5, 0), size: Vector3(4, 3, 4)),
    ///                reverb: try ReverbProperties.preset(named: "stoneroom"), fade: 1),
    ///     ReverbZone(name: "hangar", shape: .box(center: Vector3(0, 10, -40), size: Vector3(60, 20, 60)),
    ///                reverb: try ReverbProperties.preset(named: "hangar"), fade: 4),
    /// ])
    /// ```
    public func setReverbZones(_ zones: [ReverbZone]) throws(EarshotError) {
        var names = Set<String>()
        for zone in zones {
            _ = try zone.validated()
            guard names.insert(zone.name).inserted else {
                throw .invalidArgument("two reverb zones are named \"\(zone.name)\"")
            }
        }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            try core.environment.setReverbZones(zones, core: core)
        }
    }
}

/// Occlusion, obstruction, air absorption and send levels (see ``EnvironmentProperties``).
extension AudioEngine {
    /// The curve that turns occlusion and obstruction into filter gains (``OcclusionCurve``'s
    /// default unless the game sets its own). Applies to changes made after it is set.
    public var occlusionCurve: OcclusionCurve {
        get { withAL { core.sendRouter.curve } }
        set { withAL { core.sendRouter.setCurve(newValue) } }
    }

    /// An emitter's environment, or nil once it is removed.
    public func environment(of emitter: Emitter) -> EnvironmentProperties? {
        withIndex(of: emitter) { core.pool.environment(ofEmitter: $0) }
    }

    /// Sets an emitter's environment; its voices glide to it (over
    /// ``EnvironmentProperties/glideTime``). Invalid values and stale handles are ignored.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let guard1 = try engine.makeEmitter(SpatialProperties(position: Vector3(4, 0, -6)))
    /// engine.setEnvironment(EnvironmentProperties(obstruction: 0.6), of: guard1)   // behind a pillar
    /// ```
    public func setEnvironment(_ environment: EnvironmentProperties, of emitter: Emitter) {
        change(emitter, if: environment.isValid) { core.pool.setEmitterEnvironment($0, environment) }
    }

    /// Sets the environment of a voice placed at its own position (a voice following an
    /// emitter uses the emitter's; a panned voice is never filtered). Invalid values and stale
    /// handles are ignored.
    public func setEnvironment(_ environment: EnvironmentProperties, of voice: Voice) {
        guard environment.isValid else { return }
        withSlot(of: voice) { core.pool.setVoiceEnvironment($0, environment) }
    }
}

extension Emitter {
    /// The emitter's environment (occlusion, obstruction, air absorption, send level); nil once
    /// removed. Setting it glides its voices there.
    public var environment: EnvironmentProperties? {
        get { engine?.environment(of: self) }
        nonmutating set { if let newValue { engine?.setEnvironment(newValue, of: self) } }
    }
}

/// Bus filters and bus effects: the whole `sfx` bus under water, an echo on the `voice` bus.
extension AudioEngine {
    /// Puts `filter` on every voice of `bus` (positioned or panned, and their reverb sends),
    /// gliding there over ``EnvironmentProperties/glideTime``; ``LowPassFilter/open`` removes it.
    /// It multiplies with each voice's own occlusion and obstruction; a ``Snapshot`` that names a
    /// filter for the bus blends over it while it is active. Throws
    /// ``EarshotError/invalidArgument(_:)`` for an unknown bus or gains outside 0…1.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// try engine.setFilter(LowPassFilter(gain: 0.7, gainHF: 0.05), for: .sfx)   // the pause menu
    /// ```
    public func setFilter(_ filter: LowPassFilter, for bus: Bus) throws(EarshotError) {
        guard filter.isValid else {
            throw .invalidArgument("filter gains \(filter.gain), \(filter.gainHF) must be within 0…1")
        }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            let b = try core.requireBus(bus)
            core.sendRouter.setBusFilter(filter, bus: b)
        }
    }

    /// The bus's own filter, as last set with ``setFilter(_:for:)`` (``LowPassFilter/open`` for
    /// none); the ``Snapshot``s in force blend over it without changing it. Throws
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    public func filter(for bus: Bus) throws(EarshotError) -> LowPassFilter {
        try withAL { () throws(EarshotError) -> LowPassFilter in core.sendRouter.busFilter(try core.requireBus(bus)) }
    }

    /// Gives `bus` an effect that every voice on it sends to, at `level` (the effect's output
    /// gain, 0…1), replaces it, or (nil) removes it. The engine must reserve a send for bus
    /// effects (``Configuration/busEffects``). Throws ``EarshotError/extensionMissing(_:)`` when
    /// the device has no EFX or did not grant that send, and ``EarshotError/invalidArgument(_:)``
    /// for an unknown bus, values out of range, or an engine made without `busEffects`.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000), busEffects: true))
    /// try engine.setEffect(.echo(EchoProperties(delay: 0.12, feedback: 0.3)), level: 0.6, for: .voice)
    /// ```
    public func setEffect(_ effect: BusEffect?, level: Float = 1, for bus: Bus) throws(EarshotError) {
        if let effect { _ = try effect.validated() }
        guard level.isFinite, (0...1).contains(level) else {
            throw .invalidArgument("effect level \(level) is outside 0…1")
        }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            let b = try core.requireBus(bus)
            try core.environment.setBusEffect(effect, level: level, bus: b, core: core)
        }
    }

    /// The effect `bus` owns, or nil. Throws ``EarshotError/invalidArgument(_:)`` for a bus the
    /// engine does not have.
    public func effect(for bus: Bus) throws(EarshotError) -> BusEffect? {
        try withAL { () throws(EarshotError) -> BusEffect? in
            core.environment.busEffects[try core.requireBus(bus)]?.effect
        }
    }
}
