import Earshot
import EarshotContent

/// A bank's adaptive music: the music sets of its `music:` entries with `states:`, driven by
/// state from the game.
extension SoundBank {
    /// The music set `name`, made at the first call (its tracks opened, nothing playing) and the
    /// same set at every later call; ``unload()`` stops it. An edit of the set in the bank takes
    /// effect at the next call after ``reload()``, which stops the old one with a 0.5 s fade.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
    /// for name in bank.musicSetNames {
    ///     let music = try bank.musicSet(name)
    ///     try music.play(state: music.definition.states.first?.name)
    /// }
    /// ```
    public func musicSet(_ name: String) throws(BankError) -> MusicSet {
        try madeOnce("music set", name, kept: \.sets, from: \.musicSets) { (s) throws(EarshotError) in
            try engine.makeMusicSet(s.definition)
        }
    }

    /// Moves the bank's music to `state` by its transition rules (`MusicSet.setState(_:)`): on the
    /// next beat, bar or cue the rule says, with its fade, stinger and bridge; a set not playing
    /// yet starts in `state` at once. `set` names the music set, and may be left out when the
    /// bank has exactly one. Returns the audio time the state begins at.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
    /// if bank.musicSetNames == ["level1"] {
    ///     try bank.setMusicState("combat")             // the bank's one music set
    ///     try bank.setMusicState("explore", of: "level1")
    /// }
    /// ```
    @discardableResult
    public func setMusicState(_ state: String, of set: String? = nil) throws(BankError) -> Double {
        let name: String
        if let set {
            name = set
        } else {
            let names = musicSetNames
            guard names.count == 1, let only = names.first else {
                throw .engine(
                    .invalidArgument(
                        "\(path): setMusicState(\"\(state)\") needs of: — the bank has \(names.isEmpty ? "no music sets" : "\(names.count) music sets (\(names.joined(separator: ", ")))")"
                    ))
            }
            name = only
        }
        let music = try musicSet(name)
        guard music.definition.states.contains(where: { $0.name == state }) else {
            throw .unknownName(bank: path, kind: "state of music set \(name)", name: state,
                               nearest: SceneBank.nearestName(to: state, among: music.definition.states.map(\.name)))
        }
        do throws(EarshotError) { return try music.setState(state) } catch { throw .engine(error) }
    }

    /// The music sets' names, sorted (empty after ``unload()``).
    public var musicSetNames: [String] {
        (try? withContents { (contents: inout BankContents?) throws(BankError) -> [String] in
            contents?.musicSets.keys.sorted() ?? []
        }) ?? []
    }
}
