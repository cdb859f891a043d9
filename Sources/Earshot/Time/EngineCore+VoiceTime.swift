// Voices on the audio clock: when a voice's first frame is heard (``Voice/startTime``), where it
// is now (``Voice/time``), and the clip markers it passes (``AudioEngine/markers``).
//
// The voice pool keeps time on the engine clock (frames rendered on loopback, the monotonic
// clock live). A frame the pool places at engine time `t` is mixed then and heard an output
// latency later; on the audio clock that is `audioTime() + (t − now) + latency`. On a loopback
// engine the latency is 0 and the two clocks step together, so the mapping is exact to the frame.
extension EngineCore {
    /// The audio time at which a frame the pool places at engine time `t` is heard. While the
    /// output is held (an interruption, a lost device) nothing is heard: the clock's standing value.
    func audioTime(ofEngine t: Double) -> Double {
        if audioClock.isHeld { return audioClock.lastTime }
        if isLoopback { return audioTime() + (t - now) }
        refreshLiveAnchor()
        return liveAnchor.audio + (t - liveAnchor.engine) + outputLatency
    }

    /// When a play starting after `delay` (engine clock) is heard, on the audio clock, when the
    /// reading kept since the last render cannot say (``startAudioTime(delay:mixTarget:)``): on a
    /// live device with an exact start (`mixTarget`, a mixing-clock reading) the audio time of that
    /// reading; on one that reports its clock, the delay after the frame it mixes next (one read
    /// of the clock); else the delay after the frame a play now is heard at.
    @inline(never)
    func readStartAudioTime(delay: Double, mixTarget: Double) -> Double {
        if mixTarget.isFinite, let t = audioClock.projectedTime(source: mixTarget) { return t }
        if !isLoopback, usesDeviceClock, !isDeviceLost, let mix = device.mixClock(),
           let t = audioClock.projectedTime(source: mix + delay) { return t }
        if isLoopback, !audioClock.isHeld { return audioTime() + delay }   // keeps the reading (audioNow)
        return audioTime(ofEngine: now + delay)
    }

    /// The engine time of the frame heard now: the mixing position less the output latency.
    var heardEngineTime: Double { now - (isLoopback ? 0 : outputLatency) }

    /// Live: reads the audio clock and the output latency again when the last reading is more
    /// than 50 ms old, so that voice times and marker times cost one device-clock read per
    /// frame, not one per play.
    func refreshLiveAnchor() {
        let t = now
        guard t - liveAnchor.engine > 0.05 || liveAnchor.engine == 0 else { return }
        liveAnchor = (t, audioTime())
        outputLatency = usesDeviceClock ? (device.outputLatency() ?? 0) : 0
    }

    /// Collects the markers voices pass up to engine time `until` into ``voiceMarkers`` (sent by
    /// the engine once the lock is released): on loopback before each render (`until` its end),
    /// live in each update (`until` about one frame ahead of what is heard).
    func scanVoiceMarkers(until: Double) {
        guard pool.hasMarkedVoices else { return }
        let heard = heardEngineTime
        pool.scanMarkers(heardAt: heard, until: until, limit: Self.markersPerScan,
                         audioAt: { audioTime(ofEngine: $0) }, exact: { exactAnchor($0) }, into: &voiceMarkers)
    }

    /// The markers collected since the last call, made into `event`s (empty, allocating nothing,
    /// when there are none); the queue is emptied, keeping its capacity.
    func takeVoiceMarkers<Event>(_ event: ((id: VoiceID, name: String, time: Double)) -> Event) -> [Event] {
        guard !voiceMarkers.isEmpty else { return [] }
        defer { voiceMarkers.removeAll(keepingCapacity: true) }
        return voiceMarkers.map(event)
    }

    /// Live: where real voice `index` is and the audio time that is heard at, from one read of
    /// its source's offset with the device's mixing clock (`VoicePool.mixAnchor`); nil on
    /// loopback (whose engine clock is exact), without the device's clock, while it is lost or
    /// the output held, and for a voice without a source.
    func exactAnchor(_ index: Int) -> (position: Double, audio: Double)? {
        guard !isLoopback, usesDeviceClock, !isDeviceLost, let m = pool.mixAnchor(index, now: now),
              let audio = audioClock.projectedTime(source: m.clock) else { return nil }
        return (m.position, audio)
    }

    /// ``Voice/time`` of the voice in slot `index`, in clip frames along its timeline: where the
    /// frame heard now is — from the device's reading of its source live, from the engine clock
    /// otherwise.
    func heardPosition(_ index: Int) -> Double {
        if let e = exactAnchor(index) {
            let v = pool.voiceStates
            return max(v[index].startFrame,
                       e.position + (audioTime() - e.audio) * v[index].clipRate * Double(v[index].pitch))
        }
        return pool.timelinePosition(index, at: heardEngineTime)
    }

    /// The most markers one voice reports per render or update (the rest follow in the next).
    static let markersPerScan = 256
}
