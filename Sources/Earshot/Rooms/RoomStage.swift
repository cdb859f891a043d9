#if canImport(Glibc)
import Glibc
#endif

/// The rooms' part of the core (a ``CoreStage`` after the voices): the geometry the game set,
/// its portals' openness ramps, and each positioned voice's propagation — found each frame for
/// the voices whose emitter or listener moved (or whose geometry changed), glided in playback
/// time, and handed to the core (``RoomHost``) as a heard position and a filter.
///
/// With no geometry a frame costs one check: the voices are heard where they are, as before.
/// With one, a frame allocates nothing: every table is sized when the geometry is set.
final class RoomStage: CoreStage {
    /// One voice slot's propagation.
    struct Slot {
        var generation: UInt32 = .max
        /// What the result was computed for: the voice's position and the world's version.
        var position = Vector3(.infinity, 0, 0)
        var positionVersion: UInt32 = 0
        var version: UInt32 = 0
        var room: Int32 = -1
        var result = PropagationResult()
        /// What is heard now, gliding to `result`: direction and length from the listener, and
        /// the filter's gains in dB.
        var dir = Vector3.zero
        var length: Float = 0
        var gainDB: Float = 0
        var highDB: Float = 0
        var placed = false
    }

    /// How fast a heard placement follows a change of path (a time constant, seconds of
    /// playback): paths that switch portals, or between portals and walls, cross over in ~3×.
    static let glideTime: Double = 0.04

    private(set) var propagator: Propagator?
    // The tables are `@exclusivity(unchecked)` (as the voice pool's, which says why): the stage is
    // touched only under the AL lock, and the dynamic checks were a fifth of a moving frame's
    // instructions with 1,024 voices (`earshot-bench rooms` under callgrind).
    @exclusivity(unchecked) private var slots: [Slot] = []
    /// Bumped when anything all results depend on changes (listener, geometry, openness).
    @exclusivity(unchecked) private var version: UInt32 = 1
    @exclusivity(unchecked) private var geometryVersion: UInt32 = 1
    @exclusivity(unchecked) private var lastListener = Vector3(.infinity, 0, 0)
    @exclusivity(unchecked) private(set) var listenerRoom = -1
    /// Voices were placed under an earlier geometry: the next frame puts them back.
    private var needsClear = false
    private(set) var curve = DiffractionCurve()
    /// Which other rooms' reverbs ring and which voices feed them.
    @exclusivity(unchecked) private var reverbRouting = RoomReverbRouting(geometry: .empty)

    var phase: CoreStage.Phase { .afterVoices }

    /// The geometry now (openness as set, ramps at their targets).
    var geometry: AcousticGeometry {
        guard let p = propagator else { return .empty }
        var g = p.geometry
        for k in g.portals.indices { g.portals[k].openness = p.graph.target(k) }
        return g
    }

    /// Replaces the geometry (validated by the caller). Portals kept by id keep a ramp under way
    /// when their openness did not change.
    func setGeometry(_ g: AcousticGeometry, capacity: Int) {
        let old = propagator
        if g.isEmpty {
            propagator = nil
            needsClear = true
        } else {
            let p = Propagator(g)
            p.setCurve(curve)
            if let old {
                var byID: [String: Int] = [:]
                for (k, portal) in old.geometry.portals.enumerated() { byID[portal.id] = k }
                for (k, portal) in g.portals.enumerated() {
                    guard let o = byID[portal.id], old.graph.target(o) == portal.openness else { continue }
                    p.graph.setOpenness(k, old.graph.openness[o], ramp: 0)
                    let left = abs(portal.openness - old.graph.openness[o])
                    if left > 0, let rate = old.graph.rate(o), rate > 0 {
                        p.graph.setOpenness(k, portal.openness, ramp: Double(left / rate))
                    }
                }
            }
            propagator = p
            reverbRouting = RoomReverbRouting(geometry: g)
            if slots.count < capacity { slots = [Slot](repeating: Slot(), count: capacity) }
        }
        geometryVersion &+= 1
        version &+= 1
    }

    func setCurve(_ c: DiffractionCurve) {
        curve = c
        propagator?.setCurve(c)
        version &+= 1
    }

    /// Ramps portal `k`'s openness to `value` over `ramp` seconds of playback.
    func setOpenness(portal k: Int, _ value: Float, ramp: Double) {
        guard let p = propagator else { return }
        p.graph.setOpenness(k, value, ramp: ramp)
        p.markGraphDirty()
        version &+= 1
    }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        guard propagator != nil || needsClear else { return }
        step(host: core, elapsed: min(max(time.elapsed, 0), 0.25))
    }

    func step(host: some RoomHost, elapsed: Double) {
        guard let p = propagator else {
            needsClear = false
            let channels = host.roomReverbChannels
            host.forEachPositionedVoice { slot, _, _ in
                host.setHeard(ofSlot: slot, position: nil, filter: .open)
                if channels > 0 { host.setRoomSend(ofSlot: slot, channel: -1) }
            }
            return
        }
        if needsClear { needsClear = false }
        if !host.playbackHeld, p.graph.stepRamps(elapsed) {
            p.markGraphDirty()
            version &+= 1
        }
        let l = host.listener.position
        if l != lastListener {
            lastListener = l
            version &+= 1
        }
        let lr = p.lookup.room(at: l)
        listenerRoom = lr
        p.prepare(listener: l, room: lr)
        let f = Float(1 - exp(-elapsed / Self.glideTime))
        let version = self.version, geometryVersion = self.geometryVersion
        let channels = min(host.roomReverbChannels, RoomReverbRouting.maxChannels)
        host.forEachPositionedVoice { i, generation, e in
            guard i < slots.count else { return }
            let fresh = slots[i].generation != generation
            if fresh {
                slots[i].generation = generation
                slots[i].placed = false
            }
            if fresh || slots[i].version != version || slots[i].position != e {
                if fresh || slots[i].position != e || slots[i].positionVersion != geometryVersion {
                    slots[i].room = Int32(fresh ? p.lookup.room(at: e) : p.lookup.room(at: e, near: Int(slots[i].room)))
                    slots[i].position = e
                    slots[i].positionVersion = geometryVersion
                }
                slots[i].version = version
                slots[i].result = p.propagate(e, room: Int(slots[i].room), listener: l, room: lr) {
                    host.attenuation(ofSlot: i, at: $0)
                }
            }
            place(i, listener: l, glide: fresh || !slots[i].placed ? 1 : f, host: host)
            if channels > 0 {
                host.setRoomSend(ofSlot: i, channel: reverbRouting.channel(for: slots[i].result, at: e, levelDB: slots[i].gainDB,
                                                                           channels: channels))
            }
        }
        if channels > 0 {
            reverbRouting.finish(graph: p.graph, listener: host.listener, channels: channels, host: host)
        } else {
            reverbRouting.forgetRang()
        }
    }

    /// Moves slot `i`'s heard placement toward its result by `f` (1: at once) and hands it over.
    @inline(__always)
    private func place(_ i: Int, listener l: Vector3, glide f: Float, host: some RoomHost) {
        let r = slots[i].result
        let rel = r.position - l
        let tLength = rel.length
        let tDir = tLength > 1e-6 ? rel * (1 / tLength) : Vector3(0, 0, -1)
        let tGain = RoomMath.dB(r.filter.gain), tHigh = RoomMath.dB(r.filter.gainHF)
        var s = slots[i]
        if f >= 1 {
            s.dir = tDir; s.length = tLength; s.gainDB = tGain; s.highDB = tHigh
        } else {
            s.dir = (s.dir + (tDir - s.dir) * f).normalized
            s.length += (tLength - s.length) * f
            s.gainDB += (tGain - s.gainDB) * f
            s.highDB += (tHigh - s.highDB) * f
            if (s.dir - tDir).length < 1e-3, abs(s.length - tLength) < 1e-3, abs(s.gainDB - tGain) < 0.01, abs(s.highDB - tHigh) < 0.01 {
                s.dir = tDir; s.length = tLength; s.gainDB = tGain; s.highDB = tHigh
            }
        }
        s.placed = true
        slots[i] = s
        let settled = s.dir == tDir && s.length == tLength && s.gainDB == tGain && s.highDB == tHigh
        if settled, r.kind == .direct {
            host.setHeard(ofSlot: i, position: nil, filter: .open)
        } else {
            host.setHeard(ofSlot: i, position: l + s.dir * s.length,
                          filter: LowPassFilter(gain: min(1, RoomMath.amplitude(dB: s.gainDB)),
                                                gainHF: min(1, RoomMath.amplitude(dB: s.highDB))))
        }
    }

    /// Each room's reverb as a zone on its box (its bounding box when turned), fading over
    /// ``roomReverbFade`` outside it: the listener hears the reverb of the room it is in.
    static func reverbZones(of g: AcousticGeometry) -> [ReverbZone] {
        g.rooms.compactMap { r in
            guard let reverb = r.reverb else { return nil }
            let box = RoomBox(r)
            return ReverbZone(name: zoneName(ofRoom: r.id), shape: .box(center: r.center, size: box.hi - box.lo), reverb: reverb,
                              fade: roomReverbFade)
        }
    }

    static let roomReverbFade: Float = 0.5

    /// The name of room `id`'s reverb zone (``reverbZones(of:)``).
    static func zoneName(ofRoom id: String) -> String { "room:" + id }

    /// The rooms whose reverbs ring now, as the listener hears them (the monitor's room reverb
    /// rows; nil: no geometry): the listener's room first when it has a reverb, then each other
    /// room that rang in the last frame, in channel order. Allocates the names.
    func ringingReverbs() -> [RoomReverbReading]? {
        guard let p = propagator else { return nil }
        let rooms = p.geometry.rooms
        var out: [RoomReverbReading] = []
        if listenerRoom >= 0, listenerRoom < rooms.count, rooms[listenerRoom].reverb != nil {
            out.append(RoomReverbReading(room: rooms[listenerRoom].id, heard: .around, portal: nil, levelDB: 0, pan: .zero))
        }
        for k in 0..<RoomReverbRouting.maxChannels {
            guard let r = reverbRouting.reading(channel: k), r.room < rooms.count else { continue }
            let portal = r.portal >= 0 && r.portal < p.geometry.portals.count ? p.geometry.portals[r.portal].id : nil
            out.append(RoomReverbReading(room: rooms[r.room].id, heard: portal == nil ? .walls : .portal, portal: portal,
                                         levelDB: r.levelDB, pan: r.pan))
        }
        return out
    }

    /// The public reading of the voice in `slot`'s propagation (``AudioEngine/propagation(of:)``,
    /// the monitor's voice rows); allocates its names.
    func propagation(ofSlot slot: Int, generation: UInt32) -> Propagation? {
        guard let p = propagator, let r = result(ofSlot: slot, generation: generation) else { return nil }
        func name(_ i: Int32) -> String? { i >= 0 && Int(i) < p.geometry.rooms.count ? p.geometry.rooms[Int(i)].id : nil }
        return Propagation(room: name(r.emitterRoom), listenerRoom: name(r.listenerRoom),
                           via: r.kind == .direct ? .direct : r.kind == .portals ? .portals : .walls,
                           path: r.pathNode >= 0 ? p.portalIDs(r.pathNode) : [], length: r.length,
                           diffractionDB: r.diffractionDB, opennessDB: r.opennessDB, transmissionDB: r.transmissionDB)
    }

    /// The propagation of the voice in `slot`, as last computed (nil: none, or no geometry).
    func result(ofSlot slot: Int, generation: UInt32) -> PropagationResult? {
        guard let p = propagator, slot < slots.count, slots[slot].generation == generation else { return nil }
        var r = slots[slot].result
        if !r.transmissionExact {
            r.transmissionDB = p.walls(from: slots[slot].position, to: lastListener)
            r.transmissionExact = true
        }
        return r
    }
}
