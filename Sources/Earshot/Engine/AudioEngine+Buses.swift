extension AudioEngine {
    /// Adds a user-defined bus. Throws ``EarshotError/invalidArgument(_:)`` when the name is taken
    /// or is not a valid bus name (see ``Bus/validate()``: not empty, printable, at most
    /// ``Bus/maxNameBytes`` UTF-8 bytes).
    ///
    /// ```swift
    /// let footsteps = Bus("footsteps")
    /// try engine.addBus(footsteps)
    /// try engine.setGain(0.8, for: footsteps)
    /// ```
    public func addBus(_ bus: Bus) throws(EarshotError) {
        try bus.validate()
        let added = changingBuses { core.addBus(bus) }   // under pauseAll(except:), a new bus is held at once
        guard added else { throw .invalidArgument("a bus named \"\(bus.name)\" exists") }
    }

    /// The buses of the engine, built-in ones first.
    public var buses: [Bus] { withAL { core.buses.map(\.bus) } }

    /// A bus's own gain (without master, snapshots or ducking). Throws
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    public func gain(for bus: Bus) throws(EarshotError) -> Float {
        try withAL { () throws(EarshotError) -> Float in core.buses[try core.requireBus(bus)].gain }
    }

    /// Sets a bus's gain (finite, 0 or more). Throws ``EarshotError/invalidArgument(_:)`` for a
    /// NaN, infinite or negative gain and for a bus the engine does not have; nothing changes then.
    ///
    /// ```swift
    /// try engine.setGain(0.5, for: .music)
    /// ```
    public func setGain(_ gain: Float, for bus: Bus) throws(EarshotError) {
        guard gain.isFinite, gain >= 0 else { throw .invalidArgument("bus gain \(gain) must be finite and ≥ 0") }
        try changingBuses { () throws(EarshotError) in   // tracks on the bus take the level now
            core.setBusGain(gain, at: try core.requireBus(bus))
        }
    }

    /// Mutes or unmutes a bus: its voices and every music track on it keep playing silently
    /// (positions and fades go on), at once. Throws ``EarshotError/invalidArgument(_:)`` for a bus
    /// the engine does not have.
    public func setMuted(_ muted: Bool, for bus: Bus) throws(EarshotError) {
        try changingBuses { () throws(EarshotError) in   // tracks on the bus take the level now
            core.setBusMuted(muted, at: try core.requireBus(bus))
        }
    }

    /// Whether a bus is muted. Throws ``EarshotError/invalidArgument(_:)`` for a bus the engine
    /// does not have.
    public func isMuted(_ bus: Bus) throws(EarshotError) -> Bool {
        try withAL { () throws(EarshotError) -> Bool in core.buses[try core.requireBus(bus)].muted }
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
    /// 0 when muted (see ``Snapshot`` and ``Ducking``), times its ``VCA``s, times the same of every
    /// group bus above it (the product along its path in the tree). Throws ``EarshotError/invalidArgument(_:)``
    /// for a bus the engine does not have.
    public func effectiveGain(for bus: Bus) throws(EarshotError) -> Float {
        try withAL { () throws(EarshotError) -> Float in
            _ = try core.requireBus(bus)
            return core.masterGain * core.busGain(bus)
        }
    }
}

extension AudioEngine {
    /// Pauses or resumes everything on a bus — for a group bus, on every bus below it too (a child
    /// plays only while neither it nor any group above it is paused): its voices and every music
    /// track on it. Throws
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
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
    /// try engine.setPaused(true, for: .music)    // the music stops where it is
    /// try engine.setPaused(false, for: .music)   // and goes on from there
    /// ```
    public func setPaused(_ paused: Bool, for bus: Bus) throws(EarshotError) {
        try changingBuses { () throws(EarshotError) in
            core.setBusPaused(paused, at: try core.requireBus(bus))
        }
    }

    /// Whether the game paused a bus with ``setPaused(_:for:)`` (``pauseAll(except:)`` and
    /// interruptions do not change it; see ``isHeld(_:)``). Throws
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    public func isPaused(_ bus: Bus) throws(EarshotError) -> Bool {
        try withAL { () throws(EarshotError) -> Bool in core.buses[try core.requireBus(bus)].paused }
    }

    /// Whether nothing on `bus` plays because of the game: its own pause or ``pauseAll(except:)``.
    /// Throws ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    public func isHeld(_ bus: Bus) throws(EarshotError) -> Bool {
        try withAL { () throws(EarshotError) -> Bool in
            _ = try core.requireBus(bus)
            return core.isHeldByGame(bus)
        }
    }

    /// Pauses every bus except `except` in one call — a pause menu that keeps its UI sounds:
    ///
    /// ```swift
    /// try engine.pauseAll(except: [.ui])   // open the pause menu
    /// engine.resumeAll()                   // close it
    /// ```
    ///
    /// It holds each bus as ``setPaused(_:for:)`` would (music tracks included, and buses added
    /// while it is on); a group bus in `except` spares every bus below it too, but apart from the game's own per-bus pauses: ``resumeAll()`` releases
    /// only this hold, so a bus the game paused itself, before or during it, stays paused.
    /// Resuming restarts nothing that ended: a voice stopped or ended before or during the pause
    /// stays ended, a track stopped meanwhile stays stopped. Calling it again replaces `except`.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` when `except` names a bus the engine does not
    /// have (a typo would otherwise pause the bus meant to keep playing); nothing is paused then.
    public func pauseAll(except: Set<Bus> = []) throws(EarshotError) {
        try changingBuses { () throws(EarshotError) in
            for bus in except { _ = try core.requireBus(bus) }
            core.setPauseAll(except: except)
        }
    }

    /// Lifts ``pauseAll(except:)``: every bus it held plays on from where it was (delays and fades
    /// continue in playback time). No effect when it is not on.
    public func resumeAll() {
        changingBuses { core.setPauseAll(except: nil) }
    }

    /// Whether ``pauseAll(except:)`` is on.
    public var isPausedAll: Bool { withAL { core.pauseAllExcept != nil } }

    /// Stops everything on a bus — and, for a group bus, on every bus below it: each voice with
    /// the steal fade and every music track on it (each ends with `.stopped`, as
    /// ``MusicTrack/stop()``; tracks waiting to play after another are cancelled). Throws ``EarshotError/invalidArgument(_:)`` for a bus the engine does not
    /// have.
    public func stopAll(on bus: Bus) throws(EarshotError) {
        try changingBuses { () throws(EarshotError) in   // music stops the bus's tracks
            let index = try core.requireBus(bus)
            guard !core.isShutDown else { return }
            guard core.busTable.hasGroups else {
                core.pool.stopAll { $0.busIndex == index }
                core.busChanges.stopped.append(bus)
                return
            }
            let below = core.busTable.subtree(of: index)   // a group stops everything under it
            core.pool.stopAll { Int($0.busIndex) < below.count && below[Int($0.busIndex)] }
            for b in below.indices where below[b] { core.busChanges.stopped.append(core.busTable.buses[b]) }
        }
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
