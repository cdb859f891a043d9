/// The engine's buses, their tree and the holds over them: the one owner of bus state. The game's
/// settings (gain, mute, pause, parent), the session's duck, the mix's snapshot and sidechain
/// factors and the VCAs' factor each have their own setter, so no caller can write another's
/// factor; everyone else reads ``states``, ``parents`` and the tree's products (``treeGain(at:)``,
/// ``isHeld(at:)``).
///
/// **The tree.** Every bus has a parent: another bus (a group) or the master (`-1`). A bus's
/// voices and tracks are heard at the product of its own effective gain and VCA factor and those
/// of every group above it, and are held when it or any group above it is paused. OpenAL 1.19.1
/// has no bus graph: the products are worked out here, on a bus change, and pushed to each bus's
/// voices as one gain, so a play and a voice's update cost what they did with flat buses.
/// Touched only under the AL lock (it belongs to the engine core, which pushes each change to
/// the voices: `EngineCore+Buses.swift`).
///
/// ```swift
/// let table = BusTable()
/// let music = table.index(of: .music)!
/// table.setDuck(0.5, at: music)
/// assert(table.states[music].effectiveGain == 0.5)
/// ```
final class BusTable {
    /// Bus states by index; 0…4 are ``Bus/builtIn``. `@exclusivity(unchecked)`: every play reads
    /// it (a bus index lookup), always under the AL lock.
    @exclusivity(unchecked) private(set) var states: [BusState] = Bus.builtIn.map { BusState(bus: $0) }
    /// The buses in index order (`states[i].bus`): a bus's index is its position here. Read by
    /// every play (PlayResolver), which looks its bus up without a call into the table.
    @exclusivity(unchecked) private(set) var buses: [Bus] = Bus.builtIn
    /// Each bus's parent by index: another bus's index, or -1 for the master (every built-in bus).
    private(set) var parents: [Int] = Bus.builtIn.map { _ in -1 }
    /// Each bus's VCA factor (the product of the VCAs it is a member of; 1 = none), written by the
    /// VCA table through the core.
    private(set) var vcaFactors: [Float] = Bus.builtIn.map { _ in 1 }
    /// Whether some bus has a bus parent (the tree is not flat): the products skip the walk
    /// while it is not.
    private(set) var hasGroups = false
    /// An audio-session interruption holds every bus, buses added meanwhile included; kept apart
    /// from each bus's own `paused` (the game's), which outlasts it.
    private(set) var interruptionHold = false
    /// `pauseAll(except:)` is on: every bus but these is held, buses added meanwhile included;
    /// kept apart from each bus's own `paused`, which outlasts `resumeAll()`.
    private(set) var pauseAllExcept: Set<Bus>?

    var count: Int { states.count }

    func index(of bus: Bus) -> Int? { buses.firstIndex(of: bus) }

    /// What every call that names a bus the engine does not have throws.
    static func noBus(_ bus: Bus) -> EarshotError {
        .invalidArgument("no bus named \"\(bus.name)\" (add it with addBus first)")
    }

    /// Adds `bus` at the end under `parent` (an index, -1: the master); false when it exists.
    func add(_ bus: Bus, parent: Int = -1) -> Bool {
        guard index(of: bus) == nil else { return false }
        precondition(parent < states.count, "parent index out of range")   // trap: callers resolve it
        states.append(BusState(bus: bus))
        buses.append(bus)
        parents.append(parent)
        vcaFactors.append(1)
        if parent >= 0 { hasGroups = true }
        return true
    }

    // MARK: Settings, each written by its one owner

    /// The game's gain (``AudioEngine/setGain(_:for:)``).
    func setGain(_ gain: Float, at i: Int) { states[i].gain = gain }
    /// The game's mute (``AudioEngine/setMuted(_:for:)``).
    func setMuted(_ muted: Bool, at i: Int) { states[i].muted = muted }
    /// The game's pause (``AudioEngine/setPaused(_:for:)``).
    func setPaused(_ paused: Bool, at i: Int) { states[i].paused = paused }
    /// The audio session's duck factor (the secondary-audio hint on the music bus).
    func setDuck(_ duck: Float, at i: Int) { states[i].duck = duck }

    /// The mix's snapshot and sidechain factors by bus index; returns whether one changed.
    func setMixFactors(snapshot: [Float], sidechain: [Float]) -> Bool {
        var changed = false
        for i in states.indices where i < snapshot.count && i < sidechain.count {
            guard states[i].snapshot != snapshot[i] || states[i].sidechain != sidechain[i] else { continue }
            states[i].snapshot = snapshot[i]
            states[i].sidechain = sidechain[i]
            changed = true
        }
        return changed
    }

    func setInterruptionHold(_ hold: Bool) { interruptionHold = hold }

    /// The VCAs' factor per bus index (see ``VCATable``); returns whether one changed.
    func setVCAFactors(_ factors: [Float]) -> Bool {
        var changed = false
        for i in vcaFactors.indices {
            let f = i < factors.count ? factors[i] : 1
            if vcaFactors[i] != f {
                vcaFactors[i] = f
                changed = true
            }
        }
        return changed
    }

    // MARK: The tree

    /// Makes bus `i` a child of `parent` (an index; -1: the master). Throws when that would make a
    /// cycle (the parent is `i` or below it) or a path deeper than ``Bus/maxTreeDepth``.
    func setParent(_ parent: Int, at i: Int) throws(EarshotError) {
        if parent >= 0 {
            guard !isInSubtree(parent, of: i) else {
                throw .invalidArgument(
                    "bus \"\(buses[parent].name)\" is \(parent == i ? "the bus itself" : "under \"\(buses[i].name)\"")"
                        + ": a bus cannot be its own group (the tree would have a cycle)")
            }
            let depth = depth(of: parent) + 1 + height(of: i)
            guard depth <= Bus.maxTreeDepth else {
                throw .invalidArgument(
                    "bus \"\(buses[i].name)\" under \"\(buses[parent].name)\" makes a path of \(depth) buses;"
                        + " at most \(Bus.maxTreeDepth)")
            }
        }
        parents[i] = parent
        hasGroups = parents.contains { $0 >= 0 }
    }

    /// Whether `j` is `i` or a bus below it.
    func isInSubtree(_ j: Int, of i: Int) -> Bool { Self.isUnder(j, i, parents: parents) }

    /// Whether bus `b` is `group` or below it in the tree `parents` (parent indices, -1: the
    /// master; an index past the end is a child of the master): the one walk the mix's detector
    /// and the send router's copies of the tree use too.
    static func isUnder(_ b: Int, _ group: Int, parents: [Int]) -> Bool {
        var k = b
        while k >= 0 {
            if k == group { return true }
            k = k < parents.count ? parents[k] : -1
        }
        return false
    }

    /// A mask by index of `i` and every bus below it.
    func subtree(of i: Int) -> [Bool] { buses.indices.map { isInSubtree($0, of: i) } }

    /// How many buses the path from the master to `i` holds (1 for a child of the master).
    func depth(of i: Int) -> Int {
        var n = 0, k = i
        while k >= 0 { n += 1; k = parents[k] }
        return n
    }

    /// How many buses the longest path down from `i` holds (1 for a bus with no children).
    private func height(of i: Int) -> Int {
        var h = 1
        for j in parents.indices where j != i && isInSubtree(j, of: i) { h = max(h, depth(of: j) - depth(of: i) + 1) }
        return h
    }

    /// The gain every voice on bus `i` is multiplied by (without master): its own effective gain
    /// (gain × snapshot × min(duck, sidechain), 0 muted) times its VCA factor, times the same of
    /// every group above it.
    func treeGain(at i: Int) -> Float {
        var g = states[i].effectiveGain * vcaFactors[i]
        guard hasGroups else { return g }
        var k = parents[i]
        while k >= 0 {
            g *= states[k].effectiveGain * vcaFactors[k]
            k = parents[k]
        }
        return g
    }

    func setPauseAll(except: Set<Bus>?) { pauseAllExcept = except }

    // MARK: Holds

    /// Whether bus `i`'s voices are held: the game paused it or a group above it,
    /// `pauseAll(except:)` spares neither it nor a group above it, or an interruption holds every bus.
    func isHeld(at i: Int) -> Bool { interruptionHold || isHeldByGame(at: i) }

    /// Whether `bus` is held by the game: its own pause or a group's, or `pauseAll(except:)` (not
    /// an interruption).
    func isHeldByGame(_ bus: Bus) -> Bool {
        guard let i = index(of: bus) else { return false }
        return isHeldByGame(at: i)
    }

    private func isHeldByGame(at i: Int) -> Bool {
        var spared = pauseAllExcept == nil
        var k = i
        while k >= 0 {
            if states[k].paused { return true }
            if !spared, pauseAllExcept?.contains(states[k].bus) == true { spared = true }
            k = parents[k]
        }
        return !spared
    }
}
