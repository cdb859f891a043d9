import Earshot
import EarshotContent
import Foundation

/// Puts a `SceneBank` into an engine — the first load and each reload's new parts — through
/// the content layer's one conversion (EarshotContent's `EngineConversion.swift`), as a scene's
/// runtime does.
enum BankLoader {
    /// The engine sound of `s`, its clips from `clips`, with its own distance settings (its
    /// bank's defaults with its keys over them, whichever bank includes it).
    static func definition(_ s: SceneSound, clips: [String: Clip], sounds: [String: Sound] = [:]) -> SoundDefinition {
        s.definition(clips: clips, spatial: s.attenuation.spatial(position: .zero), sounds: sounds)
    }

    /// Defines the bank's parameters in the engine (a parameter of that name the game or another
    /// bank defined takes the bank's range, default and seek; its value is kept).
    static func defineParameters(_ bank: SceneBank, engine: AudioEngine) throws(EarshotError) {
        for p in bank.parameters { try engine.defineParameter(p.definition) }
    }

    /// Loads the clips of `bank` that `existing` does not hold already (by file), into
    /// `engine`; on a failure unloads those it loaded and throws. `decibels`: the dB each clip
    /// plays at (its `loudness:` and `gain:`; only those not at 0 dB), for its sounds' `loudness:`.
    static func loadClips(
        _ bank: SceneBank, existing: [String: Clip], engine: AudioEngine
    ) throws(BankError) -> (byID: [String: Clip], byPath: [String: Clip], new: [Clip], decibels: [String: Double]) {
        var byID: [String: Clip] = [:], byPath: [String: Clip] = [:], new: [Clip] = []
        var decibels: [String: Double] = [:]
        for c in bank.clips {
            do throws(EarshotError) {
                // One buffer per file; each id's handle carries its own `loudness:` and `gain:`
                // (SceneClip+Loudness.swift).
                if c.loudness != nil || c.gainDB != 0 { decibels[c.id] = try c.playDecibels() }
                if let clip = byPath[c.path] ?? existing[c.path] {
                    byPath[c.path] = clip
                    byID[c.id] = try c.handle(clip)
                    continue
                }
                let clip = try engine.loadClip(path: c.path)
                new.append(clip)
                byPath[c.path] = clip
                byID[c.id] = try c.handle(clip)
            } catch {
                for clip in new { engine.unload(clip) }
                if error == .engineShutDown { throw .engine(error) }   // not the file's problem
                let (file, line) = bank.origin(of: "clips.\(c.id)")
                throw .invalid([.invalid(file: file, line: line, column: 1, key: "clips.\(c.id)",
                                         reason: "cannot load \(c.path): \(error.description)")])
            }
        }
        return (byID, byPath, new, decibels)
    }

    /// Makes the buses of `bank` the engine does not have, and sets their gains and duckings as
    /// the bank says; gains and duckings the bank set before (`contents`) but no longer names are
    /// put back (gain 1, no ducking).
    static func applyBuses(_ bank: SceneBank, to contents: inout BankContents, engine: AudioEngine) throws(EarshotError)
    {
        contents.busParents = try bank.definitions.makeBusTree(in: engine, parented: contents.busParents)
        contents.vcas = try bank.definitions.defineVCAs(in: engine, defined: contents.vcas)
        var gains = Set<String>(), duckings = Set<BankContents.BusPair>()
        for b in bank.buses {
            if let gain = b.linearGain {
                try engine.setGain(gain, for: Bus(b.name))
                gains.insert(b.name)
            }
            for d in b.ducks {
                try engine.setDucking(d.ducking, of: Bus(d.target), by: Bus(b.name))
                duckings.insert(.init(target: d.target, source: b.name))
            }
        }
        var curves = Set<String>()
        for b in bank.buses where !b.curves.isEmpty || contents.busCurves.contains(b.name) {
            try engine.setCurves(b.curves, for: Bus(b.name))
            if !b.curves.isEmpty { curves.insert(b.name) }
        }
        for name in contents.busCurves.subtracting(curves) where !bank.buses.contains(where: { $0.name == name }) {
            try? engine.setCurves([], for: Bus(name))
        }
        contents.busCurves = curves
        for name in contents.busGains.subtracting(gains) { try? engine.setGain(1, for: Bus(name)) }
        for pair in contents.duckings.subtracting(duckings) {
            try? engine.setDucking(nil, of: Bus(pair.target), by: Bus(pair.source))
        }
        contents.busGains = gains
        contents.duckings = duckings
    }
}
