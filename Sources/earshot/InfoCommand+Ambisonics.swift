import Earshot

/// What `earshot info` says of a file whose channels make an ambisonic order (4, 9, 16): the
/// order, the formats it may be in (a file does not say which: AmbiX unless the bed declares
/// FuMa) and how Earshot would play it as a bed (`AudioEngine.openBed`).
extension InfoCommand {
    /// The order of a full-sphere ambisonic file of `channels` channels, nil for other counts.
    static func ambisonicOrder(channels: Int) -> Int? {
        try? AmbisonicFormat.order(channels: channels)
    }

    /// One line of text, nil when the count is no ambisonic order.
    static func ambisonicDescription(channels: Int) -> String? {
        guard let order = ambisonicOrder(channels: channels) else { return nil }
        let ordinal = ["", "first", "second", "third"][order]
        let play = order == 1
            ? "as a bed: one source through AL_EXT_BFORMAT3D with HRTF, 6 virtual loudspeakers without"
            : "as a bed: decoded onto \(AmbisonicDecoderMatrix(order: order).speakers.count) virtual loudspeakers (max-rE)"
        return "\(ordinal) order, full sphere (\(channels) channels): AmbiX (ACN/SN3D) unless the bed declares FuMa; \(play)"
    }

    /// The JSON object's `ambisonics` member: order and channels, or nil.
    static func ambisonicJSON(channels: Int) -> [String: Any]? {
        guard let order = ambisonicOrder(channels: channels) else { return nil }
        return ["order": order, "channels": channels, "formats": AmbisonicFormat.allCases.map(\.rawValue),
                "virtualLoudspeakers": AmbisonicDecoderMatrix(order: order).speakers.count]
    }
}
