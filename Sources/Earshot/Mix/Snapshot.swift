/// A mix state: a named set of bus gains (in dB) and bus filters that the game begins and ends,
/// such as "paused", "underwater" or "boss fight".
///
/// A snapshot is a definition, like a ``Clip`` is an asset: nothing happens until
/// ``AudioEngine/begin(_:fade:intensity:)``, and ``AudioEngine/end(_:fade:)`` takes it away
/// again. The engine knows snapshots by ``name``: beginning one whose name is active retargets
/// it. Several may be active at once; how they combine:
///
/// - **Weight.** Each active snapshot has a weight, its intensity (0…1) times the progress of
///   its fade. Fades are linear in that weight, so a −12 dB snapshot half-way through its fade-in
///   lowers its bus by 6 dB, and one begun at intensity 0.5 by 6 dB for good.
/// - **Gains add in dB** (the linear gains multiply): each snapshot contributes its dB times
///   its weight, so two active −6 dB snapshots on `sfx` lower it by 12 dB. A gain of −∞
///   (silence) fades in linear amplitude instead: its factor is `1 − weight`.
/// - **Filters: the most recently begun snapshot wins.** Going through the active snapshots in
///   the order they were begun, each one that names a filter for a bus blends from what lies
///   beneath it (the earlier snapshots' result, or the bus's own filter set with
///   ``AudioEngine/setFilter(_:for:)``) to its own filter by its weight; so the latest one at
///   full weight decides, fading in or out it crossfades, and once no snapshot names a filter
///   for the bus the bus's own filter applies again. Filter changes glide like the bus filter
///   itself (over at least ``EnvironmentProperties/glideTime``).
///
/// The snapshot factor multiplies the bus's own gain, and the bus's ducking (the lower of the
/// session's duck and the sidechain, see ``Ducking``) multiplies both:
/// `effective = bus gain × snapshot × min(session duck, sidechain)`, 0 when muted. Music tracks
/// follow the ``Bus/music`` bus's factor like its gain.
///
/// Gains are in dB, at most +24, finite or −∞; filter gains are within 0…1. The buses named must
/// exist in the engine when the snapshot begins.
///
/// ```swift
/// let underwater = Snapshot("underwater",
///                           busGains: [.music: -6, .sfx: -3],
///                           busFilters: [.sfx: LowPassFilter(gain: 0.9, gainHF: 0.1)])
/// try engine.begin(underwater, fade: 0.5)       // dive
/// engine.end(underwater, fade: 1)               // surface
/// ```
public struct Snapshot: Sendable, Hashable {
    /// The name the engine knows the snapshot by (unique among active snapshots; not empty).
    public var name: String
    /// Gains per bus in dB (≤ +24; finite, or −∞ for silence). Buses not named keep their gain.
    public var busGains: [Bus: Double]
    /// Low-pass filters per bus (gains within 0…1). Buses not named keep their filter.
    public var busFilters: [Bus: LowPassFilter]

    /// A snapshot named `name` with gains in dB and filters, per bus.
    ///
    /// ```swift
    /// let menu = Snapshot("pause menu", busGains: [.sfx: -12, .music: -6])
    /// try engine.begin(menu, fade: 0.3)
    /// ```
    public init(_ name: String, busGains: [Bus: Double] = [:], busFilters: [Bus: LowPassFilter] = [:]) {
        self.name = name
        self.busGains = busGains
        self.busFilters = busFilters
    }

    /// The highest gain a snapshot may give a bus, in dB.
    public static let maxGainDecibels = 24.0

    /// Checks the numbers (not the buses, which only the engine knows).
    func validate() throws(EarshotError) {
        guard !name.isEmpty else { throw .invalidArgument("a snapshot needs a name") }
        for (bus, db) in busGains where db.isNaN || db > Self.maxGainDecibels {
            throw .invalidArgument(
                "snapshot \"\(name)\": gain \(db) dB on bus \"\(bus.name)\" is not a level of at most +24 dB")
        }
        for (bus, filter) in busFilters where !filter.isValid {
            throw .invalidArgument(
                "snapshot \"\(name)\": filter gains \(filter.gain), \(filter.gainHF) on bus \"\(bus.name)\" must be within 0…1"
            )
        }
    }
}
