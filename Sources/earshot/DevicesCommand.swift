import ArgumentParser
import Earshot
import Foundation

/// `earshot devices`: what OpenAL can play on, and what it offers.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List playback and input devices, the OpenAL version, renderer and extensions.")

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let report = DeviceReport.gather()
        if json {
            try sayJSON(encoding: report, pretty: true)
        } else {
            say("Playback devices:")
            if report.playbackDevices.isEmpty { say("  (none)") }
            for name in report.playbackDevices {
                say("  \(name == report.defaultDevice ? "*" : " ") \(name)")
            }
            say("Input devices:")
            if report.inputDevices.isEmpty { say("  (none)") }
            for name in report.inputDevices {
                say("  \(name == report.defaultInputDevice ? "*" : " ") \(name)")
            }
            say("OpenAL: \(report.version) — \(report.renderer) (\(report.vendor))")
            say("ALC extensions: \(report.alcExtensions.joined(separator: " "))")
            say("AL extensions: \(report.alExtensions.joined(separator: " "))")
        }
    }
}

/// Everything `earshot devices` reports. The AL strings come from a loopback context, which
/// exists on every machine, so the report is complete even with no sound card.
struct DeviceReport: Codable {
    var playbackDevices: [String]
    var defaultDevice: String?
    var inputDevices: [String]
    var defaultInputDevice: String?
    var version: String
    var renderer: String
    var vendor: String
    var alcExtensions: [String]
    var alExtensions: [String]

    static func gather() -> DeviceReport {
        var report = DeviceReport(
            playbackDevices: OutputDevice.playbackDeviceNames(),
            defaultDevice: OutputDevice.defaultPlaybackDeviceName(),
            inputDevices: CaptureDevice.inputDeviceNames(),
            defaultInputDevice: CaptureDevice.defaultInputDeviceName(),
            version: "?", renderer: "?", vendor: "?",
            alcExtensions: OutputDevice.globalExtensions().sorted(), alExtensions: [])
        if let device = try? OutputDevice.open(.loopback(sampleRate: 48_000)) {
            defer { device.close() }
            if let context = try? ALContext(device: device, request: .init()) {
                report.version = context.version
                report.renderer = context.renderer
                report.vendor = context.vendor
                report.alExtensions = context.extensions.sorted()
                report.alcExtensions = device.extensions.sorted()
                context.destroy()
            }
        }
        return report
    }
}
