import Earshot

/// The scene's listeners on the engine: `listener:` is the engine's one listener; `listeners:`
/// (split screen) are all of them, the first OpenAL's (``AudioEngine/listeners``).
extension SceneRuntime {
    /// Places every listener of the scene at scene time `time`.
    func placeListeners(at time: Double) {
        guard !scene.otherListeners.isEmpty else {
            engine.listener = scene.listener.listener(at: time)
            return
        }
        engine.listeners = [scene.listener.listener(at: time)] + scene.otherListeners.map { $0.listener(at: time) }
    }
}
