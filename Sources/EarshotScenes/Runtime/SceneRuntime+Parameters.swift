import Foundation
import Earshot

/// Game parameters in a running scene: sounds with curves and layers, and `set:` events on a
/// parameter (globally, of a named play, or of an emitter).
extension SceneRuntime {
    /// A parameter's `set:` event. The parser checked the name, the value's range and the
    /// target, so an error here is the engine's (thrown on, as any event's).
    func runParameter(_ p: SceneParameterSet, at time: Double) throws(EarshotError) {
        guard let target = p.of else { return try engine.setParameter(p.parameter, p.value, ramp: p.ramp) }
        if let i = emitterIndex[target] {
            try engine.setParameter(p.parameter, p.value, of: try emitter(i, at: time), ramp: p.ramp)
        } else if let voice = parameterVoices[target] {
            try engine.setParameter(p.parameter, p.value, of: voice, ramp: p.ramp)   // an ended voice: nothing
        }
    }

    /// Scene emitter `i`, made now if it has not started yet (as for a track that follows it), so
    /// that a voice or a line it starts later begins with what was set on it.
    func emitter(_ i: Int, at time: Double) throws(EarshotError) -> Emitter {
        if let e = emitters[i] { return e }
        let e = try engine.makeEmitter(scene.emitters[i].spatial(at: time))
        if emitterEnvironment[i] != .open { engine.setEnvironment(emitterEnvironment[i], of: e) }
        emitters[i] = e
        return e
    }
}
