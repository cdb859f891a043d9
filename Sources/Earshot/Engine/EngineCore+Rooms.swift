/// The core as the rooms' host (AL lock held): ``RoomStage`` owns the geometry and computes each
/// positioned voice's path; the core hands it the voices and places them where they are heard.
extension EngineCore: RoomHost {
    var voiceCapacity: Int { pool.capacity }

    func forEachPositionedVoice(_ body: (Int, UInt32, Vector3) -> Void) {
        for index in pool.live {
            guard let p = pool.position(ofSlot: index) else { continue }
            body(index, pool.slots[index].generation, p)
        }
    }

    func attenuation(ofSlot slot: Int, at position: Vector3) -> Float {
        var s = pool.voiceSpatial(slot)
        s.position = position
        return s.attenuation(listenerPosition: listener.position, model: pool.distanceModel)
    }

    func setHeard(ofSlot slot: Int, position: Vector3?, filter: LowPassFilter) {
        pool.setHeard(ofSlot: slot, position: position, filter: filter)
    }

    func slot(of id: VoiceID) -> Int? { pool.slot(id) }
}
