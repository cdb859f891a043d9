@testable import Earshot
import XCTest

/// The house check of a stream's end events (``AudioStream/events``, a bed's `events`): two
/// consumers taken before each see every end of `play` run three times, shutting `engine` down
/// finishes both, and a read after shutdown is finished at once. Shuts `engine` down.
func assertEveryConsumerSeesEveryEnd(
    engine e: AudioEngine, events: () -> AsyncStream<AudioStream.Event>, play: () throws -> Void,
    file: StaticString = #filePath, line: UInt = #line
) async throws {
    let first = events(), second = events()
    for _ in 0..<3 {
        try play()
        _ = try TestSignals.renderGameFrames(e, seconds: 0.2)
    }
    e.shutdown()
    var a: [AudioStream.Event.Reason] = [], b: [AudioStream.Event.Reason] = []
    for await end in first { a.append(end.reason) }    // ends: shutdown finished it
    for await end in second { b.append(end.reason) }
    XCTAssertEqual(a, [.finished, .finished, .finished], file: file, line: line)
    XCTAssertEqual(b, a, "the second consumer sees every end too", file: file, line: line)
    var late = 0
    for await _ in events() { late += 1 }
    XCTAssertEqual(late, 0, "a stream read after shutdown is finished at once", file: file, line: line)
}
