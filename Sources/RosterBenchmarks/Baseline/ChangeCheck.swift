import Roster

/// Compares what the live query reported with what the baseline computed for the same
/// commit: the two must be the very same change group.
enum ChangeCheck {
    /// The baseline's group in the live query's terms (`Value` keys and section names);
    /// nil for an empty group, as a live query reports nothing then.
    static func converted(_ group: ChangeGroup<String, String>) -> ChangeGroup<Value, Value>? {
        guard !group.isEmpty else { return nil }
        return ChangeGroup(
            sectionChanges: group.sectionChanges.map { SectionChange(type: $0.type, index: $0.index, section: .string($0.section)) },
            objectChanges: group.objectChanges.map { ObjectChange(type: $0.type, item: .string($0.item), from: $0.from, to: $0.to) })
    }

    /// A description of how the two groups differ, or nil when they are equal.
    static func difference(roster: ChangeGroup<Value, Value>?, baseline: ChangeGroup<String, String>) -> String? {
        let expected = converted(baseline)
        guard roster != expected else { return nil }
        func describe(_ group: ChangeGroup<Value, Value>?) -> String {
            guard let group else { return "nothing" }
            let sections = group.sectionChanges.prefix(4).map { "section \($0.type) \($0.index) \($0.section)" }
            let objects = group.objectChanges.prefix(6).map { change in
                "\(change.type) \(change.item) \(change.from.map { "[\($0.section),\($0.item)]" } ?? "-")→\(change.to.map { "[\($0.section),\($0.item)]" } ?? "-")"
            }
            let more = group.sectionChanges.count + group.objectChanges.count - sections.count - objects.count
            return "\(group.sectionChanges.count) section and \(group.objectChanges.count) object events: "
                + (sections + objects).joined(separator: "; ") + (more > 0 ? "; … \(more) more" : "")
        }
        return "live query reported \(describe(roster)); re-fetch and diff found \(describe(expected))"
    }
}
