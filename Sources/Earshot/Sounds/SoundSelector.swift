/// Picks the clip of each play of a sound: random (weighted), shuffle or sequence, never one of
/// the last `avoidRepeat` picks. No OpenAL: usable and tested alone.
///
/// Every array is sized when the selector is made; ``next(using:)`` allocates nothing.
struct SoundSelector {
    let selection: SoundDefinition.Selection
    let count: Int
    let avoidRepeat: Int
    /// Weights of `random` (all 1 when the definition gave none).
    private let weights: [Double]
    /// The last picks, newest at `historyHead - 1` (a ring of `avoidRepeat` entries).
    private var history: [Int]
    private var historyHead = 0
    private var historyCount = 0
    /// `shuffle`: the current order and how far it has been played.
    private var bag: [Int]
    private var bagPosition: Int
    /// `sequence`: the next index.
    private var position = 0

    init(_ definition: SoundDefinition) {
        selection = definition.selection
        count = definition.clips.count
        avoidRepeat = definition.avoidRepeat
        weights = definition.weights ?? [Double](repeating: 1, count: definition.clips.count)
        history = [Int](repeating: -1, count: max(definition.avoidRepeat, 1))
        bag = Array(0..<definition.clips.count)
        bagPosition = definition.clips.count   // empty: the first pick shuffles
    }

    /// A selector over `count` clips of equal weight (a timeline layer's alternatives).
    init(count: Int, selection: SoundDefinition.Selection) {
        self.selection = selection
        self.count = count
        avoidRepeat = 0
        weights = [Double](repeating: 1, count: count)
        history = [-1]
        bag = Array(0..<count)
        bagPosition = count
    }

    /// The index of the next clip.
    mutating func next<G: RandomNumberGenerator>(using generator: inout G) -> Int {
        let pick: Int
        switch selection {
        case .sequence:
            pick = position
            position = (position + 1) % count
        case .random:
            pick = weightedPick(using: &generator)
        case .shuffle:
            if bagPosition >= count { refill(using: &generator) }
            if isRecent(bag[bagPosition]) {
                // Only the end of the previous order can be recent: bring the first later entry
                // that is not recent forward (there is one: avoidRepeat < count).
                var j = bagPosition + 1
                while j < count, isRecent(bag[j]) { j += 1 }
                if j < count { bag.swapAt(bagPosition, j) }
            }
            pick = bag[bagPosition]
            bagPosition += 1
        }
        remember(pick)
        return pick
    }

    /// Whether `index` is one of the last `avoidRepeat` picks.
    private func isRecent(_ index: Int) -> Bool {
        guard avoidRepeat > 0 else { return false }
        for k in 0..<historyCount where history[(historyHead - 1 - k + history.count * 2) % history.count] == index {
            return true
        }
        return false
    }

    private mutating func remember(_ index: Int) {
        guard avoidRepeat > 0 else { return }
        history[historyHead] = index
        historyHead = (historyHead + 1) % history.count
        historyCount = min(historyCount + 1, history.count)
    }

    /// A weighted draw among the clips that are not recent (validation guarantees one exists).
    private func weightedPick<G: RandomNumberGenerator>(using generator: inout G) -> Int {
        var total = 0.0
        for i in 0..<count where !isRecent(i) { total += weights[i] }
        var u = Double(generator.next() >> 11) / Double(1 << 53) * total
        var last = -1
        for i in 0..<count where !isRecent(i) && weights[i] > 0 {
            last = i
            if u < weights[i] { return i }
            u -= weights[i]
        }
        return last   // rounding at the top end
    }

    /// A new random order (Fisher–Yates).
    private mutating func refill<G: RandomNumberGenerator>(using generator: inout G) {
        for i in stride(from: count - 1, to: 0, by: -1) {
            let j = Int(generator.next() % UInt64(i + 1))
            bag.swapAt(i, j)
        }
        bagPosition = 0
    }
}
