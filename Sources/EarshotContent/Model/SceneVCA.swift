import Earshot

/// A VCA of a scene or a bank (`vcas:`): a level control over a set of buses that need not form a
/// group (Earshot's `VCA`), its member buses and its gain at the start.
///
/// ```yaml
/// vcas:
///   gameplay: { buses: [sfx, music], gain: -10 }
/// ```
public struct SceneVCA: Sendable, Equatable {
    public var id: String
    /// The buses it scales, in file order (built-in or under `buses:`).
    public var buses: [String]
    /// Its gain in dB at the start (nil: 0 dB; −∞ is not a value: use `gain: -120`).
    public var gainDB: Double?

    public init(id: String, buses: [String], gainDB: Double? = nil) {
        self.id = id
        self.buses = buses
        self.gainDB = gainDB
    }
}
