/// What the listeners (Listeners/) ask of the engine's core: the one OpenAL listener set to the
/// first listener, and the voice kernel told how the others hear the world. Conformed by the
/// core (Engine/EngineCore+Listeners.swift); called under the AL lock.
protocol ListenerHost: AnyObject {
    /// Sets OpenAL's listener (position, velocity, orientation, gain) to `first`.
    func applyALListener(_ first: Listener)
    /// Installs several listeners' mapping in the voice kernel, or removes it (nil: one listener).
    func installRig(_ rig: (any ListenerRig)?)
    /// The installed rig's listeners moved, turned or changed weight.
    func rigChanged()
}
