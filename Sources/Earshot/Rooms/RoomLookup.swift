/// Which room a point is in, and what the walls along a straight line take away: the compiled
/// boxes of a geometry's rooms. Room `count` is the outside. Allocates nothing after its init.
final class RoomLookup {
    let boxes: [RoomBox]
    let priorities: [Int]
    let walls: [Walls]
    var outside: Int { boxes.count }
    /// Crossings of the line being measured (t·length, loss dB, hf): sized at init.
    @exclusivity(unchecked) private var scratch: [(at: Float, loss: Float, hf: Float)]

    /// Per room, the rooms whose bounds meet its bounds (itself included, in index order):
    /// ``neighbourList``[``neighbourStart``[r] ..< ``neighbourStart``[r + 1]].
    private let neighbourStart: [Int]
    private let neighbourList: [Int32]

    init(rooms: [Room]) {
        boxes = rooms.map(RoomBox.init)
        priorities = rooms.map(\.priority)
        walls = rooms.map(\.walls)
        var start = [0], list: [Int32] = []
        for a in boxes {
            for (r, b) in boxes.enumerated()
            where a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z && b.lo.z <= a.hi.z {
                list.append(Int32(r))
            }
            start.append(list.count)
        }
        neighbourStart = start
        neighbourList = list
        scratch = []
        scratch.reserveCapacity(2 * rooms.count + 2)
    }

    /// The innermost room holding `p`: the highest priority, then the smallest volume, then the
    /// first listed; ``outside`` when none does.
    func room(at p: Vector3) -> Int {
        var best = outside
        for r in boxes.indices where boxes[r].contains(p) {
            if best == outside || priorities[r] > priorities[best]
                || (priorities[r] == priorities[best] && boxes[r].volume < boxes[best].volume) {
                best = r
            }
        }
        return best
    }

    /// ``room(at:)`` for a point that was in room `hint` a moment ago (a moving voice): when
    /// `hint` still holds it, only the rooms whose bounds meet `hint`'s can hold it too, so only
    /// they are looked at — in index order, with the same rule, so the answer is the same.
    func room(at p: Vector3, near hint: Int) -> Int {
        guard hint >= 0, hint < boxes.count, boxes[hint].contains(p) else { return room(at: p) }
        var best = outside
        for k in neighbourStart[hint]..<neighbourStart[hint + 1] {
            let r = Int(neighbourList[k])
            guard boxes[r].contains(p) else { continue }
            if best == outside || priorities[r] > priorities[best]
                || (priorities[r] == priorities[best] && boxes[r].volume < boxes[best].volume) {
                best = r
            }
        }
        return best
    }

    /// The walls between `a` and `b` on the straight line: each surface it crosses takes its
    /// room's loss and high ratio; two surfaces within 5 cm (a wall two rooms share) count once,
    /// as the stronger. Returns the total loss (dB, ≥ 0) and high ratio (0…1).
    func transmission(from a: Vector3, to b: Vector3) -> (loss: Float, hf: Float) {
        let length = (b - a).length
        guard length > 0 else { return (0, 1) }
        let lo = Vector3(min(a.x, b.x), min(a.y, b.y), min(a.z, b.z)), hi = Vector3(max(a.x, b.x), max(a.y, b.y), max(a.z, b.z))
        scratch.removeAll(keepingCapacity: true)
        for r in boxes.indices where walls[r].loss > 0 || walls[r].hf < 1 {
            let box = boxes[r]
            guard box.lo.x <= hi.x, box.hi.x >= lo.x, box.lo.y <= hi.y, box.hi.y >= lo.y, box.lo.z <= hi.z, box.hi.z >= lo.z
            else { continue }
            let (t0, t1) = box.crossings(a, b)
            if let t0 { insert((t0 * length, walls[r].loss, walls[r].hf)) }
            if let t1 { insert((t1 * length, walls[r].loss, walls[r].hf)) }
        }
        var loss: Float = 0, hf: Float = 1
        var i = 0
        while i < scratch.count {
            var g = scratch[i]
            var j = i + 1
            while j < scratch.count, scratch[j].at - scratch[i].at < 0.05 {
                if scratch[j].loss > g.loss || (scratch[j].loss == g.loss && scratch[j].hf < g.hf) { g = scratch[j] }
                j += 1
            }
            loss += g.loss
            hf *= g.hf
            i = j
        }
        return (loss, hf)
    }

    /// Insertion into the sorted scratch (a line crosses few surfaces).
    @inline(__always)
    private func insert(_ c: (at: Float, loss: Float, hf: Float)) {
        var k = scratch.count
        scratch.append(c)
        while k > 0, scratch[k - 1].at > c.at {
            scratch[k] = scratch[k - 1]
            k -= 1
        }
        scratch[k] = c
    }
}
