import RosterJSON

/// The `--pretty` form of a trace: the same events, written for a person to read.
///
/// Each group of callbacks gets a header naming its script line and query, then one line
/// per change, the batch (only its non-empty fields) and the results after it:
///
/// ```
/// line 9 · todo
///   move 't1' from [1,2] to [1,0]
///   batch: deleteItems [1,2]; insertItems [1,0]
///   now: 'home': 't4' | 'work': 't1' 't2' 't3'
/// ```
///
/// Keys and section names print as the examples print them (`'t1'`, numbers as they are,
/// other values as compact JSON). An event this formatter does not know prints as its
/// compact JSON, so nothing is ever left out. JSON Lines (the default) stay the format for
/// programs; Docs/ScriptFormat.md describes both.
package struct TraceFormat {
    /// The script line and query of the group being written, once its `willChange` came.
    private var group: (line: JSONValue?, query: JSONValue?)?
    /// Whether anything was written yet, so that groups are set apart by a blank line.
    private var hasWritten = false

    /// Creates a formatter; it remembers the group it is in.
    package init() {}

    /// The event as lines of text (possibly none, for `didChange`), without a final newline.
    package mutating func readable(_ event: JSONValue) -> String? {
        let line = event["line"]
        let query = event["query"]
        let kind = event["event"]?.stringValue ?? ""
        if let current = group, current.line != line || current.query != query { group = nil }
        switch kind {
        case "willChange":
            group = (line, query)
            return start(header(line, query))
        case "didChange":
            return nil
        case "section" where group != nil:
            // A query without a section attribute has one section, named null.
            let name = event["name"].flatMap { $0 == .null ? nil : " " + text($0) } ?? ""
            return "  section \(event["change"]?.stringValue ?? "?") \(text(event["index"]))\(name)"
        case "object" where group != nil:
            return "  " + objectChange(event)
        case "batch" where group != nil:
            return "  batch: " + batch(event)
        case "snapshot" where group != nil:
            group = nil
            return "  now: " + sections(event["sections"])
        case "snapshot":
            return start(header(line, query) + " · snapshot: " + sections(event["sections"]))
        case "error":
            return start(header(line, query) + " · error: " + (event["message"]?.stringValue ?? ""))
        case "resync":
            return start(header(line, query) + " · resync (\(event["reason"]?.stringValue ?? "?"))")
        default:
            return start(event.serialized())
        }
    }

    /// `text` after a blank line, unless it is the first thing written.
    private mutating func start(_ text: String) -> String {
        defer { hasWritten = true }
        return hasWritten ? "\n" + text : text
    }

    private func header(_ line: JSONValue?, _ query: JSONValue?) -> String {
        var text = "line \(line.map { $0.serialized() } ?? "?")"
        if let query { text += " · \(query.stringValue ?? query.serialized())" }
        return text
    }

    private func objectChange(_ event: JSONValue) -> String {
        let key = text(event["key"])
        let from = event["from"].map(path) ?? "?"
        let to = event["to"].map(path) ?? "?"
        switch event["change"]?.stringValue {
        case "insert": return "insert \(key) at \(to)"
        case "delete": return "delete \(key) from \(from)"
        case "move": return "move \(key) from \(from) to \(to)"
        case "update": return from == to ? "update \(key) at \(to)" : "update \(key) from \(from) to \(to)"
        default: return event.serialized()
        }
    }

    /// The batch's non-empty fields, in the trace's order.
    private func batch(_ event: JSONValue) -> String {
        guard case let .object(object) = event else { return event.serialized() }
        var parts: [String] = []
        for member in object.members where !["line", "query", "event"].contains(member.key) {
            guard case let .array(items) = member.value, !items.isEmpty else { continue }
            guard items.contains(where: { if case .array = $0 { true } else { false } }) else {
                parts.append("\(member.key) \(member.value.serialized())")  // section indexes: [0,2]
                continue
            }
            let shown: [String] = items.map { item in
                if case let .array(pair) = item, pair.count == 2, case .array = pair[0] {
                    return "\(path(pair[0]))→\(path(pair[1]))"  // a move: [from, to]
                }
                if case .array = item { return path(item) }
                return item.serialized()
            }
            parts.append("\(member.key) \(shown.joined(separator: " "))")
        }
        return parts.isEmpty ? "nothing" : parts.joined(separator: "; ")
    }

    /// `'name': 'k1' 'k2' | 'other': 'k3'` (a section named null shows only its keys), or
    /// `no sections`.
    private func sections(_ value: JSONValue?) -> String {
        guard case let .array(sections)? = value, !sections.isEmpty else { return "no sections" }
        return sections.map { section in
            var keys: [JSONValue] = []
            if case let .array(items)? = section["keys"] { keys = items }
            let items = keys.map(text).joined(separator: " ")
            return section["name"] == .null ? items : "\(text(section["name"])): " + items
        }.joined(separator: " | ")
    }

    /// An index path, `[section,item]`, without spaces.
    private func path(_ value: JSONValue) -> String { value.serialized() }

    /// A key or name: strings in single quotes, other values as compact JSON.
    private func text(_ value: JSONValue?) -> String {
        guard let value else { return "?" }
        if let string = value.stringValue { return "'\(string)'" }
        return value.serialized()
    }
}
