// The hostile MPRIS peer of MPRISHostilePeerTests, run as its own process: the watcher ignores
// players of its own process, so the peer must be another one. Not a demo and not a product:
// only the tests run it.
//
//   HostilePeerProbe BUS_ADDRESS [CONNECTIONS=1] [NAMES=1]
//       Owns NAMES names `org.mpris.MediaPlayer2.hostile.cCnN` on each of CONNECTIONS real libdbus
//       connections to the bus; the first floods `PropertiesChanged` with `PlaybackStatus`
//       invalidated (100 a second); calls (`Get`) are read and never answered. Prints "ready"
//       once every name is owned; ends when killed (or after 30 s). Exit 1 when the bus refuses.
import EarshotLinux
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2, arguments.count <= 4 else {
    FileHandle.standardError.write(Data("usage: HostilePeerProbe BUS_ADDRESS [CONNECTIONS] [NAMES]\n".utf8))
    exit(2)
}
let address = arguments[1]
let connections = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
let names = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
let prefix = "org.mpris.MediaPlayer2.hostile"

var open: [BusConnection] = []
do {
    for c in 0..<connections {
        let connection = try BusConnection(address: address, timeoutMilliseconds: 2_000)
        for n in 0..<names {
            _ = try connection.call(destination: BusConnection.busName, path: BusConnection.busPath, interface: BusConnection.busName,
                                    member: "RequestName", values: [.string("\(prefix).c\(c)n\(n)"), .uint32(4)],
                                    timeoutMilliseconds: 2_000)
        }
        open.append(connection)
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    let start = Date()
    while Date().timeIntervalSince(start) < 30 {
        try open[0].emitPropertiesChanged(path: "/org/mpris/MediaPlayer2", interface: "org.mpris.MediaPlayer2.Player",
                                          changed: [:], invalidated: ["PlaybackStatus"])
        for c in open {
            _ = c.readWrite(timeoutMilliseconds: 0)
            while c.pop() != nil {}   // calls (Get) are read and never answered
        }
        usleep(10_000)
    }
} catch {
    FileHandle.standardError.write(Data("HostilePeerProbe: \(error)\n".utf8))
    exit(1)
}
