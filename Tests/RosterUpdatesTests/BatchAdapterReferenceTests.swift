import Foundation
import Testing
import RosterTestSupport
import RosterUpdates

/// `BatchAdapter` against the way it was first written — sets of `IndexPath`s and a
/// dictionary of moves — on random groups, well formed or not (paths named twice, updates
/// of deleted items, moves to one destination, items in deleted or inserted sections, a
/// delete's or an insert's unused path not two elements long): the
/// adapter now sorts lists of integer pairs, and must give the very same batch.
@Suite struct BatchAdapterReferenceTests {
    @Test func sameBatchAsTheSetBasedAdapterOnRandomGroups() {
        var random = SplitMix64(seed: 0xBA7C)
        for round in 0..<3_000 {
            let group = Self.randomGroup(using: &random)
            for keepsMoves in [false, true] {
                for reloading in [nil, Set<String>(), Set(["title"])] as [Set<String>?] {
                    let adapter = BatchAdapter(keepsMoves: keepsMoves, reloadingAttributes: reloading)
                    let expected = Self.referenceBatch(adapter, for: group)
                    let batch = adapter.batch(for: group)
                    #expect(batch == expected, "round \(round), keepsMoves \(keepsMoves), reloading \(String(describing: reloading)): \(group)")
                    if batch != expected { return }
                }
            }
        }
    }

    /// A group of up to 40 events over 3 sections of 6 items, so that paths collide often.
    static func randomGroup(using random: inout SplitMix64) -> ChangeGroup<Int, Int> {
        func path() -> IndexPath { IndexPath(item: Int.random(in: 0..<6, using: &random), section: Int.random(in: 0..<3, using: &random)) }
        var sections: [SectionChange<Int>] = []
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let index = Int.random(in: 0..<3, using: &random)
            sections.append(SectionChange(type: Bool.random(using: &random) ? .delete : .insert, index: index, section: index))
        }
        var objects: [ObjectChange<Int>] = []
        for item in 0..<Int.random(in: 0...40, using: &random) {
            let attributes: [String]? = switch Int.random(in: 0..<4, using: &random) {
            case 0: nil
            case 1: []
            case 2: ["title"]
            default: ["score"]
            }
            switch Int.random(in: 0..<5, using: &random) {
            // A path an event's type does not use may be anything, even no list view's path:
            // it is never read.
            case 0: objects.append(ObjectChange(type: .delete, item: item, from: path(), to: Bool.random(using: &random) ? nil : IndexPath()))
            case 1: objects.append(ObjectChange(type: .insert, item: item, from: Bool.random(using: &random) ? nil : IndexPath(indexes: [1, 2, 3]), to: path()))
            case 2: objects.append(ObjectChange(type: .move, item: item, from: path(), to: path(), changedAttributes: attributes))
            case 3: objects.append(ObjectChange(type: .update, item: item, from: path(), to: path(), changedAttributes: attributes))
            default: objects.append(ObjectChange(type: .update, item: item, from: path(), to: Bool.random(using: &random) ? nil : path()))
            }
        }
        return ChangeGroup(sectionChanges: sections, objectChanges: objects)
    }

    /// The adapter as it was written first (sets and a dictionary of `IndexPath`s).
    static func referenceBatch(_ adapter: BatchAdapter, for group: ChangeGroup<Int, Int>) -> BatchUpdate {
        var deletedSections = Set<Int>()
        var insertedSections = Set<Int>()
        for change in group.sectionChanges {
            switch change.type {
            case .delete: deletedSections.insert(change.index)
            case .insert: insertedSections.insert(change.index)
            }
        }
        var deletes = Set<IndexPath>()
        var inserts = Set<IndexPath>()
        var moves: [IndexPath: IndexPath] = [:]
        var reloadCandidates: [IndexPath] = []
        var reconfigured: [IndexPath] = []
        func deleteUnlessCovered(_ path: IndexPath) { if !deletedSections.contains(path.section) { deletes.insert(path) } }
        func insertUnlessCovered(_ path: IndexPath) { if !insertedSections.contains(path.section) { inserts.insert(path) } }
        func crossesSectionChange(from: IndexPath, to: IndexPath) -> Bool {
            deletedSections.contains(from.section) || insertedSections.contains(to.section)
        }
        var updatedSources = Set<IndexPath>()
        if adapter.keepsMoves && group.objectChanges.contains(where: { $0.type == .move }) {
            for change in group.objectChanges where change.type == .update {
                if let from = change.from { updatedSources.insert(from) }
            }
        }
        for change in group.objectChanges {
            switch (change.type, change.from, change.to) {
            case (.delete, let from?, _):
                deleteUnlessCovered(from)
            case (.insert, _, let to?):
                insertUnlessCovered(to)
            case (.move, let from?, let to?):
                if adapter.keepsMoves && !crossesSectionChange(from: from, to: to) && !updatedSources.contains(from)
                    && (change.changedAttributes?.isEmpty ?? true) {
                    moves[to] = from
                } else {
                    deleteUnlessCovered(from)
                    insertUnlessCovered(to)
                }
            case (.update, let from?, let to?):
                if crossesSectionChange(from: from, to: to) {
                    deleteUnlessCovered(from)
                    insertUnlessCovered(to)
                } else if adapter.reconfigures(change) {
                    reconfigured.append(to)
                } else {
                    reloadCandidates.append(from)
                }
            case (.update, let from?, nil):
                reloadCandidates.append(from)
            default:
                break
            }
        }
        let moveSources = Set(moves.values)
        let reloads = Set(reloadCandidates.filter {
            !deletedSections.contains($0.section) && !deletes.contains($0) && !moveSources.contains($0)
        })
        reconfigured.removeAll { inserts.contains($0) || moves[$0] != nil }
        return BatchUpdate(
            deleteSections: deletedSections.sorted(), insertSections: insertedSections.sorted(),
            deleteItems: deletes.sorted(), insertItems: inserts.sorted(), reloadItems: reloads.sorted(),
            moveItems: moves.map { ItemMove(from: $0.value, to: $0.key) }.sorted { $0.to < $1.to },
            reconfigureItems: reconfigured.sorted())
    }
}
