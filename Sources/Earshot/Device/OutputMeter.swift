import Foundation
import Synchronization

/// Meters what a loopback engine renders: the last ~50 ms of the master output, per channel.
///
/// Opt-in (``AudioEngine/isOutputMeteringEnabled``): when off, the render path pays one atomic
/// load. When on, each render copies at most the last window's worth of frames into a ring, and
/// ``AudioEngine/outputMeters()`` measures the ring on demand. A real device's mix happens inside
/// OpenAL's own thread and is not visible to Earshot, so this meter exists for loopback engines.
///
/// An ``EngineSubsystem``: it records each render as it leaves the engine (after the limiter).
final class OutputMeter: EngineSubsystem {
    let enabled = Atomic<Bool>(false)
    /// The ring of the last window's frames and where it is written next.
    private struct Ring {
        var samples: [Float] = []
        var channels = 2
        var windowFrames = 2_400
        var writeFrame = 0
        var filled = 0
    }
    private let ring = Locked(Ring())

    /// Sets the window length and clears the ring.
    func configure(sampleRate: Int, channels: Int, window: Double = 0.05) {
        ring.withLock { r in
            r.channels = channels
            r.windowFrames = max(1, Int((Double(sampleRate) * window).rounded()))
            r.samples = [Float](repeating: 0, count: r.windowFrames * channels)
            r.writeFrame = 0
            r.filled = 0
        }
    }

    /// Records a rendered block (interleaved, whole frames).
    func record(_ block: UnsafeMutableBufferPointer<Float>, channels blockChannels: Int) {
        guard enabled.load(ordering: .relaxed) else { return }
        ring.withLock { r in
            guard blockChannels == r.channels, !r.samples.isEmpty else { return }
            let channels = r.channels, windowFrames = r.windowFrames
            let frames = block.count / channels
            let first = max(0, frames - windowFrames)   // older frames would be overwritten in this block
            let count = frames - first
            guard count > 0, let from = block.baseAddress else { return }   // nothing to record
            let start = r.writeFrame
            // At most two runs: from the write position to the ring's end, then from its start.
            let tailRun = min(count, windowFrames - start)
            r.samples.withUnsafeMutableBufferPointer { dest in
                guard let to = dest.baseAddress else { return }
                (to + start * channels).update(from: from + first * channels, count: tailRun * channels)
                to.update(from: from + (first + tailRun) * channels, count: (count - tailRun) * channels)
            }
            r.writeFrame = (start + count) % windowFrames
            r.filled = min(windowFrames, r.filled + count)
        }
    }

    /// The levels of the frames recorded in the last window.
    func reading() -> MeterReading {
        ring.withLock { r in
            var acc = MeterReading.Accumulator(channels: r.channels)
            let filled = r.filled, windowFrames = r.windowFrames
            // The oldest recorded frame sits `filled` frames before the write position.
            let start = (r.writeFrame - filled + windowFrames) % windowFrames
            r.samples.withUnsafeBufferPointer { buf in
                let firstRun = min(filled, windowFrames - start)
                acc.add(buf, start: start, frames: firstRun)
                acc.add(buf, start: 0, frames: filled - firstRun)
            }
            return acc.reading
        }
    }
}

extension OutputMeter {
    func didRender(_ engine: AudioEngine, _ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
        record(buffer, channels: channels)
    }
}
