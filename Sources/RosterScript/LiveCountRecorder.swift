import Roster
import RosterJSON

/// The delegate of one live count in a script run: writes each new count as a `count`
/// event, and each failure as an `error` event naming it.
final class LiveCountRecorder: LiveCountDelegate, EventSource {
    let name: String
    let liveCount: LiveCount
    private var events: [JSONObject] = []

    init(name: String, liveCount: LiveCount) {
        self.name = name
        self.liveCount = liveCount
    }

    func takeEvents() -> [JSONObject] {
        defer { events = [] }
        return events
    }

    func liveCount(_ liveCount: LiveCount, didChangeTo count: Int) {
        record("count", [("count", .integer(Int64(count)))])
    }

    func liveCount(_ liveCount: LiveCount, didFailWith error: StoreError) {
        record("error", [("message", .string("\(error)"))])
    }

    private func record(_ event: String, _ fields: [(String, JSONValue)]) {
        events.append(JSONObject(uniqueKeysWithValues: [("query", .string(name)), ("event", .string(event))] + fields))
    }
}
