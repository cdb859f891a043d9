@testable import Earshot
import COpenAL
import EarshotMeasure
import Foundation
import XCTest

/// The EFX layer on its own (no engine): a raw loopback device and context, one source, one
/// auxiliary slot holding an EAX reverb set from a preset of `efx-presets.h`. What comes out of
/// the render is measured: a tail exists only with the send, and its decay follows the preset.
final class EFXRenderTests: XCTestCase {
    private let rate = 48_000

    /// Renders a 5 ms burst at 1 m ahead, sent (or not) to a slot holding `preset`, for `seconds`.
    /// Returns the mono sum of the stereo output.
    private func renderBurst(preset: String?, seconds: Double, sendGain: Float = 1) throws -> [Float] {
        let device = try OutputDevice.open(.loopback(sampleRate: rate))
        defer { device.close() }
        let context = try ALContext(device: device, request: .init(monoSources: 4, stereoSources: 1))
        defer { context.destroy() }
        let support = context.withCurrent { EFXSupport.read(device: device.handle) }
        XCTAssertTrue(support.isAvailable, "OpenAL Soft 1.19.1 has ALC_EXT_EFX")
        XCTAssertGreaterThanOrEqual(support.maxAuxiliarySends, 2)

        let burst = (0..<(rate / 200)).map { i in Int16(clamping: Int(12_000 * sin(Double(i) * 0.9) * (i % 7 == 0 ? 1 : 0.6))) }
        return try context.withCurrent { () throws -> [Float] in
            var buffer: ALuint = 0, source: ALuint = 0
            alGenBuffers(1, &buffer)
            burst.withUnsafeBytes { alBufferData(buffer, AL_FORMAT_MONO16, $0.baseAddress, ALsizei($0.count), ALsizei(rate)) }
            alGenSources(1, &source)
            alSourcei(source, AL_BUFFER, ALint(buffer))
            alSource3f(source, AL_POSITION, 0, 0, -1)
            var slot: ALuint = 0, effect: ALuint = 0
            if let preset {
                slot = try EFX.makeSlot()
                effect = try EFX.makeEffect(type: AL_EFFECT_EAXREVERB)
                try EFX.setReverb(effect, try ReverbProperties.preset(named: preset))
                try EFX.attach(effect, to: slot)
                try EFX.setSlotGain(slot, sendGain)
                try EFX.route(source, send: 0, to: slot, filter: 0)
            }
            XCTAssertEqual(alGetError(), AL_NO_ERROR)
            alSourcePlay(source)
            var out = [Float](repeating: 0, count: Int(seconds * Double(rate)) * 2)
            out.withUnsafeMutableBufferPointer { device.renderLoopback(into: $0) }
            alSourceStop(source)
            alSourcei(source, AL_BUFFER, 0)
            try EFX.route(source, send: 0, to: 0, filter: 0)
            alDeleteSources(1, &source)
            alDeleteBuffers(1, &buffer)
            if preset != nil {
                EFX.deleteSlot(slot)
                EFX.deleteEffect(effect)
            }
            XCTAssertEqual(alGetError(), AL_NO_ERROR)
            return stride(from: 0, to: out.count, by: 2).map { out[$0] + out[$0 + 1] }
        }
    }

    /// Energy in 10 ms windows, in dB.
    private func envelope(_ x: [Float]) -> [Double] {
        let w = rate / 100
        return stride(from: 0, to: x.count - w, by: w).map { start in
            Level.dB(power: Level.meanSquare(x[start..<(start + w)]))
        }
    }

    func testPresetsAreTheHeadersAndUnknownNamesSuggestNearOnes() throws {
        XCTAssertEqual(ReverbProperties.presetNames.count, 113)
        XCTAssertEqual(ReverbProperties.presetNames.first, "generic")
        let hangar = try ReverbProperties.preset(named: "hangar")
        XCTAssertEqual(hangar.decayTime, 10.05, accuracy: 1e-4)
        XCTAssertEqual(try ReverbProperties.preset(named: "Castle-SmallRoom"), try ReverbProperties.preset(named: "castle_smallroom"))
        for name in ReverbProperties.presetNames { XCTAssertNoThrow(try ReverbProperties.preset(named: name).validated(), name) }
        XCTAssertThrowsError(try ReverbProperties.preset(named: "hangr")) { error in
            XCTAssertEqual((error as? EarshotError)?.description,
                           "invalid argument: no reverb preset named \"hangr\" (did you mean 'hangar'?)")
        }
        XCTAssertEqual(ReverbProperties.suggestions(for: "smallroom").first.map { $0.hasSuffix("smallroom") }, true)
        var bad = hangar
        bad.decayTime = 50
        XCTAssertThrowsError(try bad.validated())
    }

    /// A dry burst ends with the burst; sent to a hangar it leaves a tail.
    func testReverbSendLeavesATailThatADryRenderHasNot() throws {
        let dry = envelope(try renderBurst(preset: nil, seconds: 1.5))
        let wet = envelope(try renderBurst(preset: "hangar", seconds: 1.5))
        // 0.5 s and 1 s after the burst: silence dry; wet, a tail (the burst's energy spread over
        // ten seconds: about 50 dB below the burst's 10 ms peak) that has fallen little.
        XCTAssertLessThan(dry[50], -150, "dry: nothing after the burst")
        XCTAssertLessThan(dry[100], -150)
        let peak = wet[0...2].max()!
        XCTAssertGreaterThan(wet[50], peak - 60, "wet: the tail is still there")
        XCTAssertEqual(wet[100], wet[50], accuracy: 6, "a 10 s tail falls about 3 dB in 0.5 s")
    }

    /// The tail's decay follows the preset: T60 estimated in the 1 kHz band (where EAX reverb
    /// decays in exactly `decayTime`) within 20 % of it for a long and two short presets. 20 %:
    /// the estimate is a straight-line fit to a curve that early reflections, modulation and
    /// diffusion keep from being straight, over only a 20 dB span; a wrong preset is off by far
    /// more (the three differ by 1.2× to 8×). The long one outlasts the short one by far.
    func testDecayFollowsThePreset() throws {
        var estimates: [String: Double] = [:]
        for (name, seconds) in [("hangar", 14.0), ("castle_smallroom", 3.0), ("bathroom", 3.0)] {
            let preset = try ReverbProperties.preset(named: name)
            let t60 = ReverbMeasures.decayTime(ReverbMeasures.midBand(try renderBurst(preset: name, seconds: seconds), rate: rate), rate: rate)
            estimates[name] = t60
            print("EFXRenderTests: \(name) preset decayTime \(preset.decayTime) s, estimated T60 \(t60) s")
            XCTAssertEqual(t60, Double(preset.decayTime), accuracy: Double(preset.decayTime) * 0.2,
                           "\(name): estimated T60 \(t60) s, preset \(preset.decayTime) s")
        }
        XCTAssertGreaterThan(estimates["hangar"]!, 4 * estimates["castle_smallroom"]!)
    }
}

/// The zone mixer on a raw loopback context: a looping tone sent to every slot while
/// the listener walks from a small room into a hangar.
final class ReverbZoneMixerTests: XCTestCase {
    private let rate = 48_000

    private struct Rig {
        let device: OutputDevice
        let context: ALContext
        let mixer: ReverbZoneMixer
        var source: ALuint = 0
        var buffer: ALuint = 0
    }

    /// Renders `steps` blocks of 10 ms; before each, the listener is put at `position(step)`.
    private func walk(steps: Int, zones: [ReverbZone], glideTime: Double = 0.05, position: (Int) -> Vector3) throws -> [Float] {
        let device = try OutputDevice.open(.loopback(sampleRate: rate))
        defer { device.close() }
        let context = try ALContext(device: device, request: .init(monoSources: 4, stereoSources: 1))
        defer { context.destroy() }
        // A steady 500 Hz tone (whole periods, so the loop is seamless): its reverb is steady too.
        let noise = (0..<rate).map { i in Int16(8_000 * sin(2 * Double.pi * 500 * Double(i) / Double(rate))) }
        return try context.withCurrent { () throws -> [Float] in
            let mixer = try ReverbZoneMixer(sends: 2, glideTime: glideTime)
            mixer.setZones(zones)
            // Only the reverb is heard: the direct path goes through a closed low-pass.
            let mute = try EFX.makeLowPass()
            try EFX.setLowPass(mute, gain: 0, gainHF: 0)
            var buffer: ALuint = 0, source: ALuint = 0
            alGenBuffers(1, &buffer)
            noise.withUnsafeBytes { alBufferData(buffer, AL_FORMAT_MONO16, $0.baseAddress, ALsizei($0.count), ALsizei(rate)) }
            alGenSources(1, &source)
            alSourcei(source, AL_BUFFER, ALint(buffer))
            alSourcei(source, AL_LOOPING, 1)
            alSourcei(source, AL_SOURCE_RELATIVE, 1)
            alSource3f(source, AL_POSITION, 0, 0, -1)
            for (i, slot) in mixer.slots.enumerated() { try EFX.route(source, send: i, to: slot, filter: 0) }
            try EFX.setDirectFilter(source, mute)
            alSourcePlay(source)
            var out: [Float] = []
            let block = rate / 100
            var chunk = [Float](repeating: 0, count: block * 2)
            for step in 0..<steps {
                var listener = Listener()
                listener.position = position(step)
                alListener3f(AL_POSITION, listener.position.x, listener.position.y, listener.position.z)
                try mixer.step(listener: listener, elapsed: 0.01)
                chunk.withUnsafeMutableBufferPointer { device.renderLoopback(into: $0) }
                out += chunk
            }
            alSourceStop(source)
            for i in mixer.slots.indices { try EFX.route(source, send: i, to: 0, filter: 0) }
            alDeleteSources(1, &source)
            alDeleteBuffers(1, &buffer)
            EFX.deleteFilter(mute)
            mixer.teardown()
            XCTAssertEqual(alGetError(), AL_NO_ERROR)
            return out
        }
    }

    /// RMS of consecutive 5 ms windows, after the first 0.1 s.
    private func levels(_ x: [Float]) -> [Double] {
        let w = rate / 200 * 2   // stereo samples in 5 ms
        return stride(from: rate / 5, to: x.count - w, by: w).map { start in
            Level.rms(stream: x[start..<(start + w)])
        }
    }

    /// The largest difference between consecutive samples of one channel relative to the
    /// signal's own peak around it (5 ms windows louder than −80 dBFS), after the first 0.1 s:
    /// a tone's steps are its slope; a click is a step out of proportion with the signal.
    private func largestStep(_ x: [Float]) -> Float {
        let w = rate / 200 * 2
        var worst: Float = 0
        for start in stride(from: rate / 5, to: x.count - w, by: w) {
            var step: Float = 0, peak: Float = 0
            for i in start..<(start + w) {
                step = max(step, abs(x[i] - x[i - 2]))
                peak = max(peak, abs(x[i]))
            }
            if peak > 1e-4 { worst = max(worst, step / peak) }
        }
        return worst
    }

    /// The largest change of RMS between consecutive 5 ms windows, as a fraction of `reference`.
    private func largestLevelJump(_ x: [Float], reference: Double) -> Double {
        let l = levels(x)
        return zip(l, l.dropFirst()).map { abs($1 - $0) / reference }.max() ?? 0
    }

    private func zones(fade: Float = 2) throws -> [ReverbZone] {
        try [ReverbZone(name: "room", shape: .box(center: Vector3(-5, 0, 0), size: Vector3(6, 3, 6)),
                        reverb: ReverbProperties.preset(named: "castle_smallroom"), fade: fade).validated(),
             ReverbZone(name: "hangar", shape: .box(center: Vector3(20, 5, 0), size: Vector3(30, 10, 30)),
                        reverb: ReverbProperties.preset(named: "hangar"), fade: fade).validated()]
    }

    /// 4 s walking from the room (x = −5) into the hangar (x = 10), hearing only the reverb of a
    /// steady tone: the RMS of the wet signal (5 ms windows) never changes between two windows by
    /// more than it does standing still in either place while that place's reverb builds up from
    /// silence (a slot's gain scales what enters the reverb, so walking in starts the hangar's
    /// tail from nothing, as standing there from the start does). As a fraction of the louder
    /// place's level, within half again (the glide feeds the reverb gradually, standing still
    /// feeds it at once: not the same build-up). A naive switch — zones with no fade and no
    /// glide — jumps about twice as much (measured: 0.15 walking, 0.11 standing, 0.29 naive).
    /// And no sample step is out of proportion with the signal around it (at most twice the
    /// tone's own relative step standing still: a click is tens of times that; OpenAL Soft
    /// ramps slot gains itself, so this guards against clicks, not against zipper).
    func testWalkingBetweenZonesCrossfadesWithoutSteps() throws {
        let path: (Int) -> Vector3 = { step in Vector3(-5 + 15 * Float(step) / 400, 1.5, 0) }
        let walking = try walk(steps: 400, zones: zones(), position: path)
        let inRoom = try walk(steps: 400, zones: zones()) { _ in Vector3(-5, 1.5, 0) }
        let inHangar = try walk(steps: 400, zones: zones()) { _ in Vector3(10, 1.5, 0) }
        let reference = max(levels(inRoom).reduce(0, +) / Double(levels(inRoom).count),
                            levels(inHangar).reduce(0, +) / Double(levels(inHangar).count))
        let standing = max(largestLevelJump(inRoom, reference: reference), largestLevelJump(inHangar, reference: reference))
        let switched = try walk(steps: 400, zones: zones(fade: 0), glideTime: 0) { step in
            Vector3(-5 + 15 * Float(step) / 400, 1.5, 0)
        }
        let walk = largestLevelJump(walking, reference: reference), naive = largestLevelJump(switched, reference: reference)
        print("ReverbZoneMixerTests: largest 5 ms RMS change walking \(walk), standing \(standing), naive switch \(naive) (of the level)")
        XCTAssertLessThanOrEqual(walk, standing * 1.5, "a click or zipper step while walking")
        XCTAssertGreaterThan(naive, walk * 1.6, "the measure sees a hard switch")
        let ownStep = max(largestStep(inRoom), largestStep(inHangar))
        print("ReverbZoneMixerTests: largest relative sample step walking \(largestStep(walking)), standing \(ownStep), naive \(largestStep(switched))")
        XCTAssertLessThanOrEqual(largestStep(walking), ownStep * 2)
    }

    /// The mixer follows the choice: inside the room only the room's slot sounds; walking out of
    /// every zone fades both to silence; zones removed fade out too.
    func testSlotsFollowTheZones() throws {
        let device = try OutputDevice.open(.loopback(sampleRate: rate))
        defer { device.close() }
        let context = try ALContext(device: device, request: .init(monoSources: 4, stereoSources: 1))
        defer { context.destroy() }
        try context.withCurrent { () throws in
            let mixer = try ReverbZoneMixer(sends: 2, glideTime: 0.05)
            defer { mixer.teardown() }
            mixer.setZones(try zones())
            let inRoom = Listener(position: Vector3(-5, 1.5, 0))
            try mixer.step(listener: inRoom, elapsed: 0.01)
            XCTAssertEqual(mixer.states[0].zone, "room")
            XCTAssertEqual(mixer.states[0].gain, 0.2, accuracy: 1e-6, "10 ms of a 50 ms glide")
            for _ in 0..<10 { try mixer.step(listener: inRoom, elapsed: 0.01) }
            XCTAssertEqual(mixer.states[0].gain, 1)
            XCTAssertNil(mixer.states[1].zone)
            var slotGain: ALfloat = -1
            alGetAuxiliaryEffectSlotf(mixer.slots[0], AL_EFFECTSLOT_GAIN, &slotGain)
            XCTAssertEqual(slotGain, 1, "sent to OpenAL")
            let outside = Listener(position: Vector3(-5, 1.5, 40))
            for _ in 0..<3 { try mixer.step(listener: outside, elapsed: 0.01) }
            XCTAssertEqual(mixer.states[0].gain, 0.4, accuracy: 1e-5, "fading out, not cut")
            for _ in 0..<10 { try mixer.step(listener: outside, elapsed: 0.01) }
            XCTAssertNil(mixer.states[0].zone)
            XCTAssertFalse(mixer.isActive == false && mixer.zones.isEmpty)
            mixer.setZones([])
            XCTAssertFalse(mixer.isActive)
            XCTAssertEqual(alGetError(), AL_NO_ERROR)
        }
    }
}
