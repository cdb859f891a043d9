/// What the music streamer has done: for the engine's stats, dashboards and the benchmark.
///
/// ```swift
/// let stats = engine.musicStats
/// assert(stats.underruns == 0)
/// ```
public struct MusicStats: Sendable, Equatable {
    /// Tracks playing now.
    public var playingTracks: Int
    /// Times a track's source ran dry while data remained (each was restarted). Always 0 on a
    /// loopback engine, whose renders refill first.
    public var underruns: Int
    /// CPU time the streamer has spent (decoding, queueing, gain updates), in seconds, measured
    /// per thread around every refill.
    public var streamerCPUSeconds: Double
    /// File frames decoded and queued since the engine started.
    public var framesQueued: Int
}
