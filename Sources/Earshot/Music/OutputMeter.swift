import Foundation
import Synchronization

/// Meters what a loopback engine renders: the last ~50 ms of the master output, per channel.
///
/// Opt-in (``AudioEngine/isOutputMeteringEnabled``): when off, the render path pays one atomic
/// load. When on, each render copies at most the last window's worth of frames into a ring, and
/// ``AudioEngine/outputMeters()`` measures the ring on demand. A real device's mix happens inside
/// OpenAL's own thread and is not visible to Earshot, so this meter exists for loopback engines.
final class OutputMeter: @unchecked Sendable {
    let enabled = Atomic<Bool>(false)
    private let lock = NSLock()
    private var ring: [Float] = []
    private var channels = 2
    private var windowFrames = 2_400
    private var writeFrame = 0
    private var filled = 0

    /// Sets the window length and clears the ring.
    func configure(sampleRate: Int, channels: Int, window: Double = 0.05) {
        lock.lock(); defer { lock.unlock() }
        self.channels = channels
        windowFrames = max(1, Int((Double(sampleRate) * window).rounded()))
        ring = [Float](repeating: 0, count: windowFrames * channels)
        writeFrame = 0
        filled = 0
    }

    /// Records a rendered block (interleaved, whole frames).
    func record(_ block: UnsafeMutableBufferPointer<Float>, channels blockChannels: Int) {
        guard enabled.load(ordering: .relaxed) else { return }
        lock.lock(); defer { lock.unlock() }
        guard blockChannels == channels, !ring.isEmpty else { return }
        let frames = block.count / channels
        let first = max(0, frames - windowFrames)   // older frames would be overwritten in this block
        let count = frames - first
        guard count > 0, let from = block.baseAddress else { return }   // nothing to record
        let channels = channels, start = writeFrame
        // At most two runs: from the write position to the ring's end, then from its start.
        let tailRun = min(count, windowFrames - start)
        ring.withUnsafeMutableBufferPointer { dest in
            guard let to = dest.baseAddress else { return }
            (to + start * channels).update(from: from + first * channels, count: tailRun * channels)
            to.update(from: from + (first + tailRun) * channels, count: (count - tailRun) * channels)
        }
        writeFrame = (start + count) % windowFrames
        filled = min(windowFrames, filled + count)
    }

    /// The levels of the frames recorded in the last window.
    func reading() -> MeterReading {
        lock.lock(); defer { lock.unlock() }
        var acc = MeterReading.Accumulator(channels: channels)
        ring.withUnsafeBufferPointer { buf in
            // The oldest recorded frame sits `filled` frames before the write position.
            let start = (writeFrame - filled + windowFrames) % windowFrames
            let firstRun = min(filled, windowFrames - start)
            acc.add(buf, start: start, frames: firstRun)
            acc.add(buf, start: 0, frames: filled - firstRun)
        }
        return acc.reading
    }
}
