internal import EarshotLinux

/// The default output as the PulseAudio server sees it (PipeWire's PulseAudio server too): the
/// ``DefaultOutputSource`` a live `.systemDefault` engine that follows the default output uses
/// on Linux, unless ``AudioEngine/Configuration/defaultOutputSource`` names another.
///
/// An in-process libpulse subscription on libpulse's own loop thread (the `EarshotLinux`
/// target's `PulseDefaultSinkWatcher`, which says how it watches): a new default sink is
/// ``AudioSession/RouteChangeReason/newDeviceAvailable``, the sink the engine was on going away
/// is ``AudioSession/RouteChangeReason/oldDeviceUnavailable``. No child process, no server
/// spawned; without a server it reports nothing and tries again (0.5 s doubling to 5 s).
final class PulseDefaultOutputSource: DefaultOutputSource {
    private let watcher = PulseDefaultSinkWatcher(logger: EarshotLogging.logger("earshot.device"))

    /// The sink the engine plays on, as far as the watcher knows (tests and logs).
    var currentSink: String? { watcher.currentSink }

    func start(reportingTo report: @escaping @Sendable (DefaultOutputChange) -> Void) {
        watcher.start { change, sink in
            report(DefaultOutputChange(reason: change == .currentRemoved ? .oldDeviceUnavailable : .newDeviceAvailable,
                                       output: sink))
        }
    }

    /// Stops libpulse's loop thread (joined: a few milliseconds) and closes the connection.
    func stop() {
        watcher.stop()
    }
}
