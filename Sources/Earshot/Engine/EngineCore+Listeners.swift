/// The core as the listeners' host (Listeners/ListenerHost.swift): OpenAL's listener is set in
/// `EngineCore.applyALListener` (EngineCore.swift); the rig goes to the voice kernel.
extension EngineCore: ListenerHost {
    func installRig(_ rig: (any ListenerRig)?) {
        pool.setRig(rig)
    }

    func rigChanged() {
        pool.listenersMoved()
    }
}
