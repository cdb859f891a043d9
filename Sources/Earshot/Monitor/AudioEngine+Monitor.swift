#if canImport(Glibc)
import Glibc
#endif

/// The live monitor (see <doc:MonitoringARunningGame>).
extension AudioEngine {
    /// The environment variable that turns the monitor on without a rebuild: `EARSHOT_MONITOR=1`.
    public static let monitorEnvironmentVariable = "EARSHOT_MONITOR"

    /// Whether `EARSHOT_MONITOR` asks for the monitor in this process (`1`, `true`, `yes`, `on`).
    static var monitorRequestedByEnvironment: Bool {
        guard let raw = getenv(monitorEnvironmentVariable) else { return false }
        return ["1", "true", "yes", "on"].contains(String(cString: raw).lowercased())
    }

    /// The path of the engine's monitor socket, or nil when the monitor is off (see
    /// ``Configuration/monitor``). The file is removed by ``shutdown()``.
    ///
    /// ```swift
    /// var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
    /// config.monitor = true
    /// let engine = try AudioEngine(configuration: config)
    /// print("earshot monitor \(getpid())   # or connect to \(engine.monitorSocketPath ?? "-")")
    /// ```
    public var monitorSocketPath: String? { monitor?.path }

    /// Clients connected to the monitor now (0 when it is off).
    public var monitorClientCount: Int { monitor?.clientCount ?? 0 }

    /// Puts an event in the monitor's next frame (nothing when the monitor is off or no client is
    /// connected): how a feature above the engine — a sound bank's reload — shows in
    /// `earshot monitor`. `kind` is one word (`bank-reloaded`), `name` what it concerns, `detail`
    /// one line (control characters are escaped by the view).
    package func noteMonitorEvent(kind: String, name: String?, detail: String?) {
        monitor?.note(kind: kind, name: name, detail: detail)
    }

    /// The attached monitor, if any.
    var monitor: MonitorSubsystem? {
        attachedSubsystems.withLock { list in list.lazy.compactMap { $0 as? MonitorSubsystem }.first }
    }

    /// Starts the monitor when the configuration or the environment asks for it (from init, once
    /// every stored property is set). A monitor the configuration asks for that cannot open its
    /// socket throws; one asked for by `EARSHOT_MONITOR` only logs a warning (a shipped game must
    /// start either way).
    func startMonitorIfAsked(output: String, sampleRate: Int) throws(EarshotError) {
        let byEnvironment = Self.monitorRequestedByEnvironment
        guard configuration.monitor || byEnvironment else { return }
        do throws(EarshotError) {
            let monitor = try MonitorSubsystem.start(for: self, output: output, sampleRate: sampleRate)
            do {
                try attach(monitor)
            } catch {
                monitor.shutdown(self)
                throw error
            }
            logger.info("monitor listening on \(monitor.path)")
        } catch {
            guard configuration.monitor else {
                logger.warning("EARSHOT_MONITOR: \(error)")
                return
            }
            throw error
        }
    }
}
