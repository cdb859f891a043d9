import Earshot
import Foundation

// A scene's VCAs at run time: the `vca:` event (`{ at, vca: ID, gain: dB, fade: s }`). They are
// defined, with their starting gains, where the scene's buses are made (SceneRuntime's init).
extension SceneRuntime {
    /// A `vca:` event: the VCA's gain ramps to `gainDB` over `fade` seconds.
    func runVCA(_ id: String, gainDB: Double, fade: Double) throws(EarshotError) {
        try engine.setVCA(id, gain: Float(pow(10, gainDB / 20)), fade: fade)
    }
}
