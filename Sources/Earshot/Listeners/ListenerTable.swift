/// The engine's listeners: the first (OpenAL's, ``AudioEngine/listener``) and up to seven more,
/// each with a serial number its ``ListenerID`` names. Owns the rule of when the voice kernel
/// maps positions (two listeners or more) and keeps the ``ListenerBlend`` it maps them with up
/// to date. Touched only under the AL lock; talks to the core through ``ListenerHost``.
final class ListenerTable {
    /// The most listeners an engine has at once (FMOD's limit).
    static let maxListeners = 8

    private struct Entry {
        var serial: UInt32
        var listener: Listener
    }

    /// In order: the first listener first. Never empty.
    private var entries: [Entry] = [Entry(serial: 0, listener: Listener())]
    private var nextSerial: UInt32 = 1
    private let blend: ListenerBlend
    /// Whether the blend is installed in the kernel (two listeners or more).
    private var installed = false

    init(dopplerFactor: Float, speedOfSound: Float) {
        blend = ListenerBlend(dopplerFactor: dopplerFactor, speedOfSound: speedOfSound)
        entries.reserveCapacity(Self.maxListeners)
    }

    /// The first listener (OpenAL's).
    var first: Listener { entries[0].listener }
    var listeners: [Listener] { entries.map(\.listener) }
    var serials: [UInt32] { entries.map(\.serial) }

    func listener(serial: UInt32) -> Listener? {
        entries.first { $0.serial == serial }?.listener
    }

    /// Sets the first listener.
    func setFirst(_ l: Listener, host: some ListenerHost) {
        entries[0].listener = l
        host.applyALListener(l)
        publish(host: host)
    }

    /// Adds a listener (``maxListeners`` at most: ``EarshotError/invalidArgument(_:)``); its serial.
    func add(_ l: Listener, host: some ListenerHost) throws(EarshotError) -> UInt32 {
        guard entries.count < Self.maxListeners else {
            throw .invalidArgument("a listener past the \(Self.maxListeners) an engine may have (ListenerTable.maxListeners)")
        }
        let serial = nextSerial
        nextSerial &+= 1
        entries.append(Entry(serial: serial, listener: l))
        publish(host: host)
        return serial
    }

    func remove(serial: UInt32, host: some ListenerHost) throws(EarshotError) {
        guard serial != entries[0].serial else {
            throw .invalidArgument("the first listener is OpenAL's and stays (give it weight 0 to ignore it)")
        }
        guard let i = entries.firstIndex(where: { $0.serial == serial }) else { throw Self.removed }
        entries.remove(at: i)
        publish(host: host)
    }

    func set(_ l: Listener, serial: UInt32, host: some ListenerHost) throws(EarshotError) {
        guard let i = entries.firstIndex(where: { $0.serial == serial }) else { throw Self.removed }
        if i == 0 { return setFirst(l, host: host) }
        entries[i].listener = l
        publish(host: host)
    }

    /// Replaces every listener (1…``maxListeners``, checked by the caller): the first stays the
    /// first, the others keep their serials in order; listeners past the new count are removed.
    func replaceAll(_ all: [Listener], host: some ListenerHost) {
        for (i, l) in all.enumerated() {
            if i < entries.count {
                entries[i].listener = l
            } else {
                entries.append(Entry(serial: nextSerial, listener: l))
                nextSerial &+= 1
            }
        }
        if entries.count > all.count { entries.removeLast(entries.count - all.count) }
        host.applyALListener(entries[0].listener)
        publish(host: host)
    }

    static let removed = EarshotError.invalidArgument("the listener was removed")

    /// One listener: the kernel maps nothing. Two or more: the blend takes every listener and
    /// the kernel hears through it.
    private func publish(host: some ListenerHost) {
        guard entries.count > 1 else {
            if installed {
                installed = false
                host.installRig(nil)
            }
            return
        }
        blend.update(entries.lazy.map(\.listener))
        if installed {
            host.rigChanged()
        } else {
            installed = true
            host.installRig(blend)
        }
    }
}
