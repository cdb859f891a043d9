import Foundation

/// Level over time per channel: RMS over consecutive windows (20 ms by default) of interleaved
/// float audio, as the renderer writes it.
///
/// ```swift
/// var trace = LevelTrace(sampleRate: 48_000, channels: 2)
/// let block = try engine.render(frames: 800)
/// block.withUnsafeBufferPointer { trace.add($0) }   // interleaved samples, any block size
/// trace.finish()
/// let left = trace.dBFS(channel: 0) // one value per 20 ms
/// ```
public struct LevelTrace: Sendable {
    public let sampleRate: Int
    public let channels: Int
    /// Frames per window.
    public let windowFrames: Int
    /// Linear RMS per channel, one value per window.
    public private(set) var rms: [[Float]]
    private var sums: [Double]
    private var framesInWindow = 0

    /// The quietest level reported, for silence (dBFS).
    public static let floorDB: Float = -120

    public init(sampleRate: Int, channels: Int, window: Double = 0.02) {
        precondition(sampleRate > 0 && channels > 0 && window > 0, "LevelTrace: bad format")
        self.sampleRate = sampleRate
        self.channels = channels
        windowFrames = max(1, Int((window * Double(sampleRate)).rounded()))
        rms = Array(repeating: [], count: channels)
        sums = Array(repeating: 0, count: channels)
    }

    /// Seconds per window.
    public var windowSeconds: Double { Double(windowFrames) / Double(sampleRate) }

    /// Adds interleaved samples (whole frames).
    public mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        precondition(samples.count % channels == 0, "LevelTrace.add: not whole frames")
        var i = 0
        while i < samples.count {
            for c in 0..<channels {
                let s = Double(samples[i + c])
                sums[c] += s * s
            }
            i += channels
            framesInWindow += 1
            if framesInWindow == windowFrames { closeWindow() }
        }
    }

    /// Closes a partial last window.
    public mutating func finish() {
        if framesInWindow > 0 { closeWindow() }
    }

    private mutating func closeWindow() {
        for c in 0..<channels {
            rms[c].append(Float((sums[c] / Double(framesInWindow)).squareRoot()))
            sums[c] = 0
        }
        framesInWindow = 0
    }

    /// One channel's levels in dBFS (20·log10 RMS; ``floorDB`` for silence).
    public func dBFS(channel: Int) -> [Float] {
        rms[channel].map { $0 > 0 ? max(Self.floorDB, 20 * log10f($0)) : Self.floorDB }
    }
}
