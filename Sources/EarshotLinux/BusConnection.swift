import CDBus

/// A private libdbus connection to one bus, used from a single thread (the MPRIS watcher's).
///
/// It never lets libdbus end the process when the bus goes away (exit-on-disconnect is off),
/// registers with a `Hello` call under the caller's short timeout (libdbus's own registration
/// would wait its 25 s default), and makes every call with an explicit timeout.
package final class BusConnection {
    private let raw: OpaquePointer

    package static let busName = "org.freedesktop.DBus"
    package static let busPath = "/org/freedesktop/DBus"

    /// Connects to the bus at `address` and registers. Throws ``DBusFailure`` when the bus
    /// cannot be reached or does not answer within `timeoutMilliseconds`.
    package init(address: String, timeoutMilliseconds: Int32) throws(DBusFailure) {
        var error = DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw Self.failure(&error, fallback: "cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        raw = connection
        let reply = try callBus("Hello", timeoutMilliseconds: timeoutMilliseconds)
        // Registered by hand: libdbus is told the name, as its own registration would have done.
        guard let name = reply.first?.string, dbus_bus_set_unique_name(raw, name) != 0 else {
            throw DBusFailure(name: "Hello", message: "the bus gave no unique name")
        }
    }

    deinit {
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    /// Calls a method of the bus daemon itself (``busName`` at ``busPath``, interface ``busName``:
    /// `Hello`, `AddMatch`, `ListNames` …) with string arguments; waits at most `timeoutMilliseconds`.
    package func callBus(
        _ member: String, _ arguments: [String] = [], timeoutMilliseconds: Int32
    ) throws(DBusFailure) -> [DBusValue] {
        try call(
            destination: Self.busName, path: Self.busPath, interface: Self.busName, member: member,
            arguments: arguments, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Calls a method with string arguments and waits at most `timeoutMilliseconds` for the reply.
    package func call(destination: String, path: String, interface: String, member: String, arguments: [String] = [],
              timeoutMilliseconds: Int32) throws(DBusFailure) -> [DBusValue] {
        try call(destination: destination, path: path, interface: interface, member: member,
                 values: arguments.map { .string($0) }, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Calls a method with string and `uint32` arguments and waits at most `timeoutMilliseconds`.
    package func call(
        destination: String, path: String, interface: String, member: String, values: [DBusValue],
        timeoutMilliseconds: Int32
    ) throws(DBusFailure) -> [DBusValue] {
        let message = try Self.methodCall(
            destination: destination, path: path, interface: interface, member: member, values: values)
        defer { dbus_message_unref(message) }
        var error = DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message, timeoutMilliseconds, &error) else {
            throw Self.failure(&error, fallback: "\(member) failed")
        }
        defer { dbus_message_unref(reply) }
        return Self.arguments(of: reply)
    }

    /// Sends a method call without waiting for its answer; returns the call's serial. The answer
    /// (a method return or an error whose ``DBusIncoming/replySerial`` is that serial) comes out of
    /// ``pop()`` like any other message; the caller keeps its own timeout and drops late answers.
    package func send(
        destination: String, path: String, interface: String, member: String, values: [DBusValue]
    ) throws(DBusFailure) -> UInt32 {
        let message = try Self.methodCall(
            destination: destination, path: path, interface: interface, member: member, values: values)
        defer { dbus_message_unref(message) }
        var serial: dbus_uint32_t = 0
        guard dbus_connection_send(raw, message, &serial) != 0 else {
            throw DBusFailure(name: "NoMemory", message: "libdbus could not queue \(member)")
        }
        return serial
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` (`sa{sv}as`) from `path`: the
    /// string properties in `changed` and the names in `invalidated`. (What a player does; the
    /// tests use it to act as one.) Queued; written by the next ``readWrite(timeoutMilliseconds:)`` or ``flush()``.
    package func emitPropertiesChanged(
        path: String, interface: String, changed: [String: String], invalidated: [String]
    ) throws(DBusFailure) {
        guard let message = dbus_message_new_signal(path, "org.freedesktop.DBus.Properties", "PropertiesChanged") else {
            throw DBusFailure(name: "NoMemory", message: "libdbus could not allocate a signal")
        }
        defer { dbus_message_unref(message) }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        var ok = cdbus_append_string(&iter, interface) != 0
        var dict = DBusMessageIter()
        ok = ok && dbus_message_iter_open_container(&iter, CDBUS_TYPE_ARRAY, "{sv}", &dict) != 0
        for (key, value) in changed where ok {
            var entry = DBusMessageIter(), variant = DBusMessageIter()
            ok = dbus_message_iter_open_container(&dict, CDBUS_TYPE_DICT_ENTRY, nil, &entry) != 0
                && cdbus_append_string(&entry, key) != 0
                && dbus_message_iter_open_container(&entry, CDBUS_TYPE_VARIANT, "s", &variant) != 0
                && cdbus_append_string(&variant, value) != 0
                && dbus_message_iter_close_container(&entry, &variant) != 0
                && dbus_message_iter_close_container(&dict, &entry) != 0
        }
        ok = ok && dbus_message_iter_close_container(&iter, &dict) != 0
        var list = DBusMessageIter()
        ok = ok && dbus_message_iter_open_container(&iter, CDBUS_TYPE_ARRAY, "s", &list) != 0
        for name in invalidated where ok { ok = cdbus_append_string(&list, name) != 0 }
        ok = ok && dbus_message_iter_close_container(&iter, &list) != 0
        guard ok, dbus_connection_send(raw, message, nil) != 0 else {
            throw DBusFailure(name: "NoMemory", message: "libdbus could not build or queue PropertiesChanged")
        }
    }

    /// Writes everything queued (blocking until written).
    package func flush() { dbus_connection_flush(raw) }

    /// Reads and writes for at most `timeoutMilliseconds`; false once the connection is closed.
    package func readWrite(timeoutMilliseconds: Int32) -> Bool {
        dbus_connection_read_write(raw, timeoutMilliseconds) != 0
    }

    /// Whether the connection is still up.
    package var isConnected: Bool { dbus_connection_get_is_connected(raw) != 0 }

    /// Takes the next incoming message (signals, and the local `Disconnected`), or nil.
    package func pop() -> DBusIncoming? {
        guard let message = dbus_connection_pop_message(raw) else { return nil }
        defer { dbus_message_unref(message) }
        func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
        return DBusIncoming(
            type: dbus_message_get_type(message), sender: text(dbus_message_get_sender(message)),
            path: text(dbus_message_get_path(message)), interface: text(dbus_message_get_interface(message)),
            member: text(dbus_message_get_member(message)), arguments: Self.arguments(of: message),
            replySerial: dbus_message_get_reply_serial(message),
            errorName: text(dbus_message_get_error_name(message)))
    }

    /// A method call with string and `uint32` arguments (the caller unrefs it).
    private static func methodCall(destination: String, path: String, interface: String, member: String,
                                   values: [DBusValue]) throws(DBusFailure) -> OpaquePointer {
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
            throw DBusFailure(name: "NoMemory", message: "libdbus could not allocate a message")
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values {
            let ok: Int32
            switch value {
            case .string(let s): ok = cdbus_append_string(&iter, s)
            case .uint32(let u): ok = cdbus_append_uint32(&iter, u)
            default: preconditionFailure("BusConnection.call: only string and uint32 arguments")  // trap: caller bug
            }
            guard ok != 0 else {
                dbus_message_unref(message)
                throw DBusFailure(name: "NoMemory", message: "libdbus could not append an argument")
            }
        }
        return message
    }

    // MARK: Reading messages

    private static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while true {
            let type = dbus_message_iter_get_arg_type(&iter)
            if type == CDBUS_TYPE_INVALID { break }
            values.append(read(&iter, type: type))
            if dbus_message_iter_next(&iter) == 0 { break }
        }
        return values
    }

    private static func read(_ iter: inout DBusMessageIter, type: Int32) -> DBusValue {
        switch type {
        case CDBUS_TYPE_STRING, CDBUS_TYPE_OBJECT_PATH:
            return .string(cdbus_iter_string(&iter).map { String(cString: $0) } ?? "")
        case CDBUS_TYPE_UINT32:
            return .uint32(cdbus_iter_uint32(&iter, 0))
        case CDBUS_TYPE_INT32:
            var value: Int32 = 0
            dbus_message_iter_get_basic(&iter, &value)
            return .int32(value)
        case CDBUS_TYPE_BOOLEAN:
            var value: dbus_bool_t = 0
            dbus_message_iter_get_basic(&iter, &value)
            return .bool(value != 0)
        case CDBUS_TYPE_ARRAY, CDBUS_TYPE_VARIANT, CDBUS_TYPE_STRUCT, CDBUS_TYPE_DICT_ENTRY:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            let items = readAll(&sub)
            switch type {
            case CDBUS_TYPE_ARRAY: return .array(items)
            case CDBUS_TYPE_VARIANT: return .variant(items.first ?? .other(CDBUS_TYPE_INVALID))
            case CDBUS_TYPE_DICT_ENTRY where items.count == 2: return .dictEntry(items[0], items[1])
            default: return .structure(items)
            }
        default:
            return .other(type)
        }
    }

    private static func failure(_ error: inout DBusError, fallback: String) -> DBusFailure {
        defer { dbus_error_free(&error) }
        guard dbus_error_is_set(&error) != 0 else { return DBusFailure(name: "Failed", message: fallback) }
        return DBusFailure(name: error.name.map { String(cString: $0) } ?? "Failed",
                           message: error.message.map { String(cString: $0) } ?? fallback)
    }
}
