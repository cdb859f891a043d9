/// A one-line progress bar on stderr (only when stderr is a terminal), drawn by `earshot stress`
/// and, through its throttle, by `render`.
enum ProgressBar {
    static func draw(_ fraction: Double, label: String) {
        let width = 30
        let filled = Int((fraction * Double(width)).rounded())
        note(
            "\(label) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                + "] \(Int(fraction * 100))%", newline: false, prefix: "\r")
    }

    static func clear() { note(String(repeating: " ", count: 60), newline: false, prefix: "\r", suffix: "\r") }
}
