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
        /// The epoch its sends were routed under (0: routed to nothing).
        var routed: UInt32 = 0
        /// What is applied now, and where it glides to.
        var current = EnvironmentProperties.open
        var target = EnvironmentProperties.open
        var gliding = false
    }

    /// The zone slots, send by send (empty: no zones).
    private(set) var slots: [ALuint] = []
    /// Bumped whenever `slots` changes; a source routed under another epoch is routed again.
    private var epoch: UInt32 = 1
    private var states: [SourceState] = []
    private var gliding: [ALuint] = []
    /// The curve from occlusion/obstruction to filter gains (``AudioEngine/occlusionCurve``).
    var curve = OcclusionCurve()
    /// The scratch low-pass filter (0 until first needed; never made without EFX).
    private var scratch: ALuint = 0
    /// Whether the context has EFX (read again after a device rebuild).
    var efxAvailable: Bool

    init(efxAvailable: Bool) {
        self.efxAvailable = efxAvailable
    }

    /// Whether some source is still gliding toward its target.
    var isGliding: Bool { !gliding.isEmpty }

    /// Applies `environment` to `source` for a voice that is `positioned` or not: at once when
    /// the voice is `starting` on the source, as a glide otherwise.
    @inline(__always)
    func apply(source: ALuint, positioned: Bool, environment: EnvironmentProperties, starting: Bool) {
        let i = Int(source)
        if i >= states.count { states += [SourceState](repeating: SourceState(), count: i + 1 - states.count) }
        let want: UInt32 = positioned && !slots.isEmpty ? epoch : 0
        let env = positioned ? environment : .open
        if states[i].routed == want, states[i].target == env, !starting || states[i].current == env { return }
        applySlow(source, routed: want, environment: env, starting: starting)
    }

    private func applySlow(_ source: ALuint, routed: UInt32, environment: EnvironmentProperties, starting: Bool) {
        let i = Int(source)
        let reroute = states[i].routed != routed
        states[i].routed = routed
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

    /// Moves every gliding source toward its target by `elapsed` seconds of playback.
    func step(elapsed: Double) {
        guard !gliding.isEmpty else { return }
        let f = Float(min(1, max(0, elapsed) / EnvironmentProperties.glideTime))
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

    /// Sends a source's current filters and routing to OpenAL.
    private func push(_ source: ALuint) {
        guard efxAvailable else { return }
        let s = states[Int(source)]
        let filters = curve.filters(occlusion: s.current.occlusion, obstruction: s.current.obstruction)
        do throws(EarshotError) {
            try EFX.setDirectFilter(source, try filter(filters.direct))
            var send = filters.send
            send.gain *= s.current.sendGain
            let sendFilter = try filter(send)
            for k in slots.indices {
                try EFX.route(source, send: k, to: s.routed == 0 ? 0 : slots[k], filter: s.routed == 0 ? 0 : sendFilter)
            }
        } catch {
            // Only AL_OUT_OF_MEMORY from making the scratch filter gets here: the source plays
            // unfiltered, and the next change tries again.
        }
    }

    /// The scratch filter set to `f`, or 0 (no filter) when `f` changes nothing.
    private func filter(_ f: OcclusionCurve.Filter) throws(EarshotError) -> ALuint {
        if f.isOpen { return 0 }
        if scratch == 0 { scratch = try EFX.makeLowPass() }
        try EFX.setLowPass(scratch, gain: f.gain, gainHF: f.gainHF)
        return scratch
    }

    /// New slots (first zones, or slots rebuilt after a device loss); `playing` lists the sources
    /// of voices playing now with their placement and environment, routed at once.
    func setSlots(_ slots: [ALuint], playing: [(source: ALuint, positioned: Bool, environment: EnvironmentProperties)]) {
        self.slots = slots
        epoch &+= 1
        if epoch == 0 { epoch = 1 }
        for p in playing { apply(source: p.source, positioned: p.positioned, environment: p.environment, starting: true) }
    }

    /// The context was replaced: its sources and the scratch filter are gone with it.
    func forgetSources() {
        states.removeAll(keepingCapacity: true)
        gliding.removeAll(keepingCapacity: true)
        scratch = 0
    }

    /// Deletes the scratch filter (at shutdown, after the sources).
    func teardown() {
        if scratch != 0 { EFX.deleteFilter(scratch) }
        scratch = 0
    }
}
