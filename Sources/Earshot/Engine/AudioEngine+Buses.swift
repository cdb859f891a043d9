extension AudioEngine {
    /// Adds a user-defined bus. Throws ``EarshotError/invalidArgument(_:)`` when the name is taken.
    public func addBus(_ bus: Bus) throws(EarshotError) {
        let added = withAL { core.addBus(bus) }
        guard added else { throw .invalidArgument("a bus named \"\(bus.name)\" exists") }
    }

    /// The buses of the engine, built-in ones first.
    public var buses: [Bus] { withAL { core.buses.map(\.bus) } }

    /// A bus's own gain (without master, snapshots or ducking). 1 for an unknown bus.
    public func gain(for bus: Bus) -> Float {
        withAL { core.busIndex(bus).map { core.buses[$0].gain } ?? 1 }
    }

    /// Sets a bus's gain (0 or more; NaN and negative values are ignored).
    public func setGain(_ gain: Float, for bus: Bus) {
        guard gain.isFinite, gain >= 0 else { return }
        withAL { _ = core.updateBus(bus) { $0.gain = gain } }
        if bus == .music { musicSystem.frame(host: self) }   // tracks take the level now
    }

    /// Mutes or unmutes a bus: its voices and, for ``Bus/music``, every music track keep playing
    /// silently (positions and fades go on), at once.
    public func setMuted(_ muted: Bool, for bus: Bus) {
        withAL { _ = core.updateBus(bus) { $0.muted = muted } }
        if bus == .music { musicSystem.frame(host: self) }   // tracks take the level now
    }

    /// Whether a bus is muted.
    public func isMuted(_ bus: Bus) -> Bool {
        withAL { core.busIndex(bus).map { core.buses[$0].muted } ?? false }
    }

    /// The gain over every bus (0 or more).
    public var masterGain: Float {
        get { withAL { core.masterGain } }
        set {
            guard newValue.isFinite, newValue >= 0 else { return }
            withAL { core.setMasterGain(newValue) }
        }
    }

    /// The effective gain of a bus: master × bus gain × snapshot × min(session duck, sidechain),
    /// 0 when muted (see ``Snapshot`` and ``Ducking``).
    public func effectiveGain(for bus: Bus) -> Float {
        withAL { core.masterGain * core.busGain(bus) }
    }
}

extension AudioEngine {
    /// Pauses or resumes everything on a bus: its voices and, for ``Bus/music``, every music track.
    ///
    /// Paused voices give up their sources (fading out over the steal fade) and their playheads
    /// stand still; resumed, they fade back in where they were. Paused tracks keep their queue and
    /// position. Time-based behaviour runs in *playback* time, frozen while paused: a voice's
    /// start delay (``PlayOptions/delay``), its ``PlayOptions/fadeIn`` and ``Voice/stop(fade:)``,
    /// and a track's fades and crossfades continue on resume from where they were.
    ///
    /// This is the game's own pause of the bus: it outlasts ``resumeAll()`` and an audio-session
    /// interruption. A track paused by its own ``MusicTrack/pause()`` stays paused when the bus
    /// resumes.
    ///
    /// ```swift
    /// engine.setPaused(true, for: .music)    // the music stops where it is
    /// engine.setPaused(false, for: .music)   // and goes on from there
    /// ```
    public func setPaused(_ paused: Bool, for bus: Bus) {
        withAL { _ = core.updateBus(bus) { $0.paused = paused } }
        if bus == .music { syncMusicHold() }
    }

    /// Whether the game paused a bus with ``setPaused(_:for:)`` (``pauseAll(except:)`` and
    /// interruptions do not change it; see ``isHeld(_:)``).
    public func isPaused(_ bus: Bus) -> Bool {
        withAL { core.busIndex(bus).map { core.buses[$0].paused } ?? false }
    }

    /// Whether nothing on `bus` plays because of the game: its own pause or ``pauseAll(except:)``.
    public func isHeld(_ bus: Bus) -> Bool {
        withAL { core.isHeldByGame(bus) }
    }

    /// Pauses every bus except `except` in one call — a pause menu that keeps its UI sounds:
    ///
    /// ```swift
    /// engine.pauseAll(except: [.ui])   // open the pause menu
    /// engine.resumeAll()               // close it
    /// ```
    ///
    /// It holds each bus as ``setPaused(_:for:)`` would (music tracks included, and buses added
    /// while it is on), but apart from the game's own per-bus pauses: ``resumeAll()`` releases
    /// only this hold, so a bus the game paused itself, before or during it, stays paused.
    /// Resuming restarts nothing that ended: a voice stopped or ended before or during the pause
    /// stays ended, a track stopped meanwhile stays stopped. Calling it again replaces `except`.
    public func pauseAll(except: Set<Bus> = []) {
        withAL { core.setPauseAll(except: except) }
        syncMusicHold()
    }

    /// Lifts ``pauseAll(except:)``: every bus it held plays on from where it was (delays and fades
    /// continue in playback time). No effect when it is not on.
    public func resumeAll() {
        withAL { core.setPauseAll(except: nil) }
        syncMusicHold()
    }

    /// Whether ``pauseAll(except:)`` is on.
    public var isPausedAll: Bool { withAL { core.pauseAllExcept != nil } }

    /// Music tracks follow the music bus's pause (the game's own and ``pauseAll(except:)``).
    /// Called outside the AL lock: the music lock is taken first.
    private func syncMusicHold() {
        let held = withAL { core.isHeldByGame(.music) }
        musicSystem.setHold(.bus, held, host: self)
    }

    /// Stops everything on a bus: each voice with the steal fade and, for ``Bus/music``, every
    /// music track (each ends with `.stopped`, as ``MusicTrack/stop()``; tracks waiting to play
    /// after another are cancelled).
    public func stopAll(on bus: Bus) {
        withAL {
            guard !core.isShutDown, let index = core.busIndex(bus) else { return }
            core.pool.stopAll { $0.busIndex == index }
        }
        if bus == .music { musicSystem.stopAll(host: self) }
    }

    /// Stops every voice of the engine, each with the steal fade (music tracks are left alone;
    /// ``stopAll(on:)`` with ``Bus/music`` stops them).
    public func stopAllVoices() {
        withAL {
            guard !core.isShutDown else { return }
            core.pool.stopAll { _ in true }
        }
    }
}
