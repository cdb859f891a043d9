/// One geometry compiled for propagation: the room lookup, the portal graph and the curve, and
/// the rule that turns an emitter and the listener into what is heard (``PropagationResult``).
/// Pure math, no OpenAL; touched under the AL lock by the ``RoomStage`` (or alone in tests).
final class Propagator {
    let geometry: AcousticGeometry
    let lookup: RoomLookup
    let graph: PortalGraph
    private(set) var curve = DiffractionCurve()
    // `@exclusivity(unchecked)`: touched only under the AL lock (RoomStage says why).
    /// Where the last search started (its listener position and room).
    @exclusivity(unchecked) private var searchedFrom = Vector3(.infinity, 0, 0)
    @exclusivity(unchecked) private var searchedRoom = -1
    /// The graph changed (openness) since the last search.
    @exclusivity(unchecked) private var graphDirty = true
    /// The portals and openings of a path being traced (sized for the longest path).
    @exclusivity(unchecked) private var chain: [Int]
    @exclusivity(unchecked) private var points: [Vector3]
    @exclusivity(unchecked) private var lastHops = 0

    init(_ geometry: AcousticGeometry) {
        self.geometry = geometry
        lookup = RoomLookup(rooms: geometry.rooms)
        var index: [String: Int] = [:]
        for (i, r) in geometry.rooms.enumerated() { index[r.id] = i }
        graph = PortalGraph(portals: geometry.portals, roomIndex: index, outside: geometry.rooms.count)
        chain = [Int](repeating: 0, count: AcousticGeometry.maxPathHops + 1)
        points = [Vector3](repeating: .zero, count: AcousticGeometry.maxPathHops + 1)
    }

    /// The listener moved further than `rebuild` metres or changed room, or the graph changed:
    /// searches again (otherwise the last search's path choices stand; lengths are always exact).
    /// Returns the listener's room.
    func prepare(listener l: Vector3, room: Int, rebuild: Float = 0.25) {
        if graphDirty || room != searchedRoom || (l - searchedFrom).length > rebuild {
            graph.search(from: l, room: room)
            searchedFrom = l
            searchedRoom = room
            graphDirty = false
        }
    }

    func markGraphDirty() { graphDirty = true }

    func setCurve(_ c: DiffractionCurve) { curve = c }

    /// What an emitter at `e` in room `er` is heard as by the listener at `l` in room `lr`
    /// (after ``prepare(listener:room:rebuild:)`` for that listener). `attenuation` is the
    /// voice's distance × cone gain at a position, to weigh the portal path against the walls.
    func propagate(_ e: Vector3, room er: Int, listener l: Vector3, room lr: Int,
                   attenuation: (Vector3) -> Float) -> PropagationResult {
        var r = PropagationResult()
        r.emitterRoom = Int32(er)
        r.listenerRoom = Int32(lr)
        let direct = (e - l).length
        guard er != lr else {
            r.kind = .direct
            r.length = direct
            r.position = e
            return r
        }
        // Through the portals.
        let n = graph.path(from: e, room: er)
        var pLoud: Float = 0
        var pFilter = LowPassFilter.open
        var pPosition = e, pLength: Float = 0
        if n >= 0 {
            var m = 0, node = n
            while node >= 0, m < chain.count {
                chain[m] = graph.portal(node)
                m += 1
                node = Int(graph.prev[node])
            }
            var from = e
            for j in 0..<m {
                let towards = j + 1 < m ? graph.openings[chain[j + 1]].center : l
                points[j] = graph.aperture(chain[j], from: from, towards: towards)
                from = points[j]
            }
            var length = (points[0] - e).length + (l - points[m - 1]).length
            var lossDB: Float = 0, highDB: Float = 0, open: Float = 1
            for j in 0..<m {
                if j > 0 { length += (points[j] - points[j - 1]).length }
                let before = j == 0 ? e : points[j - 1], after = j + 1 < m ? points[j + 1] : l
                let bend = RoomMath.angle(points[j] - before, after - points[j])
                lossDB += curve.lossDB(degrees: bend)
                highDB += curve.highLossDB(degrees: bend)
                open *= graph.openness[chain[j]]
            }
            let dir = (points[m - 1] - l)
            let unit = dir.length > 1e-4 ? dir.normalized : (e - l).normalized
            pPosition = l + unit * length
            pLength = length
            let g = RoomMath.amplitude(dB: -lossDB) * open
            pFilter = LowPassFilter(gain: min(1, g), gainHF: RoomMath.amplitude(dB: -highDB))
            pLoud = g * attenuation(pPosition)
            r.diffractionDB = -lossDB
            r.opennessDB = RoomMath.dB(open)
            r.pathNode = Int32(n)
            r.hops = Int32(m)
            r.lastPortal = Int32(chain[m - 1])
            lastHops = m
        }
        // Through the walls: the straight line leaves the emitter's room and enters the
        // listener's, so it loses at least the stronger of their walls; only when the portals
        // might not beat that are the walls on the line measured.
        let bound = max(er < lookup.outside ? lookup.walls[er].loss : 0, lr < lookup.outside ? lookup.walls[lr].loss : 0)
        let atE = attenuation(e)
        var walls = (loss: bound, hf: Float(1))
        var tGain = RoomMath.amplitude(dB: -bound)
        r.transmissionExact = !(n >= 0 && pLoud >= tGain * atE)
        if r.transmissionExact {
            walls = lookup.transmission(from: e, to: l)
            tGain = RoomMath.amplitude(dB: -walls.loss)
        }
        r.transmissionDB = -walls.loss
        if n >= 0, pLoud >= tGain * atE {
            r.kind = .portals
            r.position = pPosition
            r.length = pLength
            r.filter = pFilter
        } else {
            r.kind = .walls
            r.position = e
            r.length = direct
            r.filter = LowPassFilter(gain: tGain, gainHF: walls.hf)
        }
        return r
    }

    /// The openings the last portal path went through (after ``propagate(_:room:listener:room:attenuation:)``
    /// found one), emitter side first. Allocates: for tools, not for the frame.
    var tracedPoints: [Vector3] { Array(points[0..<lastHops]) }

    /// The walls' loss on the straight line, dB (≤ 0).
    func walls(from e: Vector3, to l: Vector3) -> Float { -lookup.transmission(from: e, to: l).loss }

    /// The portal ids of the path that ends with crossing `node` (emitter side first).
    func portalIDs(_ node: Int32) -> [String] {
        var out: [String] = []
        var n = Int(node)
        while n >= 0, out.count <= AcousticGeometry.maxPathHops {
            out.append(geometry.portals[graph.portal(n)].id)
            n = Int(graph.prev[n])
        }
        return out
    }
}

/// What one emitter is heard as (``Propagator/propagate(_:room:listener:room:attenuation:)``).
struct PropagationResult {
    enum Kind: UInt8 { case direct, portals, walls }
    var kind = Kind.direct
    /// Where it is heard from (its own position unless it comes through portals).
    var position = Vector3.zero
    /// The length of the path heard, metres.
    var length: Float = 0
    /// The filter of the path heard (diffraction × openness, or the walls').
    var filter = LowPassFilter.open
    var emitterRoom: Int32 = -1
    var listenerRoom: Int32 = -1
    /// The portal path's crossing nearest the emitter (−1: none), and its number of portals.
    var pathNode: Int32 = -1
    var hops: Int32 = 0
    /// The portal path's portal nearest the listener (−1: none): where the voice's room's
    /// reverb is heard from.
    var lastPortal: Int32 = -1
    /// The portal path's diffraction and openness, and the walls' loss, dB (≤ 0).
    var diffractionDB: Float = 0
    var opennessDB: Float = 0
    var transmissionDB: Float = 0
    /// Whether ``transmissionDB`` was measured on the line (false: the portals won by more than
    /// the walls' least loss, and it holds that bound; ``Propagator/walls(from:to:)`` measures it).
    var transmissionExact = true
}
