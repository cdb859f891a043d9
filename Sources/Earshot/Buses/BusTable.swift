/// The engine's buses and the holds over them: the one owner of bus state. The game's settings
/// (gain, mute, pause), the session's duck and the mix's snapshot and sidechain factors each have
/// their own setter, so no caller can write another's factor; everyone else reads ``states``.
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

    /// Adds `bus` at the end; false when it exists.
    func add(_ bus: Bus) -> Bool {
        guard index(of: bus) == nil else { return false }
        states.append(BusState(bus: bus))
        buses.append(bus)
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

    func setPauseAll(except: Set<Bus>?) { pauseAllExcept = except }

    // MARK: Holds

    /// Whether bus `i`'s voices are held: the game paused it, `pauseAll(except:)` does not spare
    /// it, or an interruption holds every bus.
    func isHeld(at i: Int) -> Bool {
        let s = states[i]
        return s.paused || interruptionHold || (pauseAllExcept.map { !$0.contains(s.bus) } ?? false)
    }

    /// Whether `bus` is held by the game: its own pause or `pauseAll(except:)` (not an interruption).
    func isHeldByGame(_ bus: Bus) -> Bool {
        guard let i = index(of: bus) else { return false }
        return states[i].paused || (pauseAllExcept.map { !$0.contains(bus) } ?? false)
    }
}
