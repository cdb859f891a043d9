import Earshot
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The terminal side of `earshot monitor`'s live view: raw keys (no echo, no line editing, Ctrl-C
/// as a key), the alternate screen, redraws in place, and the terminal put back as it was on the
/// way out.
final class MonitorTerminal {
    private var saved = termios()
    private var raw = false

    /// Whether standard input and output are a terminal (the view needs one; `--json` does not).
    static var isInteractive: Bool { isatty(0) == 1 && isatty(1) == 1 }

    init() {
        if tcgetattr(0, &saved) == 0 {
            var t = saved
            t.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
            t.c_iflag &= ~tcflag_t(IXON | ICRNL)
            raw = tcsetattr(0, TCSANOW, &t) == 0
        }
        put("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")   // alternate screen, cursor hidden
    }

    /// Puts the terminal back (also when released).
    func restore() {
        put("\u{1B}[?25h\u{1B}[?1049l")
        if raw { tcsetattr(0, TCSANOW, &saved) }
        raw = false
    }

    deinit { restore() }

    /// Rows and columns now (24 × 80 when the terminal does not say).
    var size: (rows: Int, columns: Int) {
        var w = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &w) == 0, w.ws_row > 0, w.ws_col > 0 else { return (24, 80) }
        return (Int(w.ws_row), Int(w.ws_col))
    }

    /// The keys typed since the last call (none waiting: empty; never blocks).
    func keys() -> [UInt8] {
        var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 0) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(0, &buffer, buffer.count)
        return n > 0 ? Array(buffer[0..<n]) : [0x71]   // end of input: quit
    }

    /// Draws `lines` from the top-left corner, each cleared to its end.
    func show(_ lines: [String]) {
        var text = "\u{1B}[H"
        for (i, line) in lines.enumerated() {
            text += line + "\u{1B}[K" + (i + 1 < lines.count ? "\r\n" : "")
        }
        put(text + "\u{1B}[J")
    }

    private func put(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let n = write(1, base + done, bytes.count - done)
                if n <= 0 { if errno == EINTR { continue }; return }
                done += n
            }
        }
    }
}
