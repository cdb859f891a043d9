import CDBus

/// A value read from a D-Bus message (the shapes MPRIS and the bus daemon use).
package indirect enum DBusValue: Equatable, Sendable {
    case string(String)
    case uint32(UInt32)
    case int32(Int32)
    case bool(Bool)
    case array([DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case variant(DBusValue)
    case structure([DBusValue])
    /// A type this reader does not decode (its D-Bus type code).
    case other(Int32)

    /// The string of a string (or of a variant holding one).
    package var string: String? {
        switch self {
        case .string(let s): return s
        case .variant(let v): return v.string
        default: return nil
        }
    }

    /// The strings of an array of strings.
    package var strings: [String]? {
        guard case .array(let items) = self else { return nil }
        return items.compactMap(\.string)
    }

    /// An `a{sv}` dictionary (keys to variants' contents).
    package var dictionary: [String: DBusValue]? {
        guard case .array(let items) = self else { return nil }
        var out: [String: DBusValue] = [:]
        for case .dictEntry(.string(let key), let value) in items {
            if case .variant(let inner) = value { out[key] = inner } else { out[key] = value }
        }
        return out
    }
}

/// A failed D-Bus operation: the error's name (`org.freedesktop.DBus.Error.NoReply` …) and text.
package struct DBusFailure: Error, CustomStringConvertible {
    package var name: String
    package var message: String

    package var description: String { message.isEmpty ? name : "\(name): \(message)" }
}

/// A message taken off the connection's incoming queue, copied into Swift values.
package struct DBusIncoming: Sendable {
    package var type: Int32
    package var sender: String
    package var path: String
    package var interface: String
    package var member: String
    package var arguments: [DBusValue]
    /// For a method return or error: the serial of the call it answers (0 otherwise).
    package var replySerial: UInt32 = 0
    /// For an error: its name (`org.freedesktop.DBus.Error.UnknownMethod` …); empty otherwise.
    package var errorName: String = ""

    package var isSignal: Bool { type == DBUS_MESSAGE_TYPE_SIGNAL }
    /// A method return or an error: the answer to a call sent with
    /// ``BusConnection/send(destination:path:interface:member:values:)``.
    package var isReply: Bool { type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR }
    package var isError: Bool { type == DBUS_MESSAGE_TYPE_ERROR }
}
