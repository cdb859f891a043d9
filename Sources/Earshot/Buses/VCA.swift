/// A VCA: one level control over a set of buses that need not form a group — "everything but UI
/// and dialogue", "all gameplay", a menu's "effects volume" slider over `sfx` and `ambience`.
///
/// A VCA routes nothing: it scales each member bus's level, as if the bus's own gain were
/// multiplied by it, and its members keep their own gains, groups, snapshots and ducking. A bus in
/// several VCAs takes the product of their gains; a VCA over a group bus scales everything below
/// that group too (the group's level is part of each child's, see ``Bus``).
///
/// Define it with ``AudioEngine/defineVCA(_:)`` (again to change its members, keeping its gain),
/// then move it with ``AudioEngine/setVCA(_:gain:fade:)``:
///
/// ```swift
/// try engine.defineVCA(VCA("gameplay", buses: [.sfx, .music]))
/// try engine.setVCA("gameplay", gain: 0.316, fade: 0.5)   // −10 dB over half a second
/// ```
public struct VCA: Sendable, Hashable, CustomStringConvertible {
    /// The name the engine knows it by (not empty, printable, at most ``Bus/maxNameBytes`` UTF-8
    /// bytes, as a bus name).
    public let name: String
    /// The buses it scales (each must exist in the engine; at most ``maxBuses``, no repeats).
    public var buses: [Bus]

    public init(_ name: String, buses: [Bus]) {
        self.name = name
        self.buses = buses
    }

    public var description: String { name }

    /// The most buses one VCA may scale.
    public static let maxBuses = 64
    /// The most VCAs an engine may have.
    public static let maxCount = 64
    /// The highest gain a VCA may give (linear: +24 dB).
    public static let maxGain: Float = 15.848932

    /// Checks the name (as a bus name: not empty, printable, at most ``Bus/maxNameBytes`` UTF-8
    /// bytes), the member count and that no bus is named twice — not whether the buses exist,
    /// which only the engine knows. ``AudioEngine/defineVCA(_:)`` runs it and throws
    /// ``EarshotError/invalidArgument(_:)`` for a VCA that fails.
    ///
    /// ```swift
    /// try VCA("gameplay", buses: [.sfx, .music]).validate()   // fine
    /// // try VCA("", buses: []).validate()                    // throws: a VCA needs a name
    /// ```
    public func validate() throws(EarshotError) {
        do throws(EarshotError) { try Bus(name).validate() } catch {
            guard case .invalidArgument(let why) = error else { throw error }
            throw .invalidArgument("VCA: " + why.replacingOccurrences(of: "bus name", with: "name"))
        }
        guard buses.count <= Self.maxBuses else {
            throw .invalidArgument("VCA \"\(name)\" has \(buses.count) buses; at most \(Self.maxBuses)")
        }
        guard Set(buses).count == buses.count else {
            throw .invalidArgument("VCA \"\(name)\" names a bus twice")
        }
    }

    /// Checks a VCA gain: finite, within 0…``maxGain``.
    static func checkGain(_ gain: Float) throws(EarshotError) {
        guard gain.isFinite, gain >= 0, gain <= maxGain else {
            throw .invalidArgument("VCA gain \(gain) must be finite and within 0…\(maxGain) (+24 dB)")
        }
    }
}
