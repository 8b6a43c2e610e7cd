import Foundation
import Testing
import RosterUpdates
import RosterTestSupport

/// Snapshots in tests: sections named by strings, items by strings.
typealias Snapshot = [ListSection<String, String>]
typealias Group = ChangeGroup<String, String>

/// `[section, item]` in one short call.
func path(_ section: Int, _ item: Int) -> IndexPath {
    IndexPath(item: item, section: section)
}

func sectionDelete(_ index: Int, _ name: String) -> SectionChange<String> {
    SectionChange(type: .delete, index: index, section: name)
}

func sectionInsert(_ index: Int, _ name: String) -> SectionChange<String> {
    SectionChange(type: .insert, index: index, section: name)
}

func objectInsert(_ item: String, to: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .insert, item: item, from: nil, to: to)
}

func objectDelete(_ item: String, from: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .delete, item: item, from: from, to: nil)
}

func objectMove(_ item: String, from: IndexPath, to: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .move, item: item, from: from, to: to)
}

func objectUpdate(_ item: String, from: IndexPath, to: IndexPath) -> ObjectChange<String> {
    ObjectChange(type: .update, item: item, from: from, to: to)
}

/// Every path of a snapshot, by item.
func pathsByItem(_ snapshot: Snapshot) -> [String: IndexPath] {
    var paths: [String: IndexPath] = [:]
    for (sectionIndex, section) in snapshot.enumerated() {
        for (itemIndex, item) in section.items.enumerated() {
            paths[item] = path(sectionIndex, itemIndex)
        }
    }
    return paths
}
