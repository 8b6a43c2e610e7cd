import Foundation
import Testing
@testable import Roster

/// A small deterministic random number generator (SplitMix64), so random cases repeat.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Records every delegate callback of a controller as a change group.
final class GroupRecorder: ResultsControllerDelegate {
    private(set) var groups: [ChangeGroup<Value, Value>] = []
    private var current: ChangeGroup<Value, Value>?
    private(set) var callbackOrderProblems: [String] = []

    func takeGroups() -> [ChangeGroup<Value, Value>] {
        defer { groups = [] }
        return groups
    }

    func controllerWillChangeContent(_ controller: ResultsController) {
        if current != nil { callbackOrderProblems.append("willChange twice without didChange") }
        current = ChangeGroup()
    }

    func controller(_ controller: ResultsController, didChange section: SectionInfo, atSectionIndex sectionIndex: Int, for type: SectionChangeType) {
        guard current != nil else { return callbackOrderProblems.append("section change outside willChange/didChange") }
        if !(current!.objectChanges.isEmpty) { callbackOrderProblems.append("section change after an object change") }
        current!.sectionChanges.append(SectionChange(type: type, index: sectionIndex, section: section.name))
    }

    func controller(_ controller: ResultsController, didChange object: Object, at indexPath: IndexPath?, for type: ObjectChangeType, newIndexPath: IndexPath?) {
        guard current != nil else { return callbackOrderProblems.append("object change outside willChange/didChange") }
        current!.objectChanges.append(ObjectChange(type: type, item: object.key, from: indexPath, to: newIndexPath))
    }

    func controllerDidChangeContent(_ controller: ResultsController) {
        guard let current else { return callbackOrderProblems.append("didChange without willChange") }
        groups.append(current)
        self.current = nil
    }
}

/// The Post entity most tests use.
func postEntity() throws -> Entity {
    try Entity("Post", key: "id", attributes: [
        Attribute("id", .string), Attribute("title", .string), Attribute("day", .string),
        Attribute("rank", .integer), Attribute("score", .double), Attribute("pinned", .bool),
    ])
}

/// A temporary store with the Post entity defined.
func postStore() throws -> Store {
    let store = try Store.temporary()
    try store.define(postEntity())
    return store
}

/// Sections of keys, written compactly for expectations: `[("a", ["p1"]), …]`.
func sections(_ pairs: [(Value, [Value])]) -> [Section<Value, Value>] {
    pairs.map { Section(id: $0.0, items: $0.1) }
}
typealias SortKey = Roster.SortKey
