/// How a place in the world is heard through the one OpenAL listener when the game has several
/// (Listeners/): the voice kernel asks it for each positioned voice's properties as the OpenAL
/// listener must hear them, and knows nothing else of the listeners. Nil in the kernel while
/// there is one listener: then nothing is mapped and nothing is called.
///
/// Called only under the AL lock.
protocol ListenerRig: AnyObject {
    /// `world` (a voice's or an emitter's properties in the world) as heard: position, velocity
    /// and direction moved so that OpenAL's listener hears it from the distance and direction,
    /// and with the Doppler shift, of the listener(s) it belongs to. Head-relative properties
    /// come back unchanged.
    func heard(_ world: SpatialProperties) -> SpatialProperties
}
