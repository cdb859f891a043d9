/// The values the mix keeps per snapshot and per bus (``Mixer`` owns them).
extension Mixer {
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
            LowPassFilter(
                gain: min(max(own.gain * keep + gain, 0), 1), gainHF: min(max(own.gainHF * keep + gainHF, 0), 1))
        }
    }
}
