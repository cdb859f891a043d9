import COpenAL

/// The environment of each of the voice pool's sources: which reverb slots its sends go to, and
/// the low-pass filters that occlusion and obstruction put on its direct path and its sends.
///
/// A positioned voice's send *i* goes to zone slot *i*; a panned voice (UI, music-like
/// one-shots) sends nothing and is never filtered. A voice that starts on a source gets its
/// environment at once; a change while it plays glides there over
/// ``EnvironmentProperties/glideTime`` in steps made by ``step(elapsed:)`` each frame. Keeps per
/// source what it sent, so a source that already has the right state costs one comparison.
///
/// OpenAL copies a filter's values into the source when it is attached, so one scratch filter
/// object serves every source. Touched only under the AL lock (like the pool that calls it).
final class SendRouter {
    private struct SourceState {
        /// The epoch its sends were routed under (0: never).
        var routed: UInt32 = 0
        var positioned = false
        var bus: Int32 = -1
        /// What is applied now, and where it glides to.
        var current = EnvironmentProperties.open
        var target = EnvironmentProperties.open
        var gliding = false
    }

    /// The zone slots, send by send (empty: no zones).
    private(set) var slots: [ALuint] = []
    /// Sends given to the zones; the send after them goes to the voice's bus effect.
    private(set) var zoneSendCount = 0
    /// Whether a send exists for bus effects.
    private(set) var hasBusSend = false
    /// Per bus index: the slot of its effect (0: none).
    private var busSlots: [ALuint] = []
    /// Per bus index: the filter on every voice of the bus, applied and gliding-to. The target
    /// is the bus's own filter (``setBusFilter(_:bus:)``) as the active snapshots make it
    /// (``setBusMix(_:bus:)``).
    private var busCurrent: [LowPassFilter] = []
    private var busTarget: [LowPassFilter] = []
    private var busOwn: [LowPassFilter] = []
    private var busMix: [Mixer.FilterLayer] = []
    /// Per bus index: its parent's index in the bus tree (-1: the master), as the core pushes it.
    /// OpenAL 1.19.1 has no bus graph: a group's filter is multiplied into each child's target
    /// (gain by gain, gainHF by gainHF), and a voice sends to the effect of its own bus or else
    /// of the nearest group above it that has one.
    private var busParents: [Int] = []
    private var glidingBuses: Set<Int> = []
    // The per-source tables are `@exclusivity(unchecked)`, as the voice pool's (which says why):
    // a router is touched only under the AL lock, and each moving voice's push read them.
    /// Bumped whenever `slots` changes; a source routed under another epoch is routed again.
    private var epoch: UInt32 = 1
    @exclusivity(unchecked) private var states: [SourceState] = []
    private var gliding: [ALuint] = []
    /// The curve from occlusion/obstruction to filter gains (``AudioEngine/occlusionCurve``).
    private(set) var curve = OcclusionCurve()
    /// The scratch low-pass filter (0 until first needed; never made without EFX), and the
    /// gains it holds (nil: unknown).
    @exclusivity(unchecked) private var scratch: ALuint = 0
    @exclusivity(unchecked) private var scratchValues: LowPassFilter?
    /// Whether the context has EFX (read again after a device rebuild).
    private(set) var efxAvailable: Bool
    /// Per source: the low-pass and send factors of parameter curves (``ParameterFilterStage``),
    /// back to none whenever a voice starts on the source. Read on every start (`apply`) and
    /// touched only under the AL lock: unchecked, as the pool's columns (the exclusivity check
    /// costs each `play` about 76 instructions).
    @exclusivity(unchecked) private var curveFilters: [CurveFilter] = []
    /// Per source: the rooms' propagation filter (diffraction, openness, transmission; Rooms/),
    /// on the direct path and the sends. Empty until the first geometry is set.
    @exclusivity(unchecked) private var propagationFilters: [LowPassFilter] = []
    /// Per source: the slot of its own room's reverb when it is not the listener's room (0:
    /// none), which takes its last zone send (Rooms/). Empty until a voice first needs one.
    @exclusivity(unchecked) private var roomSends: [ALuint] = []

    init(efxAvailable: Bool) {
        self.efxAvailable = efxAvailable
    }

    /// Splits the granted sends: the zones' first, then one for bus effects when there is room
    /// (at start and after a device rebuild, with what the new context offers).
    func configure(efx: EFXSupport, zoneSends: Int) {
        efxAvailable = efx.isAvailable
        let granted = efx.isAvailable ? efx.maxAuxiliarySends : 0
        zoneSendCount = min(zoneSends, granted)
        hasBusSend = granted > zoneSendCount
    }

    func setCurve(_ curve: OcclusionCurve) { self.curve = curve }

    /// Applies `environment` to `source` for a voice on bus `bus` that is `positioned` or not:
    /// at once when the voice is `starting` on the source, as a glide otherwise.
    @inline(__always)
    func apply(source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties, starting: Bool) {
        let i = Int(source)
        if i >= states.count { states += [SourceState](repeating: SourceState(), count: i + 1 - states.count) }
        let env = positioned ? environment : .open
        if starting, i < curveFilters.count, curveFilters[i] != CurveFilter() {
            curveFilters[i] = CurveFilter()   // a new voice on the source: no curve filter of the last one
            if i < roomSends.count { roomSends[i] = 0 }
            applySlow(source, positioned: positioned, bus: bus, environment: env, starting: starting)
            return
        }
        if starting, i < roomSends.count, roomSends[i] != 0 {
            roomSends[i] = 0   // nor the last one's room reverb
            applySlow(source, positioned: positioned, bus: bus, environment: env, starting: starting)
            return
        }
        if states[i].routed == epoch, states[i].positioned == positioned,
            states[i].bus == Int32(truncatingIfNeeded: bus),
            states[i].target == env, !starting || states[i].current == env
        {
            return
        }
        applySlow(source, positioned: positioned, bus: bus, environment: env, starting: starting)
    }

    private func applySlow(
        _ source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties, starting: Bool
    ) {
        let i = Int(source)
        let reroute = states[i].routed != epoch || states[i].positioned != positioned || states[i].bus != Int32(bus)
        states[i].routed = epoch
        states[i].positioned = positioned
        states[i].bus = Int32(truncatingIfNeeded: bus)
        states[i].target = environment
        if starting || states[i].current.airAbsorption != environment.airAbsorption {
            if efxAvailable { try? EFX.setAirAbsorption(source, environment.airAbsorption) }
        }
        if starting {
            states[i].current = environment
            push(source)
        } else {
            if reroute { push(source) }
            if !states[i].gliding, states[i].current != environment {
                states[i].gliding = true
                gliding.append(source)
            }
        }
    }

    /// Moves every gliding source and bus filter toward its target by `elapsed` seconds of playback.
    func step(elapsed: Double) {
        let f = Float(min(1, max(0, elapsed) / EnvironmentProperties.glideTime))
        if !glidingBuses.isEmpty { stepBuses(f) }
        guard !gliding.isEmpty else { return }
        var k = 0
        while k < gliding.count {
            let source = gliding[k], i = Int(source)
            var c = states[i].current
            let t = states[i].target
            c.occlusion = Self.approach(c.occlusion, t.occlusion, f)
            c.obstruction = Self.approach(c.obstruction, t.obstruction, f)
            c.sendGain = Self.approach(c.sendGain, t.sendGain, f)
            c.airAbsorption = t.airAbsorption
            states[i].current = c
            push(source)
            if c == t {
                states[i].gliding = false
                gliding.swapAt(k, gliding.count - 1)
                gliding.removeLast()
            } else {
                k += 1
            }
        }
    }

    /// `value` moved toward `target` by at most `step` (a linear glide over the full range).
    private static func approach(_ value: Float, _ target: Float, _ step: Float) -> Float {
        abs(target - value) <= step ? target : value + (target > value ? step : -step)
    }

    private func stepBuses(_ f: Float) {
        for b in glidingBuses {
            var c = busCurrent[b]
            let t = busTarget[b]
            c.gain = Self.approach(c.gain, t.gain, f)
            c.gainHF = Self.approach(c.gainHF, t.gainHF, f)
            busCurrent[b] = c
            if c == t { glidingBuses.remove(b) }
            for i in states.indices where states[i].bus == Int32(b) && states[i].routed != 0 { push(ALuint(i)) }
        }
    }

    /// The bus's own filter on every voice of bus `bus` (glides there); `.open` removes it.
    func setBusFilter(_ filter: LowPassFilter, bus: Int) {
        growBuses(bus)
        busOwn[bus] = filter
        retargetBus(bus)
    }

    /// The bus's own filter (as set by ``setBusFilter(_:bus:)``, without snapshots).
    func busFilter(_ bus: Int) -> LowPassFilter { bus < busOwn.count ? busOwn[bus] : .open }

    /// What the active snapshots make of bus `bus`'s own filter (`Mixer.FilterLayer.identity`:
    /// nothing); glides there. Costs a comparison when it did not change.
    func setBusMix(_ layer: Mixer.FilterLayer, bus: Int) {
        guard bus < busMix.count ? busMix[bus] != layer : layer != .identity else { return }
        growBuses(bus)
        busMix[bus] = layer
        retargetBus(bus)
    }

    private func retargetBus(_ bus: Int) {
        var target = busMix[bus].applied(to: busOwn[bus])
        let p = parent(of: bus)
        if p >= 0 { target = target * (p < busTarget.count ? busTarget[p] : .open) }
        busTarget[bus] = target
        if busCurrent[bus] != target { glidingBuses.insert(bus) }
        guard !busParents.isEmpty else { return }
        for child in busParents.indices where busParents[child] == bus && child < busTarget.count { retargetBus(child) }
    }

    private func parent(of bus: Int) -> Int { bus < busParents.count ? busParents[bus] : -1 }

    /// The bus tree (each bus's parent index, -1: the master): every bus's filter target is made
    /// again under its groups', and sources are routed again to their effect along the path.
    func setBusParents(_ parents: [Int]) {
        busParents = parents.contains { $0 >= 0 } ? parents : []
        if let last = parents.indices.last { growBuses(last) }
        for b in parents.indices where parent(of: b) < 0 { retargetBus(b) }
        for i in states.indices where states[i].routed != 0 { push(ALuint(i)) }
    }

    /// The effect slot a voice on `bus` sends to: its bus's, or else the nearest group's above it.
    private func effectSlot(_ bus: Int) -> ALuint {
        var b = bus
        while b >= 0, b < busSlots.count {
            if busSlots[b] != 0 { return busSlots[b] }
            b = parent(of: b)
        }
        return 0
    }

    /// The effect slot of bus `bus` (0: none); voices on it are routed again at once.
    func setBusSlot(
        _ slot: ALuint, bus: Int,
        playing: [(source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties)]
    ) {
        growBuses(bus)
        busSlots[bus] = slot
        bumpEpoch(playing: playing)
    }

    /// Routes every source ever used on bus `bus` again (after its slot changed): stopped sources
    /// keep their sends in OpenAL, and a slot still referenced cannot be deleted.
    func rerouteBus(_ bus: Int) {
        for i in states.indices where states[i].routed != 0 && isUnder(Int(states[i].bus), bus) { push(ALuint(i)) }
    }

    private func isUnder(_ b: Int, _ group: Int) -> Bool { BusTable.isUnder(b, group, parents: busParents) }

    private func growBuses(_ bus: Int) {
        if bus >= busSlots.count {
            let n = bus + 1 - busSlots.count
            busSlots += [ALuint](repeating: 0, count: n)
            busCurrent += [LowPassFilter](repeating: .open, count: n)
            busTarget += [LowPassFilter](repeating: .open, count: n)
            busOwn += [LowPassFilter](repeating: .open, count: n)
            busMix += [Mixer.FilterLayer](repeating: .identity, count: n)
        }
    }

    /// Sends a source's current filters and routing to OpenAL.
    private func push(_ source: ALuint) {
        guard efxAvailable else { return }
        let s = states[Int(source)]
        let bus = Int(s.bus)
        let busFilter = bus >= 0 && bus < busCurrent.count ? busCurrent[bus] : .open
        var filters = curve.filters(occlusion: s.current.occlusion, obstruction: s.current.obstruction)
        if Int(source) < propagationFilters.count {
            let p = propagationFilters[Int(source)]
            filters.direct = filters.direct * p
            filters.send = filters.send * p
        }
        if Int(source) < curveFilters.count {
            let c = curveFilters[Int(source)]
            filters.direct.gainHF *= c.gainHF
            filters.send.gainHF *= c.gainHF
            filters.send.gain *= c.send
        }
        do throws(EarshotError) {
            EFX.setDirectFilterInBatch(source, try filter(filters.direct * busFilter))
            let roomSlot = s.positioned && Int(source) < roomSends.count ? roomSends[Int(source)] : 0
            if s.positioned, !slots.isEmpty || roomSlot != 0 {
                var send = filters.send * busFilter
                send.gain *= s.current.sendGain
                let sendFilter = try filter(send)
                // The last zone send goes to the voice's own room's reverb when it has one.
                let roomSend = roomSlot != 0 ? zoneSendCount - 1 : -1
                for k in slots.indices where k != roomSend { EFX.routeInBatch(source, send: k, to: slots[k], filter: sendFilter) }
                if roomSend >= 0 { EFX.routeInBatch(source, send: roomSend, to: roomSlot, filter: sendFilter) }
            } else {
                for k in 0..<(roomSends.isEmpty ? slots.count : zoneSendCount) {
                    EFX.routeInBatch(source, send: k, to: 0, filter: 0)
                }
            }
            if hasBusSend {
                let slot = bus >= 0 ? effectSlot(bus) : 0
                EFX.routeInBatch(source, send: zoneSendCount, to: slot, filter: slot == 0 ? 0 : try filter(busFilter))
            }
            try EFX.checkBatch("a source's filters and sends")
        } catch {
            // Only AL_OUT_OF_MEMORY (making the scratch filter, or a send) gets here: the source
            // plays unfiltered, and the next change tries again.
            scratchValues = nil
        }
    }

    /// A parameter curve's part of a source's filters (``ParameterFilterStage``): the direct
    /// path's and the sends' high-frequency gain, and the sends' level.
    struct CurveFilter: Equatable {
        var gainHF: Float = 1
        var send: Float = 1
    }

    /// The curve filter on `source` now.
    func curveFilter(_ source: ALuint) -> CurveFilter { Self.entry(curveFilters, source, or: CurveFilter()) }

    /// Puts a curve filter on `source` (pushed at once when the source is routed).
    func setCurveFilter(_ f: CurveFilter, source: ALuint) {
        if Self.store(f, source, in: &curveFilters, fill: CurveFilter()) { pushIfRouted(source) }
    }

    /// Puts the rooms' propagation filter on `source` (``LowPassFilter/open``: none); pushed at
    /// once when the source is routed, a comparison when it is unchanged.
    func setPropagationFilter(_ f: LowPassFilter, source: ALuint) {
        if Self.store(f, source, in: &propagationFilters, fill: .open) { pushIfRouted(source) }
    }

    /// Sends `source`'s last zone send to `slot`, its own room's reverb (0: back to the zones);
    /// pushed at once when the source is routed, a comparison when it is unchanged. Needs two
    /// zone sends or more (``EnvironmentStage/roomReverbChannels``).
    func setRoomSend(_ slot: ALuint, source: ALuint) {
        guard zoneSendCount >= 2 || Int(source) < roomSends.count else { return }
        if Self.store(slot, source, in: &roomSends, fill: 0) { pushIfRouted(source) }
    }

    /// The room reverb slot `source` sends to (0: none).
    func roomSend(_ source: ALuint) -> ALuint { Self.entry(roomSends, source, or: 0) }

    /// The propagation filter on `source` now.
    func propagationFilter(_ source: ALuint) -> LowPassFilter { Self.entry(propagationFilters, source, or: .open) }

    // The per-source tables (curve filters, propagation filters, room sends) are indexed by
    // source name and grow only when a source first carries a value other than `fill`: most
    // sources never do.

    /// `table`'s value for `source` (`fill` past its end).
    @inline(__always)
    private static func entry<T>(_ table: [T], _ source: ALuint, or fill: T) -> T {
        Int(source) < table.count ? table[Int(source)] : fill
    }

    /// Stores `value` for `source` in `table`; true when it changed (the caller pushes then).
    @inline(__always)
    private static func store<T: Equatable>(_ value: T, _ source: ALuint, in table: inout [T], fill: T) -> Bool {
        let i = Int(source)
        if i >= table.count {
            guard value != fill else { return false }
            table += [T](repeating: fill, count: i + 1 - table.count)
        }
        guard table[i] != value else { return false }
        table[i] = value
        return true
    }

    /// Pushes `source` now when it is routed (an unrouted source takes its values when routed).
    @inline(__always)
    private func pushIfRouted(_ source: ALuint) {
        if Int(source) < states.count, states[Int(source)].routed != 0 { push(source) }
    }

    /// The scratch filter set to `f`, or 0 (no filter) when `f` changes nothing. Set only when
    /// `f` differs from what it holds: a voice's sends mostly take its direct path's filter.
    private func filter(_ f: LowPassFilter) throws(EarshotError) -> ALuint {
        if f.isOpen { return 0 }
        if scratch == 0 {
            scratch = try EFX.makeLowPass()
            scratchValues = nil
        }
        if scratchValues != f {
            EFX.setLowPassInBatch(scratch, gain: f.gain, gainHF: f.gainHF)
            scratchValues = f
        }
        return scratch
    }

    /// New zone slots (first zones, or slots rebuilt after a device loss); `playing` lists the
    /// sources of voices playing now with their placement, bus and environment, routed at once.
    func setSlots(
        _ slots: [ALuint], playing: [(source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties)]
    ) {
        self.slots = slots
        bumpEpoch(playing: playing)
    }

    private func bumpEpoch(playing: [(source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties)])
    {
        epoch &+= 1
        if epoch == 0 { epoch = 1 }
        for p in playing {
            apply(source: p.source, positioned: p.positioned, bus: p.bus, environment: p.environment, starting: true)
        }
    }

    /// Forgets what was sent to `source` (a music source claimed again or deleted): its next
    /// ``apply(source:positioned:bus:environment:starting:)`` sends everything again.
    func forget(source: ALuint) {
        let i = Int(source)
        if i < states.count { states[i] = SourceState() }
        if i < curveFilters.count { curveFilters[i] = CurveFilter() }
        if i < propagationFilters.count { propagationFilters[i] = .open }
        if i < roomSends.count { roomSends[i] = 0 }
        gliding.removeAll { $0 == source }
    }

    /// The context was replaced: its sources, bus slots and the scratch filter are gone with it
    /// (bus filters stay; bus effects are made again by the engine).
    func forgetSources() {
        states.removeAll(keepingCapacity: true)
        curveFilters.removeAll(keepingCapacity: true)
        propagationFilters.removeAll(keepingCapacity: true)
        roomSends.removeAll(keepingCapacity: true)
        gliding.removeAll(keepingCapacity: true)
        for b in busSlots.indices { busSlots[b] = 0 }
        scratch = 0
        scratchValues = nil
    }

    /// Deletes the scratch filter (at shutdown, after the sources).
    func teardown() {
        if scratch != 0 { EFX.deleteFilter(scratch) }
        scratch = 0
        scratchValues = nil
    }
}
