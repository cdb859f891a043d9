import COpenAL

// Scheduled starts on a live device: a start time (or a delay) placed on the device's mixing
// clock, so that the voice pool can start the source early with a lead-in of silence that ends
// on the start's frame (Voices/VoicePool+LiveStarts.swift).
extension EngineCore {
    /// When a play with `delay` and `startTime` (checked: finite, ≥ 0) starts: the delay on the
    /// engine clock, and on a live device that reports its clock, the reading of the device's
    /// mixing clock at which its first frame must be mixed (NaN: no exact start, or now).
    ///
    /// On a loopback engine the engine clock is the audio clock: the delay is `delay` plus the
    /// time until `startTime`. On a live device, a sample mixed when the mixing clock
    /// (`ALC_DEVICE_CLOCK_SOFT`) reads `c` is heard when the clock minus the output latency
    /// reads `c` — which is what the audio clock counts. So `startTime` maps onto the mixing
    /// clock through the audio clock alone (``AudioClock/source(at:)``), without the jitter of
    /// reading it now; a `delay` counts from the mixing clock now (the frame a play now would be
    /// mixed on), so two plays `delay` apart in one frame are heard exactly that far apart.
    func scheduledStart(delay: Double, startTime: Double?) -> (delay: Double, mixTarget: Double) {
        guard delay > 0 || startTime != nil else { return (0, .nan) }   // now
        guard !isLoopback, usesDeviceClock, !isDeviceLost, let mixNow = device.mixClock() else {
            return (delay + (startTime.map { max(0, $0 - audioTime()) } ?? 0), .nan)
        }
        var target = mixNow + delay
        if let startTime {
            guard let heard = audioClock.source(at: startTime) else {
                // Held (an interruption): nothing is heard; the start waits like any delay.
                return (delay + max(0, startTime - audioTime()), .nan)
            }
            target = heard + delay
        }
        guard target > mixNow else { return (0, .nan) }   // due already: at once
        return (target - mixNow, target)
    }
}
