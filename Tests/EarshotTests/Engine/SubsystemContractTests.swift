@testable import Earshot
import Foundation
import XCTest

/// The engine drives every subsystem through one contract (Engine/EngineSubsystem.swift): a
/// subsystem attached from outside the engine — as a bank or a monitor will be — hears every
/// frame, render, bus change, device loss and restoration and the shutdown, in order, with no
/// engine lock held; and the engine's own parts (music, the meter, the session) sit in the same
/// list. The recorder below is a real subsystem of a real loopback engine, not a mock: it is the
/// contract's own client.
final class SubsystemContractTests: XCTestCase {
    typealias Hook = Recorder.Hook
    /// Records every hook it hears, and whether the AL lock was free when it did.
    final class Recorder: EngineSubsystem {
        enum Hook: Equatable {
            case beginFrame, endFrame(BusChanges), willRender(Int), didRender(Int, Float)
            case busesChanged(BusChanges), deviceLost, deviceRestored, shutdown
        }
        let hooks = Locked<[Hook]>([])
        let lockedCalls = Locked(0)

        private func note(_ hook: Hook) {
            if ALGlobal.lock.isHeldByCurrentThread { lockedCalls.withLock { $0 += 1 } }
            hooks.withLock { $0.append(hook) }
        }
        func take() -> [Hook] { hooks.withLock { h in defer { h = [] }; return h } }

        func beginFrame(_ engine: AudioEngine) { note(.beginFrame) }
        func endFrame(_ engine: AudioEngine, changes: BusChanges) { note(.endFrame(changes)) }
        func willRender(_ engine: AudioEngine, frames: Int) { note(.willRender(frames)) }
        func didRender(_ engine: AudioEngine, _ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
            note(.didRender(buffer.count / channels, buffer.map(abs).max() ?? 0))
        }
        func busesChanged(_ engine: AudioEngine, _ changes: BusChanges) { note(.busesChanged(changes)) }
        func deviceLost(_ engine: AudioEngine) { note(.deviceLost) }
        func deviceRestored(_ engine: AudioEngine, _ restoration: DeviceRestoration) { note(.deviceRestored) }
        func shutdown(_ engine: AudioEngine) { note(.shutdown) }
    }

    func testTheEngineOwnPartsAreSubsystems() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        XCTAssertTrue(e.subsystems.contains { $0 === e.musicSystem })
        XCTAssertTrue(e.subsystems.contains { $0 === e.outputMeter })
        XCTAssertTrue(e.subsystems.contains { $0 === e.sessionSlot })
        XCTAssertEqual(e.context.withCurrent { e.core.stages.count }, 8,
                       "the mix, the VCAs' fades, the parameters, the environment, the parameters' filters, the timelines, the rooms and the buses' loudness step inside the core's frame")
        XCTAssertTrue(e.context.withCurrent { e.core.stages.contains { $0 === e.core.vcaTable } })
        XCTAssertTrue(e.context.withCurrent { e.core.stages.contains { $0 === e.core.timelines } })
        XCTAssertTrue(e.context.withCurrent { e.core.stages.contains { $0 === e.core.busLoudness } })
    }

    func testFramesAndRendersReachAnAttachedSubsystem() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let r = Recorder()
        try e.attach(r)
        let tone = try e.loadClip(TestSignals.sine(seconds: 1), name: "tone")
        _ = try e.play(tone, options: .init(loop: true))
        e.update(deltaTime: 1 / 60)
        let out = try e.render(frames: 800)
        let heard = r.take()
        XCTAssertEqual(heard.count, 4)
        XCTAssertEqual(heard.first, .beginFrame)
        guard heard.count == 4, case .endFrame = heard[1], case .didRender(let frames, let peak) = heard[3] else {
            return XCTFail("hooks out of order: \(heard)")
        }
        XCTAssertEqual(heard[2], .willRender(800))
        XCTAssertEqual(frames, 800)
        XCTAssertEqual(peak, out.map(abs).max() ?? -1, "didRender sees the output as it leaves the engine")
        XCTAssertGreaterThan(peak, 0.1)
        XCTAssertEqual(r.lockedCalls.withLock { $0 }, 0, "no hook runs under the AL lock")
    }

    func testBusChangesAreDeliveredOnceWithWhatChanged() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let r = Recorder()
        try e.attach(r)
        try e.setGain(0.5, for: .sfx)
        XCTAssertEqual(r.take(), [.busesChanged(BusChanges(levels: true))])
        try e.setGain(0.5, for: .sfx)
        XCTAssertEqual(r.take(), [], "an unchanged gain is no change")
        try e.setPaused(true, for: .ui)
        XCTAssertEqual(r.take(), [.busesChanged(BusChanges(holds: true))])
        try e.stopAll(on: .voice)
        XCTAssertEqual(r.take(), [.busesChanged(BusChanges(stopped: [.voice]))])
        XCTAssertThrowsError(try e.setGain(2, for: Bus("nope")))
        XCTAssertEqual(r.take(), [], "a refused call changes nothing")

        // A snapshot begun at once moves the music bus in the call; one ending over half a
        // second moves it frame by frame, and each frame's end carries the change.
        let quiet = Snapshot("quiet", busGains: [.music: -12])
        try e.begin(quiet)
        XCTAssertEqual(r.take(), [.busesChanged(BusChanges(levels: true))])
        e.end(quiet, fade: 0.5)
        XCTAssertEqual(r.take(), [], "a fade that has not moved yet changes nothing")
        var frames: [Hook] = []
        for _ in 0..<3 {
            _ = try e.render(frames: 4_800)
            e.update(deltaTime: 0.1)
            frames += r.take().filter { if case .endFrame = $0 { return true } else { return false } }
        }
        XCTAssertEqual(frames, Array(repeating: .endFrame(BusChanges(levels: true)), count: 3))
        XCTAssertEqual(try e.snapshotGain(for: .music), Float(pow(10, -12.0 * 0.4 / 20)), accuracy: 0.01, "weight 0.4 after 0.3 s of 0.5 (dB add)")
    }

    func testDeviceLossRestorationAndShutdownReachAnAttachedSubsystem() throws {
        let e = try TestSignals.loopbackEngine()
        let r = Recorder()
        try e.attach(r)
        e.simulateDeviceLoss()
        e.update(deltaTime: 1 / 60)
        XCTAssertTrue(e.isDeviceLost)
        XCTAssertTrue(r.take().contains(.deviceLost))
        let deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline { usleep(2_000); e.update(deltaTime: 1 / 60) }
        XCTAssertFalse(e.isDeviceLost)
        XCTAssertTrue(r.take().contains(.deviceRestored))
        e.shutdown()
        e.shutdown()
        XCTAssertEqual(r.take(), [.shutdown], "once, however often shutdown is called")
        XCTAssertThrowsError(try e.attach(Recorder())) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertEqual(r.lockedCalls.withLock { $0 }, 0)
    }

    /// Music owns its sources: made when the engine is, never the voice pool's, made again on a
    /// new device, and a play takes the AL lock once. The stream system's sources are music's
    /// and the beds' (``AudioEngine/Configuration/bedSources``), kept in two pools.
    func testMusicMakesItsOwnSources() throws {
        let e = try TestSignals.loopbackEngine { $0.musicSources = 3; $0.bedSources = 2 }
        defer { e.shutdown() }
        let names = e.musicSystem.withMusicLock { _ in e.musicSystem.sources }
        XCTAssertEqual(names.count, 5)
        XCTAssertEqual(e.musicSystem.withMusicLock { _ in e.musicSystem.freeSources.count }, 3, "music's own")
        XCTAssertEqual(e.musicSystem.withMusicLock { _ in e.musicSystem.freeFieldSources.count }, 2, "the beds'")
        XCTAssertTrue(Set(names).isDisjoint(with: e.context.withCurrent { e.core.voiceSources }))
        e.simulateDeviceLoss()
        e.update(deltaTime: 1 / 60)
        XCTAssertEqual(e.musicSystem.withMusicLock { _ in e.musicSystem.sources }, [], "none handed out while the device is lost")
        let deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline { usleep(2_000); e.update(deltaTime: 1 / 60) }
        XCTAssertEqual(e.musicSystem.withMusicLock { _ in e.musicSystem.sources.count }, 5)
        XCTAssertEqual(e.musicSystem.withMusicLock { _ in e.musicSystem.freeFieldSources.count }, 2, "the beds' again on the new device")
    }
}

extension BusChanges {
    init(levels: Bool = false, holds: Bool = false, stopped: [Bus] = []) {
        self.init()
        self.levels = levels
        self.holds = holds
        self.stopped = stopped
    }
}
