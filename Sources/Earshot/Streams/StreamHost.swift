import COpenAL

/// What the stream system (and music on it) needs from its engine, and nothing more: a clock
/// rate, an AL lock scope, bus gains, filters and holds, emitters' places, where to report the
/// streams' level on their buses, whether the output is still there and a log. (Streams make
/// their own sources: ``StreamSystem/attach(to:)``.)
///
/// ``AudioEngine`` is the one host. The streamer reaches the engine only through this protocol,
/// so the engine's core (voice pool, emitters, clips) is out of its reach. Members marked
/// *inside ``withStreamAL(_:)``* touch the engine's core and must be called only in that scope,
/// with the AL lock held (debug builds check it).
///
/// ```swift
/// let host: any StreamHost = engine
/// let gain = host.withStreamAL { host.streamOutputIsGone ? 0 : host.busGain(.music) }
/// ```
protocol StreamHost: AnyObject, Sendable {
    /// Whether the engine mixes offline (a loopback engine: the render pumps music, and the
    /// music clock counts rendered frames).
    var isLoopback: Bool { get }
    /// The engine's output rate, frames per second.
    var sampleRate: Int { get }
    /// Whether the engine has been shut down (no lock needed).
    var isShutDown: Bool { get }

    /// Runs `body` with the AL lock held and the engine's context current.
    func withStreamAL<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R

    /// Inside ``withStreamAL(_:)``: the engine is shut down, its device is lost or disconnected —
    /// nothing music does now would be heard, and its sources are gone or going.
    var streamOutputIsGone: Bool { get }
    /// Inside ``withStreamAL(_:)``: the engine's core has been torn down.
    var streamCoreIsShutDown: Bool { get }
    /// Inside ``withStreamAL(_:)``: the context in use (another one once a lost device's
    /// replacement is built): which context a source name belongs to.
    var streamContext: ObjectIdentifier { get }
    /// Inside ``withStreamAL(_:)``: a bus's gain (bus × snapshot × duck, 0 when muted), master
    /// excluded; 0 for a bus the engine does not have (a track's bus always exists: buses are
    /// never removed).
    func busGain(_ bus: Bus) -> Float
    /// Inside ``withStreamAL(_:)``: the buses held now — paused by the game, not spared by
    /// `pauseAll(except:)`, or all of them during an audio-session interruption.
    var heldBuses: Set<Bus> { get }
    /// Inside ``withStreamAL(_:)``: where an emitter is and how it sounds; nil once it was removed
    /// or for another engine's emitter.
    func spatial(of emitter: Emitter) -> SpatialProperties?
    /// Inside ``withStreamAL(_:)``: the listener (which way it faces turns world-locked sound
    /// fields).
    var streamListener: Listener { get }
    /// Inside ``withStreamAL(_:)``: whether stereo tracks can play straight to the outputs
    /// (`AL_SOFT_direct_channels`).
    var supportsDirectChannels: Bool { get }
    /// Inside ``withStreamAL(_:)``: the audio clock now (``AudioEngine/audioTime``): what scheduled
    /// starts, stops and fades and the markers' times are given on.
    var streamAudioTime: Double { get }
    /// Inside ``withStreamAL(_:)``: seconds between a frame being mixed and being heard — the live
    /// device's output latency (`ALC_DEVICE_CLOCK_LATENCY_SOFT`), 0 on loopback or where the
    /// device does not report it. What OpenAL mixes next is heard at audio time now + this.
    var streamOutputLatency: Double { get }
    /// Inside ``withStreamAL(_:)``: puts music's `source` on `bus`'s filters and effect send as a
    /// panned voice on that bus is (the bus's own low-pass, the snapshots' filters as they glide,
    /// the bus effect); `claimed`: the source has just been claimed for a track (everything is
    /// sent again). nil `bus`: the source leaves every bus (it is being deleted).
    func routeStreamSource(_ source: ALuint, bus: Bus?, claimed: Bool)
    /// Inside ``withStreamAL(_:)``: the power (mean square, master excluded) music plays on each
    /// bus now, which the bus meters (``AudioEngine/level(of:)``, the monitor) and sidechains
    /// add to their voices'. Buses not listed play no music.
    func setStreamedPower(_ power: [Bus: Float])
    /// Logs a warning in the engine's log (any lock or none).
    func logWarning(_ message: String)
}

extension AudioEngine: StreamHost {
    func withStreamAL<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R { try withAL(body) }

    var streamOutputIsGone: Bool {
        ALGlobal.lock.assertHeld("StreamHost.streamOutputIsGone outside withStreamAL")
        return core.isShutDown || core.isDeviceLost || !core.device.isConnected
    }

    var streamCoreIsShutDown: Bool {
        ALGlobal.lock.assertHeld("StreamHost.streamCoreIsShutDown outside withStreamAL")
        return core.isShutDown
    }

    var streamContext: ObjectIdentifier {
        ALGlobal.lock.assertHeld("StreamHost.streamContext outside withStreamAL")
        return ObjectIdentifier(core.context)
    }

    func busGain(_ bus: Bus) -> Float {
        ALGlobal.lock.assertHeld("StreamHost.busGain outside withStreamAL")
        return core.busIndex(bus) == nil ? 0 : core.busGain(bus)
    }

    var heldBuses: Set<Bus> {
        ALGlobal.lock.assertHeld("StreamHost.heldBuses outside withStreamAL")
        return Set(core.buses.map(\.bus).filter { core.isHeld($0) })
    }

    func spatial(of emitter: Emitter) -> SpatialProperties? {
        ALGlobal.lock.assertHeld("StreamHost.spatial(of:) outside withStreamAL")
        guard emitter.link === link, !core.isShutDown, let i = core.pool.emitterIndex(emitter.id) else { return nil }
        return core.pool.heardProperties(ofEmitter: i)   // with several listeners, as its voices are heard
    }

    var streamListener: Listener {
        ALGlobal.lock.assertHeld("StreamHost.streamListener outside withStreamAL")
        return core.listener
    }

    var supportsDirectChannels: Bool { core.context.has("AL_SOFT_direct_channels") }

    var streamAudioTime: Double {
        ALGlobal.lock.assertHeld("StreamHost.streamAudioTime outside withStreamAL")
        return core.isShutDown ? core.audioClock.lastTime : core.audioTime()
    }

    var streamOutputLatency: Double {
        ALGlobal.lock.assertHeld("StreamHost.streamOutputLatency outside withStreamAL")
        guard !core.isShutDown, !core.isLoopback, core.usesDeviceClock else { return 0 }
        return core.device.outputLatency() ?? 0
    }

    func routeStreamSource(_ source: ALuint, bus: Bus?, claimed: Bool) {
        ALGlobal.lock.assertHeld("StreamHost.routeStreamSource outside withStreamAL")
        guard !core.isShutDown else { return }
        if claimed || bus == nil { core.sendRouter.forget(source: source) }
        guard let bus, let index = core.busIndex(bus) else { return }
        core.sendRouter.apply(source: source, positioned: false, bus: index, environment: .open, starting: claimed)
    }

    func setStreamedPower(_ power: [Bus: Float]) {
        ALGlobal.lock.assertHeld("StreamHost.setStreamedPower outside withStreamAL")
        guard !core.isShutDown else { return }
        core.setStreamedPower(power)
    }

    func logWarning(_ message: String) {
        logger.warning("\(message)")
    }
}
