/// The engine's mix state beyond each bus's own settings: the active snapshots and the sidechain
/// duckings, with the per-bus factors they produce. Owned by the engine core and touched only
/// under the AL lock (`EngineCore+Mix.swift` drives it). Per-bus arrays are indexed by bus index
/// and grow when a bus is added; a steady frame allocates nothing.
final class Mixer {
    /// A linear ramp of a snapshot's weight, in mix time (frozen during an interruption hold).
    struct WeightRamp: Equatable {
        var from: Float = 0
        var to: Float = 0
        var duration: Double = 0
        var elapsed: Double = 0

        var value: Float {
            guard duration > 0, elapsed < duration else { return to }
            return from + (to - from) * Float(elapsed / duration)
        }

        var isSettled: Bool { duration <= 0 || elapsed >= duration }

        mutating func advance(by seconds: Double) {
            guard !isSettled, seconds > 0 else { return }
            elapsed = min(duration, elapsed + seconds)
        }

        /// Ramps from where it is now to `target` over `seconds`.
        mutating func retarget(_ target: Float, over seconds: Double) {
            from = value
            to = target
            duration = max(0, seconds)
            elapsed = 0
        }
    }

    /// A snapshot in force, its buses resolved to indices.
    struct ActiveSnapshot {
        var snapshot: Snapshot
        var gains: [(bus: Int, decibels: Double)]
        var filters: [(bus: Int, filter: LowPassFilter)]
        var weight = WeightRamp()
        /// ``AudioEngine/end(_:fade:)`` was called: removed once the weight reaches 0.
        var ending = false
    }

    /// What snapshots make of a bus's own filter: `own × keep + add` (identity: keep 1, add 0).
    struct FilterLayer: Equatable {
        var keep: Float = 1
        var gain: Float = 0
        var gainHF: Float = 0
        static let identity = FilterLayer()

        /// This layer, then `filter` blended in by `weight` on top of it.
        func blending(_ filter: LowPassFilter, weight: Float) -> FilterLayer {
            let rest = 1 - weight
            return FilterLayer(keep: keep * rest, gain: gain * rest + filter.gain * weight,
                               gainHF: gainHF * rest + filter.gainHF * weight)
        }

        /// The filter this layer makes of `own`, within 0…1.
        func applied(to own: LowPassFilter) -> LowPassFilter {
            LowPassFilter(gain: min(max(own.gain * keep + gain, 0), 1), gainHF: min(max(own.gainHF * keep + gainHF, 0), 1))
        }
    }

    /// Active snapshots in begin order (a snapshot begun again moves to the end).
    var snapshots: [ActiveSnapshot] = []
    /// Engine time the snapshot weights were last advanced to.
    var snapshotClock: Double = 0
    /// Sidechain duckings, target and source by bus index.
    var sidechains: [Sidechain] = []
    /// Engine time the sidechains were last stepped at.
    var sidechainClock: Double = 0

    /// Per bus: the snapshot factor, the sidechain factor and the filter layer last computed.
    var snapshotFactors: [Float] = []
    var sidechainFactors: [Float] = []
    var filterLayers: [FilterLayer] = []
    /// Scratch for the detector: per bus, whether it is a sidechain source, and its power.
    var isSource: [Bool] = []
    var power: [Float] = []
    /// Per bus: the detector's level (dBFS) at the last step, for sources.
    var levels: [Double] = []
    /// Times the mix changed a bus's factors and the voices were marked (tests count them).
    var syncs = 0

    /// Whether a frame has anything to do.
    var isActive: Bool { !snapshots.isEmpty || !sidechains.isEmpty }

    /// Sizes the per-bus arrays for `count` buses (allocates only when buses were added).
    func ensureBuses(_ count: Int) {
        guard snapshotFactors.count < count else { return }
        let n = count - snapshotFactors.count
        snapshotFactors += repeatElement(1, count: n)
        sidechainFactors += repeatElement(1, count: n)
        filterLayers += repeatElement(.identity, count: n)
        isSource += repeatElement(false, count: n)
        power += repeatElement(0, count: n)
        levels += repeatElement(-.infinity, count: n)
    }

    func index(of name: String) -> Int? { snapshots.firstIndex { $0.snapshot.name == name } }

    /// Advances every snapshot weight by `seconds` and removes ended snapshots whose weight is
    /// 0. Returns whether anything moved.
    func advanceSnapshots(by seconds: Double) -> Bool {
        var moved = false
        var i = 0
        while i < snapshots.count {
            if !snapshots[i].weight.isSettled {
                snapshots[i].weight.advance(by: seconds)
                moved = true
            }
            if snapshots[i].ending, snapshots[i].weight.isSettled, snapshots[i].weight.value == 0 {
                snapshots.remove(at: i)
                moved = true
                continue
            }
            i += 1
        }
        return moved
    }

    /// Recomputes the snapshot factor and filter layer of every bus from the active snapshots.
    func computeSnapshotFactors() {
        for b in snapshotFactors.indices {
            snapshotFactors[b] = 1
            filterLayers[b] = .identity
        }
        // Gains add in dB per bus (the factors multiply); −∞ (silence) fades in amplitude. Filters
        // blend in begin order, so the latest snapshot lies on top. Loops over index ranges:
        // `for … in` an array allocates in debug builds, where it is not specialised.
        for i in snapshots.indices {
            let w = snapshots[i].weight.value
            guard w > 0 else { continue }
            for j in snapshots[i].gains.indices {
                let (bus, db) = snapshots[i].gains[j]
                if db == -.infinity {
                    snapshotFactors[bus] *= 1 - w
                } else {
                    snapshotFactors[bus] *= DuckRamp.gain(decibels: db * Double(w))
                }
            }
            for j in snapshots[i].filters.indices {
                let (bus, filter) = snapshots[i].filters[j]
                filterLayers[bus] = filterLayers[bus].blending(filter, weight: w)
            }
        }
    }

    /// Recomputes every bus's sidechain factor: the lowest of the duckings that target it.
    func computeSidechainFactors() {
        for b in sidechainFactors.indices { sidechainFactors[b] = 1 }
        for i in sidechains.indices {
            let t = sidechains[i].target
            sidechainFactors[t] = min(sidechainFactors[t], sidechains[i].gain)
        }
    }

    /// Marks the buses that are sidechain sources.
    func markSources() {
        for b in isSource.indices { isSource[b] = false }
        for i in sidechains.indices { isSource[sidechains[i].source] = true }
    }
}
