import Earshot

/// The definitions a scene and a bank share, as read from YAML: clips, sounds, buses, snapshots,
/// reverb zones, music and game parameters — the included banks' first, in include order, then
/// the file's own — with their distance defaults and where each is defined. A ``Scene`` adds its
/// timeline; a ``SceneBank`` is these alone. Both read them as their own members
/// (`scene.sounds`, `bank.clips`), and a new section of the schema is one field here.
///
/// ```swift
/// let bank = try SceneBank.load(path: "Demos/Bank/game.yaml")
/// let d: SceneDefinitions = bank.definitions
/// print(d.sounds.map(\.id), d.origins["sounds.footstep"] ?? "")
/// ```
public struct SceneDefinitions: Sendable, Equatable {
    /// Clips by id, in file order, with paths resolved against the file's folder.
    public var clips: [SceneClip] = []
    /// Sounds (`sounds:`), in file order: clips picked, varied and limited; ids shared with clips.
    public var sounds: [SceneSound] = []
    /// Buses with settings (`buses:`): gains, new buses, sidechain ducking; in file order.
    public var buses: [SceneBus] = []
    /// VCAs (`vcas:`), in file order: level controls over sets of buses.
    public var vcas: [SceneVCA] = []
    /// Snapshots (`snapshots:`), in file order.
    public var snapshots: [SceneSnapshot] = []
    /// Reverb zones (`zones:`), in file order.
    public var zones: [ReverbZone] = []
    /// The level's rooms and portals (`rooms:`, `portals:`), checked as the engine checks them.
    public var geometry = AcousticGeometry()
    /// Music tracks by id, in file order.
    public var music: [SceneMusic] = []
    /// Music sets by id, in file order: `music:` entries with `states:` (see ``SceneMusicSet``).
    public var musicSets: [SceneMusicSet] = []
    /// Ambisonic beds (`beds:`), in file order (the file's own; included banks' are not merged).
    public var beds: [SceneBed] = []
    /// The game parameters (`parameters:`) curves name.
    public var parameters: [SceneParameter] = []
    /// Distance attenuation every positioned play starts from (`referenceDistance:`,
    /// `maxDistance:`, `rolloff:`, …; an emitter or a sound may override each value).
    public var attenuation = SceneAttenuation()
    /// Every bank read through `include:` (directly or through other banks), each once, in the
    /// order read, as its path reads (resolved against its includer's folder).
    public var includedFiles: [String] = []
    /// Warnings found while reading the file and those it includes — an old linear gain, a
    /// likely unit slip — each naming its own file.
    public var readWarnings: [SceneWarning] = []
    /// The line of each own entry's key, by the key path messages use (`clips.beep`,
    /// `sounds.steps`, `emitters.car`, `zones.hall`, `music.theme`, `snapshots.x`, `buses.sfx`).
    public var lines: [String: Int] = [:]
    /// The column of each own entry's key, by the same key paths as ``lines``.
    public var columns: [String: Int] = [:]
    /// Where each entry is defined, own or included: `FILE:LINE` by key (`clips.step`).
    public var origins: [String: String] = [:]

    public init() {}
}

extension Scene {
    /// A definition of the scene's, read as its own member (`scene.sounds`).
    public subscript<T>(dynamicMember path: WritableKeyPath<SceneDefinitions, T>) -> T {
        get { definitions[keyPath: path] }
        set { definitions[keyPath: path] = newValue }
    }
}
