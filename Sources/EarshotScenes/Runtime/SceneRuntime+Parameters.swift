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
            if emitters[i] == nil {
                // Not started yet: the emitter is made now (as for a track that follows it), so
                // that its voice starts with the value.
                let e = try engine.makeEmitter(scene.emitters[i].spatial(at: time))
                if emitterEnvironment[i] != .open { engine.setEnvironment(emitterEnvironment[i], of: e) }
                emitters[i] = e
            }
            if let e = emitters[i] { try engine.setParameter(p.parameter, p.value, of: e, ramp: p.ramp) }
        } else if let voice = parameterVoices[target] {
            try engine.setParameter(p.parameter, p.value, of: voice, ramp: p.ramp)   // an ended voice: nothing
        }
    }
}
