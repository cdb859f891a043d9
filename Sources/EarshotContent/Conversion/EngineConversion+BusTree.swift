import Earshot
import Foundation

// The bus tree and the VCAs of a scene or a bank, made in an engine: part of the one conversion
// (EngineConversion.swift), used by a scene's runtime and by a bank's load and reload alike.

extension SceneDefinitions {
    /// Makes the buses the engine does not have, each group before its children, and puts every
    /// bus with a `parent:` under it. `parented`: the buses this content put under a parent
    /// before (a bank's last load); those that no longer name one go back to the master. Buses
    /// whose parent changes go to the master first, so a reload that turns the tree around
    /// makes no cycle on the way. Returns the buses with a parent now. Gains are not set here.
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/mix.yaml")
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// _ = try scene.definitions.makeBusTree(in: engine)
    /// ```
    public func makeBusTree(in engine: AudioEngine, parented: Set<String> = []) throws(EarshotError) -> Set<String> {
        let wanted = Dictionary(buses.compactMap { b in b.parent.map { (b.name, $0) } }, uniquingKeysWith: { _, l in l })
        for name in parented.union(wanted.keys) where engine.buses.contains(Bus(name)) {
            if try engine.parent(of: Bus(name))?.name != wanted[name] { try engine.setParent(nil, of: Bus(name)) }
        }
        var pending = buses.map(\.name)
        while !pending.isEmpty {
            var waiting: [String] = []
            for name in pending {
                let bus = Bus(name)
                guard let parent = wanted[name].map(Bus.init) else {
                    if !engine.buses.contains(bus) { try engine.addBus(bus) }
                    continue
                }
                guard engine.buses.contains(parent) else {   // its group first
                    waiting.append(name)
                    continue
                }
                if !engine.buses.contains(bus) {
                    try engine.addBus(bus, parent: parent)
                } else if try engine.parent(of: bus) != parent {
                    try engine.setParent(parent, of: bus)
                }
            }
            guard waiting.count < pending.count else {   // validated content has no cycle: a parent the engine lacks
                throw .invalidArgument("bus \(waiting[0]): its parent \(wanted[waiting[0]] ?? "") is not a bus")
            }
            pending = waiting
        }
        return Set(wanted.keys)
    }

    /// Defines every VCA over its buses and sets its `gain:` (0 dB when it names none), at once;
    /// the VCAs in `defined` (a bank's last load) that are gone are removed. Returns the ids defined.
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/mix.yaml")
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// _ = try scene.definitions.makeBusTree(in: engine)
    /// _ = try scene.definitions.defineVCAs(in: engine)
    /// ```
    public func defineVCAs(in engine: AudioEngine, defined: Set<String> = []) throws(EarshotError) -> Set<String> {
        for v in vcas {
            try engine.defineVCA(v.vca)
            try engine.setVCA(v.id, gain: v.linearGain)
        }
        let now = Set(vcas.map(\.id))
        for id in defined.subtracting(now) { engine.removeVCA(id) }
        return now
    }
}

extension SceneVCA {
    /// The engine's VCA: its id and member buses.
    public var vca: VCA { VCA(id, buses: buses.map(Bus.init)) }
    /// Its `gain:` as a linear factor (1 when it names none).
    public var linearGain: Float { gainDB.map { Float(pow(10, $0 / 20)) } ?? 1 }
}
