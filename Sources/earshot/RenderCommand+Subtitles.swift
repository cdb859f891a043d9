import Earshot
import EarshotOutputs
import EarshotScenes

/// `earshot render … --subtitles OUT.srt` (or `.vtt`): what the render's `say:` lines showed,
/// staged in the render's transaction, so it appears with the audio or not at all.
extension RenderCommand {
    /// The extra outputs the render writes (the plot, the subtitles).
    var extraOutputs: [String] { [plot, subtitles].compactMap { $0 } }

    /// `--subtitles` names an `.srt` or `.vtt` file.
    func validateSubtitles() -> String? {
        guard let subtitles else { return nil }
        let lower = subtitles.lowercased()
        return lower.hasSuffix(".srt") || lower.hasSuffix(".vtt") ? nil : "--subtitles writes a .srt or .vtt file"
    }

    /// Stages the subtitle file of `result` in `outputs`.
    func writeSubtitles(_ result: SceneRenderer.Result, _ outputs: OutputTransaction) throws(EarshotError) {
        guard let subtitles else { return }
        let text = subtitles.lowercased().hasSuffix(".vtt") ? SubtitleFile.vtt(result.subtitles) : SubtitleFile.srt(result.subtitles)
        try outputs.write(Array(text.utf8), to: subtitles)
    }
}
