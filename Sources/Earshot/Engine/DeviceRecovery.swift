import COpenAL
import Logging
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What happened to the engine's output device, delivered on ``AudioEngine/deviceEvents``.
public enum DeviceEvent: Sendable, Equatable {
    /// The device went away (sound server stopped, card unplugged). Every voice goes on
    /// virtually; music remembers where it was; the engine keeps trying to open a device.
    case lost(device: String)
    /// A device was opened again and everything rebuilt on it: clips uploaded again, voices
    /// resumed at their engine-clock offsets, music tracks refilled where they were.
    /// `fellBackFrom` names the configured device when it was gone and the default was used.
    case restored(device: String, fellBackFrom: String?)
}

/// Watches for the loss of a live device and opens a new one in the background.
///
/// Two signals mark a loss: OpenAL Soft's disconnect event (`AL_SOFTX_events` 0x1227, delivered on
/// OpenAL's event thread within milliseconds) and `ALC_CONNECTED` reading 0, polled at every
/// ``AudioEngine/update(deltaTime:)``. Reopening runs on its own thread, retrying with backoff
/// (0.1 s doubling to at most 0.5 s, so a returning sound server is heard within about half a
/// second); a configured named device that cannot be opened falls back to the default device.
final class DeviceRecovery: Sendable {
    /// Set by the event callback (any thread).
    let disconnected = Atomic<Bool>(false)
    private let opened = Locked<(device: OutputDevice, fellBackFrom: String?)?>(nil)
    private let cancelled = Atomic<Bool>(false)
    private let attempting = Atomic<Bool>(false)
    /// Every consumer of ``AudioEngine/deviceEvents`` and ``AudioEngine/observeDeviceEvents(_:)``;
    /// finished by the engine's shutdown.
    let events = EventBroadcast<DeviceEvent>(capacity: 16)
    /// Consumers registered now (streams still being iterated, plus `observeDeviceEvents`).
    var observerCount: Int { events.consumerCount }
    /// Signalled by ``cancel()`` to cut the reopen loop's wait short.
    private let wake = DispatchSemaphore(value: 0)
    /// Tests: called once per rebuild with the reopened device's context made, before the core
    /// takes them (the window in which a shutdown must not leave them behind).
    let beforeRebuild = Locked<(@Sendable () -> Void)?>(nil)
    /// Tests: called once per rebuild between the core's rebuild and the music's reattach.
    let beforeMusicReattach = Locked<(@Sendable () -> Void)?>(nil)
    private let logger = EarshotLogging.logger("earshot.device")

    /// Subscribes this watcher to the context's disconnect event, when the extension exists.
    /// Called with the context current (AL lock held).
    func listen(on context: ALContext) {
        guard context.has("AL_SOFTX_events") else { return }
        let callback = alGetProcAddress("alEventCallbackSOFT")
        let control = alGetProcAddress("alEventControlSOFT")
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard earshot_al_event_callback(callback, { type, _, _, _, _, user in
            guard type == AL_EVENT_TYPE_DISCONNECTED_SOFTX, let user else { return }
            Unmanaged<DeviceRecovery>.fromOpaque(user).takeUnretainedValue().disconnected.store(true,
                ordering: .releasing)
        }, user) != 0 else { return }
        var types: [ALenum] = [AL_EVENT_TYPE_DISCONNECTED_SOFTX]
        _ = earshot_al_event_control(control, 1, &types, ALboolean(AL_TRUE))
        ALCheck.after("alEventControlSOFT(disconnected)")
    }

    /// Starts the background reopen loop (once per loss).
    func startReopening(_ output: Output) {
        guard !attempting.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            var delay = 0.1
            while !cancelled.load(ordering: .acquiring) {
                if let result = Self.tryOpen(output) {
                    opened.withLock { $0 = result }
                    break
                }
                // cancel() signals: shutdown does not wait out the backoff.
                _ = wake.wait(timeout: .now() + delay)
                delay = min(delay * 2, 0.5)
            }
            attempting.store(false, ordering: .releasing)
        }
        thread.name = "earshot.reopen"
        thread.start()
    }

    private static func tryOpen(_ output: Output) -> (device: OutputDevice, fellBackFrom: String?)? {
        if case .device(let name) = output {
            if let d = try? OutputDevice.open(output) { return (d, nil) }
            if let d = try? OutputDevice.open(.systemDefault) { return (d, name) }
            return nil
        }
        return (try? OutputDevice.open(output)).map { ($0, nil) }
    }

    /// The device the reopen loop opened, if any (handed over once).
    func takeOpened() -> (device: OutputDevice, fellBackFrom: String?)? {
        opened.withLock { value in
            defer { value = nil }
            return value
        }
    }

    /// Stops the reopen loop and closes a device it opened but nobody took.
    /// The loop stops within one open attempt (the wait between attempts is cut short).
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        wake.signal()
        while attempting.load(ordering: .acquiring) { usleep(200) }
        takeOpened()?.device.closeAsOwner()
    }

    /// Whether ``cancel()`` ran (the engine is shutting down): nothing is reopened any more.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func emit(_ event: DeviceEvent) {
        switch event {
        case .lost(let name): logger.warning("output device lost: \(name); playing on virtually while reopening")
        case .restored(let name, let from):
            if let from { logger.warning("device \"\(from)\" is gone; fell back to the default device \"\(name)\"") }
            logger.notice("output device restored: \(name)")
        }
        events.send(event)
    }
}

extension EngineCore {
    /// Rebuilds everything on a new device: context current, sources, clips, listener. The AL
    /// lock is held; `current` is its value. Voices must already be suspended (all virtual).
    func rebuild(on device: OutputDevice, context: ALContext, current: inout UInt) throws(EarshotError) {
        let old = (self.device, self.context)
        self.device = device
        self.context = context
        context.makeCurrent(locked: &current)
        do {
            try rebuildObjects()
        } catch {
            self.device = old.0
            self.context = old.1
            old.1.makeCurrent(locked: &current)
            throw error
        }
        old.1.destroy(locked: &current)
        old.0.closeAsOwner()
        context.makeCurrent(locked: &current)
    }

    private func rebuildObjects() throws(EarshotError) {
        let voiceCount = configuration.voiceSourceCount(on: context)
        voiceSources = try ALSourceNames.generate(max(0, voiceCount))
        try reuploadClips()
        pool.replaceSources(voiceSources)
        pool.setSettleTime(2 / Double(max(device.integer(ALC_REFRESH), 1)))
        try applyGlobalState()
        syncBuses()
        for stage in stages { try stage.rebuild(self) }
        // The new device's clock starts afresh: the audio clock runs on from where it stood.
        restartAudioClock()
    }
}

extension AudioEngine {
    /// Whether the output device is lost (voices play on virtually until it is back).
    public var isDeviceLost: Bool { withAL { core.isDeviceLost } }

    /// Device losses and restorations, as they happen: a new stream on every read, and every
    /// stream sees every event (several consumers each get them all). A consumer that falls
    /// behind keeps its newest 16 events; older ones drop, for it alone.
    ///
    /// Each stream observes the engine only while it is iterated: when its consumer stops (the
    /// loop breaks or its task is cancelled) the observation ends, so reading the property
    /// many times leaks nothing. ``shutdown()`` finishes every stream (a `for await` loop over
    /// it ends after the events already buffered), and a stream read after shutdown is finished
    /// at once. No event follows the end: a device restored while the engine shuts down is closed,
    /// not announced.
    ///
    /// ```swift
    /// Task {
    ///     for await event in engine.deviceEvents {
    ///         if case .lost = event { print("audio device lost: the game's banner goes here") }
    ///     }
    /// }
    /// ```
    public var deviceEvents: AsyncStream<DeviceEvent> { recovery.events.stream() }

    /// Calls `observer` (on the thread that calls ``update(deltaTime:)``) for every device event,
    /// until ``shutdown()``.
    public func observeDeviceEvents(_ observer: @escaping @Sendable (DeviceEvent) -> Void) {
        recovery.events.observe(observer)
    }

    /// The sound server's default output changed, or the output the engine played on went away
    /// (from the ``DefaultOutputSource``'s thread; the sound server has moved the stream
    /// already). Ignored once shutdown has begun.
    func defaultOutputChanged(_ change: DefaultOutputChange) {
        guard !shutDownStarted.load(ordering: .acquiring) else { return }
        logger.notice("default output: \(change)")
        sessionSlot.existing?.noteRouteChange(change.reason)
    }

    /// Tests and the API fuzzer: behaves as if the device had just been disconnected (on a
    /// loopback engine the "reopened" device is a new loopback device). `package`: the fuzzer is
    /// a regular target, built in release too, where `@testable` is not available.
    package func simulateDeviceLoss() {
        recovery.disconnected.store(true, ordering: .releasing)
    }

    /// Per frame: notices a lost device, and rebuilds on a reopened one.
    ///
    /// Noticing and rebuilding run under ``lifecycle``, as ``shutdown()`` does: a rebuild never
    /// runs on a core already shut down, a device reopened meanwhile is closed (not leaked), and
    /// no event is announced once shutdown has begun.
    func checkDevice() {
        // One look under the lock per frame: just lost, waiting for a reopened device, or fine.
        guard lookAtDevice(consume: false) != 0 else { return }
        lifecycle.lock()
        defer { lifecycle.unlock() }
        guard !shutDownStarted.load(ordering: .acquiring) else { return }
        switch lookAtDevice(consume: true) {   // again: another thread may have handled it meanwhile
        case 1: deviceWasLost()
        case 2: rebuildOnReopenedDevice()
        default: return
        }
    }

    /// 0: fine (or shut down), 1: just lost, 2: lost, waiting for a reopened device.
    /// `consume`: the disconnect flag is taken (the look that acts on it).
    private func lookAtDevice(consume: Bool) -> Int {
        withAL { () -> Int in
            guard !core.isShutDown else { return 0 }
            if core.isDeviceLost { return 2 }
            let flagged = consume ? recovery.disconnected.exchange(false, ordering: .acquiringAndReleasing)
                                  : recovery.disconnected.load(ordering: .acquiring)
            return flagged || !core.device.isConnected ? 1 : 0
        }
    }

    /// The device went away: everything goes virtual, the subsystems hear of it (music keeps
    /// its tracks' positions, the session posts a route change), the reopen loop starts.
    /// (Lifecycle held.)
    private func deviceWasLost() {
        let name = device.name
        withAL { core.enterDeviceLost() }
        recovery.emit(.lost(device: name))
        eachSubsystem { $0.deviceLost(self) }
        recovery.startReopening(configuration.output)
    }

    /// Takes the device the reopen loop opened and rebuilds everything on it. (Lifecycle held:
    /// shutdown cannot run meanwhile but from this very thread, through an observer.)
    private func rebuildOnReopenedDevice() {
        guard let opened = recovery.takeOpened() else { return }
        let newContext: ALContext
        do {
            newContext = try ALContext(device: opened.device, request: configuration.contextRequest)
        } catch {
            logger.warning("reopened device \(opened.device.name) refused a context: \(error); retrying")
            opened.device.closeAsOwner()
            recovery.startReopening(configuration.output)
            return
        }
        recovery.beforeRebuild.withLock { $0 }?()
        // The one owner of the device and context is the core: the swap, the old pair's
        // destruction and the check that the engine is still running happen in one AL section.
        let rebuilt = ALGlobal.lock.withLock { (current: inout UInt) -> Bool in
            guard !core.isShutDown else { return false }
            do {
                try core.rebuild(on: opened.device, context: newContext, current: &current)
                recovery.disconnected.store(false, ordering: .releasing)
                recovery.listen(on: newContext)
                opened.device.adoptByEngine()
                newContext.adoptByEngine()
                return true
            } catch {
                logger.warning("rebuilding on \(opened.device.name) failed: \(error); retrying")
                return false
            }
        }
        guard rebuilt else {
            ALGlobal.lock.withLock { current in newContext.destroy(locked: &current) }
            opened.device.closeAsOwner()
            if !recovery.isCancelled { recovery.startReopening(configuration.output) }
            return
        }
        // Tests: runs a game call in the window where the core is rebuilt and the subsystems
        // (music) have not yet heard (another thread can call in there). No lock but the
        // lifecycle is held here.
        recovery.beforeMusicReattach.withLock { $0 }?()
        guard !shutDownStarted.load(ordering: .acquiring) else { return }   // the hook shut it down
        // No AL or music lock is held here, as the subsystems require.
        let restoration = DeviceRestoration(device: opened.device.name, fellBackFrom: opened.fellBackFrom)
        eachSubsystem { $0.deviceRestored(self, restoration) }
        recovery.emit(.restored(device: opened.device.name, fellBackFrom: opened.fellBackFrom))
    }
}
