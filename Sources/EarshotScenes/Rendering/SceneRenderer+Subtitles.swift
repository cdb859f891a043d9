import Earshot

extension SceneRenderer {
    /// Renders the scene as ``render(to:format:from:duration:session:transaction:progress:)``
    /// does — the same engine, frames and cuts — but writes no audio: what `earshot lines SCENE
    /// --srt` wants, the subtitles the scene's `say:` lines showed (``Result/subtitles``), with
    /// its levels and events. ``Result/path`` is empty.
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/dialogue.yaml")
    /// let said = try SceneRenderer(scene: scene).renderWithoutAudio().subtitles
    /// print(SubtitleFile.srt(said))
    /// ```
    public func renderWithoutAudio(duration: Double? = nil) throws(EarshotError) -> Result {
        if let duration, !(duration.isFinite && duration > 0) {
            throw .invalidArgument("render duration \(duration) (must be a positive number of seconds)")
        }
        let seconds = min(duration ?? scene.duration, scene.duration)
        let engine = try AudioEngine(
            configuration: scene.engineConfiguration(output: .loopback(sampleRate: scene.sampleRate)))
        defer { engine.shutdown() }
        let runtime = try SceneRuntime(scene: scene, engine: engine, session: nil)
        return try run(runtime, engine: engine, writer: nil, from: 0, seconds: seconds, progress: nil)
    }
}
