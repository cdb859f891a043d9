import Earshot

/// A render's loudness as it is written: a ``LoudnessMeter`` over the whole section, and its
/// momentary and short-term loudness every 100 ms for the plot's loudness lane.
///
/// ```swift
/// var trace = try LoudnessTrace(sampleRate: 48_000, channels: 2)
/// try trace.add([Float](repeating: 0.1, count: 2 * 48_000))
/// print(trace.points.count, trace.meter.reading().summary)   // 10 points: one every 100 ms
/// ```
public struct LoudnessTrace {
    /// One reading every 100 ms of audio: its end (seconds) and the momentary and short-term
    /// loudness there (LUFS, nil for silence).
    public struct Point: Sendable, Equatable {
        public var time: Double
        public var momentary: Double?
        public var shortTerm: Double?
    }

    /// The most points kept (36,000: an hour); past it, every second point is dropped and the
    /// spacing doubles, so a long render's trace stays bounded.
    public static let maxPoints = 36_000

    public let meter: LoudnessMeter
    public private(set) var points: [Point] = []
    private let hop: Int
    private var stride = 1
    private var hops = 0
    private var sinceHop = 0

    public init(sampleRate: Int, channels: Int) throws(EarshotError) {
        meter = try LoudnessMeter(channels: channels, sampleRate: sampleRate)
        hop = sampleRate / 10
    }

    /// Adds interleaved audio (whole frames).
    public mutating func add(_ samples: UnsafeBufferPointer<Float>) throws(EarshotError) {
        let channels = meter.channels
        guard samples.count % channels == 0 else {
            throw .invalidArgument("loudness: \(samples.count) samples are not whole frames of \(channels) channels")
        }
        var offset = 0
        let frames = samples.count / channels
        while offset < frames {
            let n = min(frames - offset, hop - sinceHop)
            try meter.add(UnsafeBufferPointer(rebasing: samples[(offset * channels)..<((offset + n) * channels)]))
            offset += n
            sinceHop += n
            guard sinceHop == hop else { continue }
            sinceHop = 0
            hops += 1
            guard hops % stride == 0 else { continue }
            points.append(Point(time: Double(meter.frames) / Double(meter.sampleRate), momentary: meter.momentary,
                                shortTerm: meter.shortTerm))
            if points.count >= Self.maxPoints {
                points = points.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
                stride *= 2
            }
        }
    }

    public mutating func add(_ samples: [Float]) throws(EarshotError) {
        try samples.withUnsafeBufferPointer { (b) throws(EarshotError) in try add(b) }
    }
}
