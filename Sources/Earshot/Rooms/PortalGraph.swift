/// The portals of a geometry as a graph, and the shortest paths from the listener through it.
///
/// Nodes are portal crossings: node `2k` goes through portal `k` into its room B, `2k + 1` into
/// its room A (room indices of ``RoomLookup``; the outside is the last). ``search(from:room:)``
/// runs Dijkstra from the listener over portal centres, at most
/// ``AcousticGeometry/maxPathHops`` crossings; a closed portal (openness 0) is no edge, and a
/// portal open to `o` counts ``opennessPenalty``·(1/o − 1) metres longer, so a wide-open door a
/// little farther wins over a nearly shut one. ``path(from:room:)`` then finds an emitter's best
/// last crossing, and ``trace(_:from:to:)`` the points where the path goes through each opening.
/// Every array is sized at init: a search and a trace allocate nothing.
final class PortalGraph {
    struct Opening {
        var center: Vector3
        /// Unit axes: across (width), up (height), normal.
        var u: Vector3
        var v: Vector3
        var n: Vector3
        var halfWidth: Float
        var halfHeight: Float
        var roomA: Int
        var roomB: Int
    }

    static let opennessPenalty: Float = 5

    let openings: [Opening]
    // `@exclusivity(unchecked)`: touched only under the AL lock (RoomStage says why).
    /// Openness now, and where it ramps to at what rate (per second; 0: not ramping).
    @exclusivity(unchecked) private(set) var openness: [Float]
    @exclusivity(unchecked) private var targets: [Float]
    @exclusivity(unchecked) private var rates: [Float]
    @exclusivity(unchecked) private(set) var ramping = 0
    /// Portals of each room (CSR: `start[r]..<start[r+1]` into `list`).
    private let start: [Int]
    private let list: [Int]
    @exclusivity(unchecked) private(set) var dist: [Float]
    @exclusivity(unchecked) private var hops: [UInt8]
    @exclusivity(unchecked) private(set) var prev: [Int32]
    @exclusivity(unchecked) private var heap: [(d: Float, n: Int32)]
    /// The room the last search started from (−1: none yet).
    @exclusivity(unchecked) private(set) var sourceRoom = -1

    init(portals: [Portal], roomIndex: [String: Int], outside: Int) {
        openings = portals.map { p in
            let n = p.normal.normalized
            var u = Vector3(0, 1, 0).cross(n)
            if u.length < 1e-3 { u = Vector3(1, 0, 0) }
            u = u.normalized
            let v = n.cross(u).normalized
            return Opening(center: p.center, u: u, v: v, n: n, halfWidth: p.width / 2, halfHeight: p.height / 2,
                           roomA: roomIndex[p.roomA] ?? outside, roomB: p.roomB.flatMap { roomIndex[$0] } ?? outside)
        }
        openness = portals.map(\.openness)
        targets = openness
        rates = [Float](repeating: 0, count: portals.count)
        var degree = [Int](repeating: 0, count: outside + 1)
        for o in openings { degree[o.roomA] += 1; degree[o.roomB] += 1 }
        var s = [0]
        for d in degree { s.append(s.last! + d) }   // trap: never empty (starts with 0)
        start = s
        var fill = Array(s.dropLast())
        var l = [Int](repeating: 0, count: s.last ?? 0)
        for (k, o) in openings.enumerated() {
            l[fill[o.roomA]] = k; fill[o.roomA] += 1
            l[fill[o.roomB]] = k; fill[o.roomB] += 1
        }
        list = l
        let nodes = 2 * portals.count
        dist = [Float](repeating: .infinity, count: nodes)
        hops = [UInt8](repeating: 0, count: nodes)
        prev = [Int32](repeating: -1, count: nodes)
        heap = []
        heap.reserveCapacity(degree.reduce(nodes) { $0 + $1 * $1 })
    }

    @inline(__always) func portal(_ node: Int) -> Int { node >> 1 }
    /// The room a crossing arrives in.
    @inline(__always) func roomInto(_ node: Int) -> Int {
        node & 1 == 0 ? openings[node >> 1].roomB : openings[node >> 1].roomA
    }
    /// The node leaving room `r` through portal `k`.
    @inline(__always) func leaving(_ r: Int, through k: Int) -> Int { openings[k].roomA == r ? 2 * k : 2 * k + 1 }

    /// Sets portal `k`'s openness target, reached after `ramp` seconds of playback (0: at once).
    func setOpenness(_ k: Int, _ value: Float, ramp: Double) {
        let was = rates[k] != 0
        targets[k] = value
        if ramp <= 0 || openness[k] == value {
            openness[k] = value
            rates[k] = 0
        } else {
            rates[k] = abs(value - openness[k]) / Float(ramp)
        }
        ramping += (rates[k] != 0 ? 1 : 0) - (was ? 1 : 0)
    }

    /// The rate portal `k`'s openness ramps at, per second (nil: not ramping).
    func rate(_ k: Int) -> Float? { rates[k] == 0 ? nil : rates[k] }

    /// The openness target of portal `k` (where a ramp ends).
    func target(_ k: Int) -> Float { targets[k] }

    /// Moves the ramps on by `elapsed` seconds of playback; true when some openness changed.
    func stepRamps(_ elapsed: Double) -> Bool {
        guard ramping > 0, elapsed > 0 else { return false }
        for k in rates.indices where rates[k] != 0 {
            let step = rates[k] * Float(elapsed), o = openness[k], t = targets[k]
            openness[k] = abs(t - o) <= step ? t : o + (t > o ? step : -step)
            if openness[k] == t { rates[k] = 0; ramping -= 1 }
        }
        return true
    }

    /// Dijkstra from `l` in room `room` over portal centres.
    func search(from l: Vector3, room: Int) {
        sourceRoom = room
        for i in dist.indices { dist[i] = .infinity; prev[i] = -1; hops[i] = 0 }
        heap.removeAll(keepingCapacity: true)
        for i in start[room]..<start[room + 1] {
            let k = list[i]
            guard openness[k] > 0 else { continue }
            relax(leaving(room, through: k), (openings[k].center - l).length + penalty(k), from: -1, hops: 1)
        }
        while let (d, n32) = popMin() {
            let n = Int(n32)
            guard d == dist[n], Int(hops[n]) < AcousticGeometry.maxPathHops else { continue }
            let r = roomInto(n), k = portal(n), c = openings[k].center
            for i in start[r]..<start[r + 1] {
                let q = list[i]
                guard q != k, openness[q] > 0 else { continue }
                relax(leaving(r, through: q), d + (openings[q].center - c).length + penalty(q), from: n32, hops: hops[n] + 1)
            }
        }
    }

    @inline(__always)
    private func penalty(_ k: Int) -> Float { Self.opennessPenalty * (1 / openness[k] - 1) }

    @inline(__always)
    private func relax(_ m: Int, _ d: Float, from n: Int32, hops h: UInt8) {
        guard d < dist[m] else { return }
        dist[m] = d
        prev[m] = n
        hops[m] = h
        guard heap.count < heap.capacity else { return }   // cannot happen: capacity counts every edge
        heap.append((d, Int32(m)))
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard heap[p].d > heap[i].d else { break }
            heap.swapAt(p, i)
            i = p
        }
    }

    private func popMin() -> (Float, Int32)? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            while true {
                let a = 2 * i + 1, b = a + 1
                var m = i
                if a < heap.count, heap[a].d < heap[m].d { m = a }
                if b < heap.count, heap[b].d < heap[m].d { m = b }
                if m == i { break }
                heap.swapAt(m, i)
                i = m
            }
        }
        return (top.d, top.n)
    }

    /// The best crossing into room `room` for a sound at `e` (the first portal it goes through
    /// on its way to the listener), −1 when no open path reaches it.
    func path(from e: Vector3, room: Int) -> Int {
        var best = -1
        var bestCost = Float.infinity
        for i in start[room]..<start[room + 1] {
            let k = list[i]
            let n = openings[k].roomA == room ? 2 * k + 1 : 2 * k   // arriving in `room`
            guard dist[n].isFinite else { continue }
            let c = dist[n] + (e - openings[k].center).length
            if c < bestCost { bestCost = c; best = n }
        }
        return best
    }

    /// Where a straight line from `a` towards `b` goes through portal `k`'s opening: its
    /// crossing of the portal's plane, moved into the rectangle (to the edge it bends round).
    @inline(__always)
    func aperture(_ k: Int, from a: Vector3, towards b: Vector3) -> Vector3 {
        let o = openings[k]
        let d0 = (a - o.center).dot(o.n), d1 = (b - o.center).dot(o.n)
        var x = o.center
        if abs(d0 - d1) > 1e-6 {
            let t = min(max(d0 / (d0 - d1), 0), 1)
            x = a + (b - a) * t
        }
        let r = x - o.center
        let s = min(max(r.dot(o.u), -o.halfWidth), o.halfWidth), h = min(max(r.dot(o.v), -o.halfHeight), o.halfHeight)
        return o.center + o.u * s + o.v * h
    }
}
