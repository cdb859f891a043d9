import Earshot
import Foundation

/// The audio session of a live `earshot play`: MPRIS players on the session bus feed the
/// secondary-audio hint (unless `--no-system-hints`), and every session event is printed to
/// stderr as it happens (`earshot: session: …`).
enum LiveSession {
    /// Activates `engine`'s session and starts printing its events; returns the printing task.
    static func start(_ engine: AudioEngine, systemHints: Bool) -> Task<Void, Never> {
        let session = engine.session
        if systemHints { session.enableSystemHints() }
        let events = session.events
        let printer = Task.detached {
            for await event in events { note("earshot: session: \(event)") }
        }
        session.activate()
        for status in session.hintSources where !status.isAvailable {
            note("earshot: session: \(status.name) hints unavailable (\(status.detail)); playing on without them")
        }
        return printer
    }

    /// Deactivates the session (stops the MPRIS watcher) and lets the last events print.
    static func stop(_ engine: AudioEngine, printer: Task<Void, Never>) {
        engine.session.deactivate()
        usleep(20_000)
        printer.cancel()
    }
}
