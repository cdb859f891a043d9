/// Environmental audio: reverb zones around the listener (see the "Rooms and walls" article).
extension AudioEngine {
    /// What the output offers for environmental audio: EFX present, auxiliary sends granted.
    /// Without EFX, zones are accepted and every voice plays dry.
    public var efxSupport: EFXSupport { withAL { core.efx } }

    /// The reverb zones in use, as last set.
    public var reverbZones: [ReverbZone] { withAL { core.reverbZones } }

    /// Replaces the reverb zones. Each is validated (``ReverbZone/validated()``) and names must be
    /// unique; a bad zone throws ``EarshotError/invalidArgument(_:)`` and changes nothing.
    ///
    /// Every positioned voice (placed at a position or on an emitter) sends to the zones the
    /// listener hears, one zone per auxiliary send (``Configuration/auxiliarySends``, default 2);
    /// panned voices stay dry. As the listener moves, ``update()`` glides each zone's reverb in
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
            guard names.insert(zone.name).inserted else { throw .invalidArgument("two reverb zones are named \"\(zone.name)\"") }
        }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            try core.setReverbZones(zones)
        }
    }
}
