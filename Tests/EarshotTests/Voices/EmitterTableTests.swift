@testable import Earshot
import XCTest

/// The voice pool's emitter table: handles, versions and the cached attenuation.
final class EmitterTableTests: XCTestCase {
    private func at(_ x: Float) -> SpatialProperties {
        SpatialProperties(position: Vector3(x, 0, 0))
    }

    func testHandlesFindTheirEmitterAndKeepItsProperties() throws {
        let table = EmitterTable()
        XCTAssertTrue(table.isEmpty)
        let a = table.make(at(1)), b = table.make(at(2))
        XCTAssertEqual(table.count, 2)
        let ia = try XCTUnwrap(table.index(of: a)), ib = try XCTUnwrap(table.index(of: b))
        XCTAssertNotEqual(ia, ib)
        XCTAssertEqual(table.spatial[ia].position.x, 1)
        XCTAssertEqual(table.spatial[ib].position.x, 2)
        XCTAssertEqual(table.environment[ia], .open)
        XCTAssertTrue(table.states[ia].alive)
        XCTAssertNil(table.index(of: EmitterID(index: 99, generation: 0)), "an index past the table")
    }

    /// A removed emitter's handle goes stale; its index is reused under a new generation, with a
    /// fresh environment, and the old handle stays stale.
    func testRemovedIndexIsReusedUnderANewGeneration() throws {
        let table = EmitterTable()
        let a = table.make(at(1))
        let ia = try XCTUnwrap(table.index(of: a))
        table.setEnvironment(ia, EnvironmentProperties(occlusion: 0.5))
        table.remove(ia)
        XCTAssertNil(table.index(of: a))
        XCTAssertFalse(table.states[ia].alive)

        let c = table.make(at(3))
        XCTAssertEqual(Int(c.index), ia, "the freed index is taken first")
        XCTAssertNotEqual(c.generation, a.generation)
        XCTAssertEqual(table.count, 1, "no new row")
        XCTAssertNil(table.index(of: a))
        XCTAssertEqual(table.index(of: c), ia)
        XCTAssertEqual(table.environment[ia], .open)
        XCTAssertEqual(table.spatial[ia].position.x, 3)
    }

    /// A move bumps `version` only; any other change bumps `fullVersion` too (voices then resend
    /// every property instead of the position alone).
    func testVersionsTellAMoveFromAFullChange() throws {
        let table = EmitterTable()
        let i = try XCTUnwrap(table.index(of: table.make(at(0))))
        var version = table.states[i].version, full = table.states[i].fullVersion

        table.setPosition(i, Vector3(5, 0, 0))
        XCTAssertEqual(table.states[i].version, version &+ 1)
        XCTAssertEqual(table.states[i].fullVersion, full)
        XCTAssertEqual(table.spatial[i].position.x, 5)
        version = table.states[i].version

        table.set(i, at(7))
        XCTAssertEqual(table.states[i].version, version &+ 1)
        XCTAssertEqual(table.states[i].fullVersion, full &+ 1)
        version = table.states[i].version
        full = table.states[i].fullVersion

        table.setEnvironment(i, EnvironmentProperties(obstruction: 0.25))
        XCTAssertEqual(table.states[i].version, version &+ 1)
        XCTAssertEqual(table.states[i].fullVersion, full &+ 1)
        XCTAssertEqual(table.environment[i].obstruction, 0.25)
    }

    /// The attenuation is cached per emitter change and per listener geometry (epoch); between
    /// refreshes of a new epoch it is computed directly, leaving the cache alone.
    func testAttenuationIsCachedPerChangeAndPerEpoch() throws {
        let table = EmitterTable()
        let i = try XCTUnwrap(table.index(of: table.make(at(10))))
        let listener = Vector3.zero, model = DistanceModel.inverseClamped
        func expected(_ x: Float, from l: Vector3 = .zero) -> Float {
            at(x).attenuation(listenerPosition: l, model: model)
        }
        XCTAssertLessThan(expected(10), 1, "the test needs a distance that attenuates")

        // Epoch 1 not refreshed yet: computed directly, nothing cached.
        XCTAssertEqual(table.attenuation(i, listenerPosition: listener, model: model, epoch: 1), expected(10))
        XCTAssertEqual(table.states[i].gainVersion, 0)

        table.refreshGains(listenerPosition: listener, model: model, epoch: 1)
        XCTAssertEqual(table.gainsEpoch, 1)
        XCTAssertEqual(table.states[i].gainVersion, table.states[i].version)
        XCTAssertEqual(table.states[i].gain, expected(10))

        // A move invalidates this emitter's entry; the next read recomputes and caches it.
        table.setPosition(i, Vector3(20, 0, 0))
        XCTAssertEqual(table.attenuation(i, listenerPosition: listener, model: model, epoch: 1), expected(20))
        XCTAssertEqual(table.states[i].gainVersion, table.states[i].version)

        // The listener moved (epoch 2): direct reads until a refresh brings every emitter over.
        let moved = Vector3(20, 0, 0)
        XCTAssertEqual(table.attenuation(i, listenerPosition: moved, model: model, epoch: 2), expected(20, from: moved))
        XCTAssertEqual(table.states[i].gain, expected(20), "the stale cache is not written by a direct read")
        table.refreshGains(listenerPosition: moved, model: model, epoch: 2)
        XCTAssertEqual(table.states[i].gain, expected(20, from: moved))
        XCTAssertEqual(table.attenuation(i, listenerPosition: moved, model: model, epoch: 2), expected(20, from: moved))
    }

    func testRefreshSkipsRemovedEmitters() throws {
        let table = EmitterTable()
        let i = try XCTUnwrap(table.index(of: table.make(at(10))))
        table.remove(i)
        table.refreshGains(listenerPosition: .zero, model: .inverseClamped, epoch: 1)
        XCTAssertEqual(table.states[i].gainVersion, 0, "a removed emitter is not computed")
        XCTAssertEqual(table.gainsEpoch, 1)
    }
}
