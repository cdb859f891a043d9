import Foundation
import XCTest

/// Runs a built executable of this package (the `earshot` CLI, a demo) and captures its output.
/// Shared by the test targets; the executables are built by `make test` before `swift test`.
public enum CLIRunner {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The build folder holding the test bundle and the package's executables.
    public static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// The package's root folder (where Assets/ and Demos/ live).
    public static var packageRoot: URL {
        // Tests/EarshotTestSupport/CLIRunner.swift → the folder holding Package.swift.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: TimeInterval = 120) throws -> Result {
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent(executable)
        guard FileManager.default.isExecutableFile(atPath: process.executableURL?.path ?? "") else {
            throw CLIRunnerError.notBuilt(executable)
        }
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes concurrently so a chatty child cannot block on a full pipe.
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            XCTFail("\(executable) \(arguments) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

public enum CLIRunnerError: Error, CustomStringConvertible {
    case notBuilt(String)
    public var description: String {
        switch self {
        case .notBuilt(let name): return "\(name) is not built: run `swift build` (make test does) before `swift test`"
        }
    }
}
