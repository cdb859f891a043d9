/// The core's readings for the monitor (``MonitorSource``): read only, under the AL lock.
extension EngineCore: MonitorSource {
    var voiceSource: any MonitorVoiceSource { pool }
    var parameterSource: any MonitorParameterSource { parameters }
    var soundRefusals: Int { sounds.stats.limitRefusals + sounds.stats.cooldownRefusals }

    func clipName(_ id: UInt32) -> String {
        Int(id) < clips.count ? clips[Int(id)].info?.name ?? "?" : "?"
    }

    func sound(forKey key: UInt32) -> Sound? { sounds.sound(forKey: key) }

    func monitorBusPower() -> [Float] { mixer.busPower(host: self) }

    func liveLoudness(ofBus bus: Int?) -> (momentary: Double, shortTerm: Double) { busLoudness.reading(ofBus: bus) }

    func audibleZones() -> [(name: String, gain: Double)] {
        let zones = environment.reverbZones + environment.roomZones   // as the zones' mixer blends them
        guard !zones.isEmpty else { return [] }
        return ZoneBlend.mix(zones: zones, listener: listener, sends: max(1, sendRouter.zoneSendCount))
            .filter { $0.zone < zones.count }
            .map { (zones[$0.zone].name, Double($0.gain)) }
    }

    func monitorPropagation(slot: Int, generation: UInt32) -> Propagation? {
        rooms.propagation(ofSlot: slot, generation: generation)
    }

    /// The rooms' readings, the listener's room at the gain the environment mixes its zone with
    /// (left out when its zone is not heard).
    func monitorRoomReverbs() -> [RoomReverbReading]? {
        guard var readings = rooms.ringingReverbs() else { return nil }
        if let k = readings.firstIndex(where: { $0.heard == .around }) {
            let name = RoomStage.zoneName(ofRoom: readings[k].room)
            if let zone = audibleZones().first(where: { $0.name == name }), zone.gain > 0 {
                readings[k].levelDB = RoomMath.dB(Float(zone.gain))
            } else {
                readings.remove(at: k)
            }
        }
        return readings
    }
}
