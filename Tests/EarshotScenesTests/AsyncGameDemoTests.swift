import EarshotTestSupport
import Foundation
import XCTest

/// The README's async start-up (issue 23) is Demos/AsyncGame, word for word, and runs: the
/// engine made after an await, the voice-event loop in a task that ends because `shutdown()`
/// finishes the stream (the program would hang on `listener.value` otherwise).
final class AsyncGameDemoTests: XCTestCase {
    func testAsyncGameIsTheREADMEProgramAndItsListenerEndsAtShutdown() throws {
        let root = CLIRunner.packageRoot
        let source = try String(contentsOf: root.appendingPathComponent("Demos/AsyncGame/Game.swift"), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = try XCTUnwrap(readme.range(of: "<!-- async-game:begin -->\n```swift\n"), "README lost its async-game:begin marker")
        let end = try XCTUnwrap(readme.range(of: "```\n<!-- async-game:end -->", range: begin.upperBound..<readme.endIndex))
        XCTAssertEqual(String(readme[begin.upperBound..<end.lowerBound]), source, "README and Demos/AsyncGame/Game.swift differ")
        XCTAssertTrue(source.contains("@main") && source.contains("static func main() async throws"))
        XCTAssertTrue(readme.contains("libpulse-dev"), "the README names every system package a game links")

        let r = try CLIRunner.run("AsyncGame", [], environment: ["ALSOFT_DRIVERS": "null-none"], timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").last.map(String.init),
                       "AsyncGame: 1 voice finished; the engine is shut down", r.stdout)
    }
}
