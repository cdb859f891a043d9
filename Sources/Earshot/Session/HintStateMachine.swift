/// The secondary-audio hint as a pure state machine: many inputs, one value, strict edges.
///
/// Each input (a manual key such as `"manual"` or `"scene"`, or a running hint source) says
/// whether other audio is playing; the hint is on while any input is. Edges are reported only
/// while the session is active, and strictly alternate: `.begin`, `.end`, `.begin` … A report
/// that does not change the value reports nothing. Activating with the hint already on reports
/// `.begin` (so a listener needs no separate check at activation); deactivating reports nothing
/// and forgets the last edge, so the next activation reports `.begin` again if the hint is on.
struct HintStateMachine: Sendable, Equatable {
    typealias Edge = AudioSession.HintChange

    private(set) var inputs: [String: Bool] = [:]
    private(set) var isActive = false
    /// The value last reported as an edge (false before any).
    private(set) var reported = false

    /// Whether any input reports other audio playing.
    var value: Bool { inputs.values.contains(true) }

    mutating func set(_ key: String, _ playing: Bool) -> Edge? {
        inputs[key] = playing
        return settle()
    }

    mutating func remove(_ key: String) -> Edge? {
        inputs[key] = nil
        return settle()
    }

    mutating func activate() -> Edge? {
        isActive = true
        return settle()
    }

    mutating func deactivate() {
        isActive = false
        reported = false
    }

    private mutating func settle() -> Edge? {
        guard isActive, value != reported else { return nil }
        reported = value
        return value ? .begin : .end
    }
}
