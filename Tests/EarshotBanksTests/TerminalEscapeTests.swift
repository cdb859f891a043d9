import Earshot
import EarshotTestSupport
import XCTest

/// Names from files reach the terminal escaped (issue 35.19): a bank or scene `name:`, sound and
/// clip ids (bus names must be printable already) and file names holding an OSC 52 clipboard
/// write (`ESC ] 52 ; c ; … BEL`), a title change, a screen clear (`CSI 2J`), a carriage return
/// or a newline forging a line come out of `validate`'s "ok" line, `info` and `audition`'s
/// "wrote …" line as visible escapes.
final class TerminalEscapeTests: XCTestCase {
    /// YAML double-quoted escapes: the file itself holds only printable text.
    private let evil = #"\e]52;c;aGVsbG8=\a\e]0;pwned\a\e[2J\r\nearshot: forged ok line"#

    /// No control character but the newlines ending `lines` lines; no ESC, BEL or CR anywhere.
    private func assertClean(_ text: String, lines: Int? = nil, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let controls = text.unicodeScalars.filter { $0 != "\n" && $0.properties.generalCategory == .control }
        XCTAssertEqual(controls.map(\.value), [], "\(what): \(text.debugDescription)", file: file, line: line)
        if let lines { XCTAssertEqual(text.split(separator: "\n").count, lines, "\(what): \(text.debugDescription)", file: file, line: line) }
    }

    func testNamesAreEscapedInEveryCLIOutputLine() throws {
        let f = try BankFixture("escapes")
        defer { f.remove() }
        let bank = try f.write("bank.yaml", """
            name: "bank\(evil)"
            clips: { "c\(evil)": audio/a440.wav }
            sounds:
              "s\(evil)": { clips: ["c\(evil)"] }
            """)
        let scene = try f.write("scene.yaml", """
            name: "scene\(evil)"
            duration: 0.5
            include: bank.yaml
            clips: { "k\(evil)": audio/k1.wav }
            events:
              - { at: 0, play: "s\(evil)" }
              - { at: 0.1, play: "k\(evil)" }
            """)
        for file in [bank, scene] {
            let v = try CLIRunner.run("earshot", ["validate", file])
            XCTAssertEqual(v.status, 0, v.stderr)
            assertClean(v.stdout, lines: 1, "validate \(file)")
            XCTAssertTrue(v.stdout.contains(#"\u{1B}]52;c;aGVsbG8=\u{7}"#), v.stdout)
            XCTAssertTrue(v.stdout.contains(#"\u{1B}[2J\r\nearshot: forged ok line"#), v.stdout)
            assertClean(v.stderr, "validate \(file) stderr")
            let i = try CLIRunner.run("earshot", ["info", file])
            XCTAssertEqual(i.status, 0, i.stderr)
            assertClean(i.stdout + i.stderr, "info \(file)")
            XCTAssertFalse(i.stdout.split(separator: "\n").contains { $0.hasPrefix("earshot: forged") }, i.stdout)
            let j = try CLIRunner.run("earshot", ["info", "--json", file])
            assertClean(j.stdout, "info --json \(file)")
        }
        // audition's "wrote …" line names the sound and the output file.
        let out = f.path("o\u{1B}[2J\u{1B}]0;t\u{07}\r.wav")
        let a = try CLIRunner.run("earshot", ["audition", bank, "s\u{1B}]52;c;aGVsbG8=\u{07}\u{1B}]0;pwned\u{07}\u{1B}[2J\r\nearshot: forged ok line",
                                              "--seconds", "0.2", "-o", out])
        XCTAssertEqual(a.status, 0, a.stderr)
        assertClean(a.stdout + a.stderr, "audition")
        XCTAssertTrue(a.stderr.contains("wrote ") && a.stderr.contains(#"o\u{1B}[2J"#), a.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out))
    }
}
