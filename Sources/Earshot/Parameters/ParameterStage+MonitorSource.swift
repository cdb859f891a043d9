/// The parameters' layers and values for the monitor (``MonitorParameterSource``): read only.
extension ParameterStage: MonitorParameterSource {
    func monitorLayer(slot i: Int, generation: UInt32) -> MonitorLayer? {
        let curves = voices.entries
        guard i < curves.count, curves[i].active, curves[i].generation == generation, curves[i].layer >= 0 else {
            return nil
        }
        let leader = curves[i].leader >= 0 ? (UInt32(curves[i].leader), curves[i].leaderGeneration) : nil
        return MonitorLayer(soundKey: curves[i].soundKey, layer: curves[i].layer, leader: leader)
    }

    func forEachMonitorParameter(limit: Int, _ body: (String, Double) -> Void) {
        for (i, d) in definitions.prefix(limit).enumerated() where i < global.count { body(d.name, global[i].current) }
    }
}
