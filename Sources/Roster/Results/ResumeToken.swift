import Foundation
import RosterJSON
import RosterUpdates

/// A durable note of what a live query's consumer last saw: the change-log position of
/// its results, its request, its window and the keys the window showed. Save it (its
/// ``encoded`` text) when the app goes away; on the next launch, or in another process
/// such as a widget, ``ResultsController/performFetch(resumingFrom:)`` reports what
/// changed since, as one change group against the window the token saved.
///
/// ```swift
/// UserDefaults.standard.set(try controller.resumeToken().encoded, forKey: "feed")
/// // … next launch:
/// if let saved = UserDefaults.standard.string(forKey: "feed") {
///     try controller.performFetch(resumingFrom: ResumeToken(saved))
/// }
/// ```
///
/// A token holds the keys it shows, so it is as large as the window: made for windows
/// (``ResultsWindow``), though a query without one can save one too. A window opened cold
/// saves its rows too, so that a resume reads only the rows the change log names since.
public struct ResumeToken: Sendable, Hashable, CustomStringConvertible {
    /// The store's identifier (``StorageBackend/storeIdentifier()``).
    let store: String
    /// The request the token was saved for, as ``fingerprint(of:)`` writes it.
    let request: String
    /// The change-log position of the results the consumer saw.
    let position: Int64
    /// The window, with its anchor as it stood; nil: every row.
    let window: ResultsWindow?
    /// The rank of the window's first row when saved, when known: where an anchor that
    /// left is placed when none of its neighbours stayed (the top, when unknown).
    let firstRank: Int?
    /// What the consumer saw: sections of keys.
    let sections: [ListSection<Value, Value>]
    /// Whether `sections` are where `window` placed them at `position`. False for a token
    /// saved while its query waited for a resync: the consumer saw them before the failure,
    /// perhaps in a window it left since; a resume then reads the window where it stands
    /// rather than placing it from them.
    let isPlaced: Bool
    /// Whether the log recorded the query's entities from `position` on. False for a token
    /// saved before their tracking started (inside the transaction that first watched
    /// them): the writes until it started went unlogged, so a resume is a resync
    /// (``ResyncReason/logPruned``: the log does not reach back to the token).
    let isLogged: Bool
    /// The rows the window showed, as they were at `position`, when the token holds them
    /// (a window opened cold saves them): a resume then reads only the rows the log names
    /// since. Nil: a resume reads the rows `sections` name.
    let shownRows: ShownRows?
    /// Every key `sections` name, for a token that keeps its rows (a window's, so few): the
    /// rows a resume reads whatever the log says of them (``RowReadScope``), kept from the
    /// check that no key repeats when the token is read from its text. Nil otherwise: a
    /// token of whole results would hold a set of every row's key.
    let shownKeys: Set<Value>?

    init(store: String, request: String, position: Int64, window: ResultsWindow?, firstRank: Int?, sections: [ListSection<Value, Value>],
         isPlaced: Bool = true, isLogged: Bool = true, shownRows: ShownRows? = nil, shownKeys: Set<Value>? = nil) {
        self.store = store
        self.request = request
        self.position = position
        self.window = window
        self.firstRank = firstRank
        self.sections = sections
        self.isPlaced = isPlaced
        self.isLogged = isLogged
        self.shownRows = shownRows
        self.shownKeys = shownRows == nil ? nil : shownKeys ?? Set(sections.flatMap { $0.items })
    }

    /// What the text of a token starts with: `roster-token-2:`, whose sections (and rows)
    /// follow its JSON in a compact form; `roster-token-1:`, whose sections are JSON
    /// arrays, written before 2026-11-30 and still read.
    private static let prefix = "roster-token-2:"
    private static let firstPrefix = "roster-token-1:"

    /// The token as text, to store anywhere: `roster-token-2:`, base64 of JSON, `.` and
    /// base64 of its body: the sections, then the window's rows when it holds them, in a
    /// compact binary form (a tag and a payload a value) that reads a hundred times faster
    /// than JSON.
    public var encoded: String {
        var members: [String: Any] = ["store": store, "request": request, "position": String(position)]
        var body = Self.encode(sections)
        if let firstRank { members["rank"] = String(firstRank) }
        if !isPlaced { members["unplaced"] = "1" }
        if !isLogged { members["unlogged"] = "1" }
        if let shownRows {
            members["rows"] = [shownRows.layout, String(shownRows.width), String(shownRows.keyIndex), shownRows.logEntry]
            body += shownRows.encodedValues
        }
        switch window {
        case nil: break
        case let .offset(offset, length)?: members["window"] = ["offset", String(offset), String(length)]
        case let .anchored(key, before, after)?: members["window"] = ["anchored", Self.json(key), String(before), String(after)]
        }
        // Every value is a string, an array or a dictionary: serialization cannot fail.
        let data = (try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys])) ?? Data()
        return Self.prefix + data.base64EncodedString() + "." + Data(body).base64EncodedString()
    }

    public var description: String { encoded }

    /// Reads a token from its ``encoded`` text.
    ///
    /// - Throws: ``StoreError/Code/invalidResumeToken`` saying what is wrong, when the text
    ///   is not a token this Roster wrote.
    public init(_ encoded: String) throws {
        let isFirstForm = encoded.hasPrefix(Self.firstPrefix)
        guard encoded.hasPrefix(Self.prefix) || isFirstForm else {
            throw StoreError.invalidResumeToken("a resume token starts with '\(Self.prefix)'; this text starts with '\(encoded.prefix(16))'")
        }
        // The first form is JSON alone; the second, JSON, a dot and the compact body.
        let text = encoded.dropFirst(Self.prefix.count)
        // (By its bytes: by characters, a walk over a long token costs more than its JSON.)
        let dot = isFirstForm ? nil : text.utf8.firstIndex(of: UInt8(ascii: "."))
        guard isFirstForm || dot != nil, let members = Self.head(dot.map { text[..<$0] } ?? text) else {
            throw StoreError.invalidResumeToken("the resume token is damaged: its body is not base64 of a JSON object")
        }
        guard let store = members["store"] as? String, let request = members["request"] as? String,
              let positionText = members["position"] as? String, let position = Int64(positionText), position >= 0 else {
            throw StoreError.invalidResumeToken("the resume token is damaged: it lacks its store, request or log position")
        }
        var firstRank: Int?
        if let rankMember = members["rank"] {
            guard let text = rankMember as? String, let rank = Int(text), rank >= 0 else {
                throw StoreError.invalidResumeToken("the resume token is damaged: its window's rank is not a count")
            }
            firstRank = rank
        }
        for mark in ["unplaced", "unlogged"] {
            if let value = members[mark], value as? String != "1" {
                throw StoreError.invalidResumeToken("the resume token is damaged: its '\(mark)' mark is not \"1\"")
            }
        }
        let sections: [ListSection<Value, Value>]
        var body: CompactValueReader?
        if let dot {
            guard let bytes = Data(base64Encoded: String(text[text.index(after: dot)...])) else {
                throw StoreError.invalidResumeToken("the resume token is damaged: its body is not base64")
            }
            var reader = CompactValueReader(Array(bytes))
            sections = try Self.checkedSections(reading: &reader)
            body = reader
        } else {
            sections = try Self.sections(json: members["sections"])
        }
        // What a live query shows never repeats a key or a section, nor holds an empty one.
        var keys = Set<Value>(minimumCapacity: sections.reduce(0) { $0 + $1.items.count })
        var names = Set<Value>(minimumCapacity: sections.count)
        for section in sections {
            guard !section.items.isEmpty, names.insert(section.id).inserted else {
                throw StoreError.invalidResumeToken("the resume token is damaged: a section is empty or repeated")
            }
            for key in section.items where !keys.insert(key).inserted {
                throw StoreError.invalidResumeToken("the resume token is damaged: key \(key) appears twice")
            }
        }
        var window: ResultsWindow?
        if let spec = members["window"] {
            guard let parts = spec as? [Any], let kind = parts.first as? String else {
                throw StoreError.invalidResumeToken("the resume token is damaged: its window is not a window")
            }
            func count(_ index: Int) -> Int? { index < parts.count ? (parts[index] as? String).flatMap { Int($0) } : nil }
            switch kind {
            case "offset" where parts.count == 3:
                guard let offset = count(1), let length = count(2) else { throw StoreError.invalidResumeToken("the resume token is damaged: its window's counts are not numbers") }
                window = .offset(offset, length: length)
            case "anchored" where parts.count == 4:
                guard let key = Self.value(parts[1]), let before = count(2), let after = count(3) else {
                    throw StoreError.invalidResumeToken("the resume token is damaged: its anchored window is not a key and two counts")
                }
                window = .anchored(key: key, before: before, after: after)
            default:
                throw StoreError.invalidResumeToken("the resume token is damaged: its window is of no known kind")
            }
            do { try window?.validate() } catch { throw StoreError.invalidResumeToken("the resume token is damaged: \(error.description)") }
        }
        var shownRows: ShownRows?
        if let member = members["rows"] {
            guard var reader = body else { throw StoreError.invalidResumeToken("the resume token is damaged: rows in a token of the first form") }
            shownRows = try Self.shownRows(member, reading: &reader, keys: keys.count, in: sections)
            body = reader
        }
        guard body?.isAtEnd ?? true else {
            throw StoreError.invalidResumeToken("the resume token is damaged: its body holds more than its sections and rows")
        }
        self.init(store: store, request: request, position: position, window: window, firstRank: firstRank, sections: sections,
                  isPlaced: members["unplaced"] == nil, isLogged: members["unlogged"] == nil, shownRows: shownRows, shownKeys: keys)
    }

    /// The JSON object of a token's head, from its base64 text, as Foundation's
    /// `JSONSerialization` gives it (`String`, `[Any]`, …), which the token's reading
    /// checks: ``parsedHead(_:)``, or Foundation's reading when that reads none.
    private static func head(_ encoded: Substring) -> [String: Any]? {
        guard let data = Data(base64Encoded: String(encoded)) else { return nil }
        return parsedHead(Array(data)) ?? (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// A head read by ``JSONParser``, when it is an object of strings and arrays of them
    /// (what ``encoded`` writes), as Foundation's `JSONSerialization` would read it; nil
    /// for anything else, which Foundation then reads. Foundation's objects cost a resume
    /// 70,000 instructions, this about 50,000.
    static func parsedHead(_ bytes: [UInt8]) -> [String: Any]? {
        // (Validated: Foundation refuses bytes that are not UTF-8, which the parser would repair.)
        guard String(validating: bytes, as: UTF8.self) != nil, case let .object(object)? = try? JSONParser().parse(utf8: bytes) else { return nil }
        func value(_ json: JSONValue) -> Any? {
            switch json {
            case let .string(text): return text
            case let .array(items):
                let values = items.compactMap(value)
                return values.count == items.count ? values : nil
            default: return nil
            }
        }
        var members: [String: Any] = [:]
        for (name, json) in object.members {
            guard let member = value(json) else { return nil }
            members[name] = member
        }
        return members
    }

    /// The sections at the start of a `roster-token-2:` token's body.
    private static func checkedSections(reading body: inout CompactValueReader) throws -> [ListSection<Value, Value>] {
        guard let sections = Self.sections(reading: &body), !sections.contains(where: { $0.items.contains(where: \.isNull) }) else {
            throw StoreError.invalidResumeToken("the resume token is damaged: its sections are not names and keys")
        }
        return sections
    }

    /// The `sections` member of a `roster-token-1:` token: JSON arrays of a name and keys.
    private static func sections(json member: Any?) throws -> [ListSection<Value, Value>] {
        guard let sectionList = member as? [Any] else {
            throw StoreError.invalidResumeToken("the resume token is damaged: it lacks its sections")
        }
        var sections: [ListSection<Value, Value>] = []
        for item in sectionList {
            guard let pair = item as? [Any], pair.count == 2, let name = Self.value(pair[0]), let keys = pair[1] as? [Any] else {
                throw StoreError.invalidResumeToken("the resume token is damaged: a section is not [name, keys]")
            }
            var items: [Value] = []
            for key in keys {
                guard let value = Self.value(key), !value.isNull else {
                    throw StoreError.invalidResumeToken("the resume token is damaged: a key is not a value")
                }
                items.append(value)
            }
            sections.append(ListSection(id: name, items: items))
        }
        return sections
    }

    /// The `rows` member — the layout, the width, the key's place and the log entry's
    /// digest — and the rows that follow the sections in the body: a row for each key of
    /// `sections`, in order, each holding its key.
    private static func shownRows(_ member: Any, reading body: inout CompactValueReader, keys count: Int,
                                  in sections: [ListSection<Value, Value>]) throws -> ShownRows {
        guard let parts = member as? [String], parts.count == 4, let width = Int(parts[1]), let keyIndex = Int(parts[2]),
              width > 0, (0..<width).contains(keyIndex) else {
            throw StoreError.invalidResumeToken("the resume token is damaged: its rows are not a layout, a width, a key's place and a digest")
        }
        // Each value takes a byte at least: a width or a count beyond the bytes is damage.
        let values = count.multipliedReportingOverflow(by: width)
        guard !values.overflow, values.partialValue <= body.remaining, let rows = ShownRows.rows(reading: &body, count: count, width: width) else {
            throw StoreError.invalidResumeToken("the resume token is damaged: its rows are not \(count) rows of \(width) values")
        }
        // (A closure: a key path given to a lazy map is built at run time, each call.)
        for (row, key) in zip(rows, sections.lazy.flatMap { $0.items }) where row[keyIndex] != key {
            throw StoreError.invalidResumeToken("the resume token is damaged: the row it holds for key \(key) has key \(row[keyIndex])")
        }
        return ShownRows(layout: parts[0], width: width, keyIndex: keyIndex, rows: rows, logEntry: parts[3])
    }

    /// A request as a token names it: entity, predicate, sort keys and section attribute.
    static func fingerprint(of request: FetchRequest) -> String {
        "\(request.entityName)|\(request.predicate)|\(request.sortKeys.map(\.description).joined(separator: ","))|\(request.sectionAttribute ?? "")"
    }

    /// A value as the token writes it: a type tag and the value as text, exactly.
    private static func json(_ value: Value) -> [String] {
        switch value {
        case .null: ["n"]
        case let .integer(number): ["i", String(number)]
        case let .double(number): ["d", String(number.bitPattern, radix: 16)]
        case let .string(text): ["s", text]
        case let .bool(flag): ["b", flag ? "1" : "0"]
        case let .invalidUTF8(bytes): ["x", bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()]
        }
    }

    private static func value(_ json: Any) -> Value? {
        guard let parts = json as? [String], let tag = parts.first else { return nil }
        switch (tag, parts.count) {
        case ("n", 1): return .null
        case ("i", 2): return Int64(parts[1]).map(Value.integer)
        case ("d", 2): return UInt64(parts[1], radix: 16).map { .double(Double(bitPattern: $0)) }
        case ("s", 2): return .string(parts[1])
        case ("b", 2) where parts[1] == "0" || parts[1] == "1": return .bool(parts[1] == "1")
        case ("x", 2):
            let hex = Array(parts[1].utf8)
            guard hex.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            for index in stride(from: 0, to: hex.count, by: 2) {
                guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(byte)
            }
            return .invalidUTF8(bytes)
        default: return nil
        }
    }
}
