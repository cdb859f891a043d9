import Earshot
import EarshotContent

extension SoundBank {
    /// The names of the bank's ambisonic beds (`beds:`, the file's own; an included bank's are
    /// not merged), sorted.
    public var bedNames: [String] { (definition?.definitions.beds.map(\.id) ?? []).sorted() }

    /// Opens the bank's bed `name` as its definition says (file, AmbiX or FuMa, volume, bus,
    /// lock, yaw), ready to play. Each call opens a new bed the caller owns — as with
    /// `AudioEngine.openBed(path:options:)`, stop it (or fade it out) when it is done; engine
    /// shutdown ends it. A reload changes the definition the next call opens, not beds already
    /// open.
    ///
    /// Throws ``BankError/unknownName(bank:kind:name:nearest:)`` for a name the bank does not
    /// define, ``BankError/engine(_:)`` for what `openBed` refuses (a missing or malformed
    /// file, no bed sources left), ``BankError/unloaded(bank:)`` after ``unload()``.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
    /// if let name = bank.bedNames.first {
    ///     let bed = try bank.openBed(name)
    ///     try bed.play()
    /// }
    /// ```
    public func openBed(_ name: String) throws(BankError) -> AmbisonicBed {
        guard let bank = definition else { throw .unloaded(bank: path) }
        let beds = bank.definitions.beds
        guard let bed = beds.first(where: { $0.id == name }) else {
            throw .unknownName(bank: path, kind: "bed", name: name,
                               nearest: SceneBank.nearestName(to: name, among: beds.map(\.id)))
        }
        do throws(EarshotError) {
            return try engine.openBed(path: bed.path, options: bed.options)
        } catch {
            throw .engine(error)
        }
    }
}
