/// A JSON object: members in the order they were written, with lookup by key.
///
/// Keys are matched by their UTF-8 bytes (a precomposed `"é"` and a decomposed
/// `"e\u{301}"` are different keys) and appear at most once. Iterating gives the members
/// in order; equality compares them in order too, so `{"a":1,"b":2}` and `{"b":2,"a":1}`
/// are different objects.
///
/// ```swift
/// var event: JSONObject = ["line": 3, "query": "q1"]
/// event["event"] = "snapshot"              // appended after "query"
/// event.keys                               // ["line", "query", "event"]
/// ```
///
/// - Complexity: Lookup is O(*n*) for small objects and O(1) on average for objects
///   with more than ``indexingThreshold`` members.
package struct JSONObject: Sendable {
    /// One member: a key and its value.
    package typealias Member = (key: String, value: JSONValue)

    /// The number of members above which the object keeps a hash index of its keys.
    package static let indexingThreshold = 12

    /// The members, in order.
    package private(set) var members: [Member]

    /// Position of each key in `members`; empty while there are few members.
    private var positions: [JSONKey: Int]

    /// Creates an empty object.
    package init() {
        members = []
        positions = [:]
    }

    /// Creates an object with the given members, in the given order.
    ///
    /// - Parameter members: Key-value pairs.
    /// - Precondition: No key appears twice.
    package init(uniqueKeysWithValues members: some Sequence<(String, JSONValue)>) {
        self.init()
        for (key, value) in members {
            precondition(appendNew(key: key, value: value), "duplicate key '\(key)' in JSONObject")
        }
    }

    /// The keys, in order.
    package var keys: [String] { members.map(\.key) }

    /// The values, in the order of their keys.
    package var values: [JSONValue] { members.map(\.value) }

    /// The position of the member named `key`, or nil if there is none.
    ///
    /// - Parameter key: A key, matched by UTF-8 bytes.
    package func index(forKey key: String) -> Int? {
        if positions.isEmpty {
            return members.firstIndex { $0.key.utf8.elementsEqual(key.utf8) }
        }
        return positions[JSONKey(key)]
    }

    /// Whether the object has a member named `key`.
    ///
    /// - Parameter key: A key, matched by UTF-8 bytes.
    package func contains(key: String) -> Bool {
        index(forKey: key) != nil
    }

    /// Appends a member unless its key is already present.
    ///
    /// - Returns: false, changing nothing, when `key` is already a member.
    mutating func appendNew(key: String, value: JSONValue) -> Bool {
        if index(forKey: key) != nil { return false }
        members.append((key, value))
        if !positions.isEmpty {
            positions[JSONKey(key)] = members.count - 1
        } else if members.count > Self.indexingThreshold {
            rebuildPositions()
        }
        return true
    }

    private mutating func rebuildPositions() {
        positions = [:]
        guard members.count > Self.indexingThreshold else { return }
        positions.reserveCapacity(members.count)
        for (index, member) in members.enumerated() {
            positions[JSONKey(member.key)] = index
        }
    }
}

extension JSONObject {
    /// The value of the member named `key`; setting a value replaces it in place or
    /// appends a new member, setting nil removes the member.
    ///
    /// - Parameter key: A key, matched by UTF-8 bytes.
    package subscript(key: String) -> JSONValue? {
        get { index(forKey: key).map { members[$0].value } }
        set {
            if let newValue {
                updateValue(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Replaces the value of the member named `key` in place, or appends a new member.
    ///
    /// - Returns: The value it replaced, or nil if the member is new.
    @discardableResult
    package mutating func updateValue(_ value: JSONValue, forKey key: String) -> JSONValue? {
        if let index = index(forKey: key) {
            let old = members[index].value
            members[index].value = value
            return old
        }
        _ = appendNew(key: key, value: value)
        return nil
    }

    /// Removes the member named `key`, keeping the order of the others.
    ///
    /// - Returns: The removed value, or nil if there was no such member.
    /// - Complexity: O(*n*).
    @discardableResult
    package mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let index = index(forKey: key) else { return nil }
        let removed = members.remove(at: index).value
        rebuildPositions()
        return removed
    }
}
