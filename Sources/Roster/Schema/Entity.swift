/// One attribute of an entity: a name and a type, and for a to-one relationship the
/// entity it refers to.
public struct Attribute: Sendable, Hashable {
    /// The attribute's name, which is also its column's name.
    public var name: String
    /// The attribute's type; for a relationship, the type of its destination's key.
    public var type: AttributeType
    /// The entity whose key the attribute holds, when it is a to-one relationship; nil for
    /// a plain attribute.
    public var relationship: Relationship?

    /// Creates an attribute.
    public init(_ name: String, _ type: AttributeType) {
        self.name = name
        self.type = type
    }

    /// Creates a to-one relationship: an attribute of type `type` (the destination key's
    /// type) holding the key of an object of `destination`, which live queries can follow
    /// in key paths (`feed.title`). The store indexes it.
    public static func relationship(_ name: String, to destination: String, type: AttributeType,
                                    deleteRule: Relationship.DeleteRule = .nullify) -> Attribute {
        var attribute = Attribute(name, type)
        attribute.relationship = Relationship(destination: destination, deleteRule: deleteRule)
        return attribute
    }
}

/// A to-one relationship: the entity an attribute refers to, and what deleting that
/// entity's object through the store does to the objects that refer to it.
///
/// ```swift
/// let entry = try Entity("Entry", key: "id", attributes: [
///     Attribute("id", .string), Attribute("title", .string),
///     .relationship("feed", to: "Feed", type: .string, deleteRule: .cascade),
/// ])
/// ```
///
/// The rules run on `Store.delete(_:key:)`. Raw SQL and other processes can delete the
/// destination without them; a reference left dangling then reads as null through key
/// paths (`feed.title` is null), while the attribute keeps the key it holds.
public struct Relationship: Sendable, Hashable {
    /// What deleting a destination object does to the objects that refer to it.
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// Their reference becomes null (the default).
        case nullify
        /// They are deleted too, each with its own entity's rules.
        case cascade
        /// The delete fails while any refers to it (``StoreError/Code/deleteDenied``).
        case deny
    }

    /// The entity whose key the attribute holds.
    public var destination: String
    /// What deleting a destination object does to the objects that refer to it.
    public var deleteRule: DeleteRule

    /// Creates a relationship to `destination`.
    public init(destination: String, deleteRule: DeleteRule = .nullify) {
        self.destination = destination
        self.deleteRule = deleteRule
    }
}

/// A kind of stored object: a name, typed attributes, and the attribute that is its key.
///
/// An entity is stored in a table named like the entity, one column per attribute; the
/// key attribute is the table's primary key and can never be null.
///
/// ```swift
/// let post = try Entity("Post", key: "id", attributes: [
///     Attribute("id", .string), Attribute("title", .string), Attribute("rank", .integer),
/// ])
/// ```
public struct Entity: Sendable, Hashable {
    /// The entity's name, which is also its table's name.
    public let name: String
    /// The attributes in column order.
    public let attributes: [Attribute]
    /// The index in ``attributes`` of the key attribute.
    public let keyIndex: Int
    private let indexByName: [String: Int]
    /// For an entity a live query reads through key paths: how its rows reach the values
    /// of related objects (``KeyPathColumns``); nil for an entity as the store defines it.
    let keyPaths: KeyPathColumns?
    /// The entities whose changes reach rows of this one: itself, and those its key paths
    /// lead to (kept, since every delivery asks).
    let observedNames: [String]

    /// Creates an entity after checking its names.
    ///
    /// Any identifier names an attribute — `seq`, `rowid`, `order` too — except those
    /// starting with `_roster` in any case, which name the store's own tables and triggers.
    ///
    /// - Throws: ``SchemaError`` when a name is not an identifier (`[A-Za-z_][A-Za-z0-9_]*`),
    ///   is reserved for the store (starts with `_roster`, in any case), is used twice, or
    ///   when the key is not one of the attributes.
    public init(_ name: String, key: String, attributes: [Attribute]) throws {
        try self.init(name, key: key, attributes: attributes, allowingReservedAttributeNames: false)
    }

    /// Creates an entity after checking its names; `allowingReservedAttributeNames` lets
    /// attribute names start with `_roster`, for a definition an older Roster stored in a
    /// file before they were reserved, so that the file still opens.
    init(_ name: String, key: String, attributes: [Attribute], allowingReservedAttributeNames: Bool) throws(SchemaError) {
        try Identifier.validate(name, as: "entity name")
        guard !Identifier.isReserved(name) else {
            throw SchemaError("entity name '\(name)' is reserved: names starting with '_roster' belong to the store")
        }
        guard !attributes.isEmpty else { throw SchemaError("entity '\(name)' has no attributes") }
        var indexByName: [String: Int] = [:]
        var lowercased: Set<String> = []
        for (index, attribute) in attributes.enumerated() {
            try Identifier.validate(attribute.name, as: "attribute name in entity '\(name)'")
            guard allowingReservedAttributeNames || !Identifier.isReserved(attribute.name) else {
                throw SchemaError("attribute name '\(attribute.name)' in entity '\(name)' is reserved: names starting with '_roster' (in any case) belong to the store's own columns")
            }
            // SQLite column names are case-insensitive, so 'Title' and 'title' collide.
            guard lowercased.insert(attribute.name.lowercased()).inserted else {
                throw SchemaError("entity '\(name)' names attribute '\(attribute.name)' twice")
            }
            indexByName[attribute.name] = index
        }
        guard let keyIndex = indexByName[key] else {
            throw SchemaError("entity '\(name)': key '\(key)' is not one of its attributes")
        }
        self.name = name
        self.attributes = attributes
        self.keyIndex = keyIndex
        self.indexByName = indexByName
        keyPaths = nil
        observedNames = [name]
    }

    /// `base` with the values its key paths reach appended as attributes named by their
    /// paths (`feed.title`), read through `keyPaths`.
    init(_ base: Entity, following keyPaths: KeyPathColumns, derived: [Attribute]) {
        name = base.name
        attributes = base.attributes + derived
        keyIndex = base.keyIndex
        var indexByName = base.indexByName
        for (offset, attribute) in derived.enumerated() { indexByName[attribute.name] = base.attributes.count + offset }
        self.indexByName = indexByName
        self.keyPaths = keyPaths
        var names = [base.name]
        for join in keyPaths.joins where !names.contains(join.destination.name) { names.append(join.destination.name) }
        observedNames = names
    }

    /// What a read of the entity's rows names after `FROM`: its table, or for an entity
    /// read through key paths, the table joined with the related ones, under its name.
    package var readSource: String { keyPaths?.source ?? Identifier.quoted(name) }


    /// How many of ``attributes`` are the stored entity's (the rest are key-path values).
    var storedAttributeCount: Int { keyPaths?.storedCount ?? attributes.count }

    /// The key attribute.
    public var key: Attribute { attributes[keyIndex] }

    /// The index of the attribute with this exact name, or nil.
    public func index(of attributeName: String) -> Int? { indexByName[attributeName] }

    /// The attribute with this exact name, or nil.
    public func attribute(named attributeName: String) -> Attribute? {
        indexByName[attributeName].map { attributes[$0] }
    }

    /// A row of `other` (another definition of this entity: before attributes were added,
    /// or with other key-path values) laid out as this one's rows are: each value under its
    /// attribute's name, null for a name `other` does not have (an attribute added since
    /// holds null in objects that existed; a key-path value not read then is not known).
    /// O(attributes).
    func row(_ values: [Value], from other: Entity) -> [Value] {
        guard other.attributes.map(\.name) != attributes.map(\.name) else { return values }
        return attributes.map { attribute in
            other.index(of: attribute.name).flatMap { values.indices.contains($0) ? values[$0] : nil } ?? .null
        }
    }
}

/// A schema that cannot be used: a bad name, a duplicate, a missing key.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, and where.
    public let message: String
    /// Creates an error with its message.
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// An entity named `name` where the store has `existing`, which differs from it only
    /// in letter case: SQLite takes both for one table, so a store refuses the second on
    /// every backend (a store means the same on each).
    static func caseClash(_ name: String, with existing: String) -> SchemaError {
        SchemaError("entity '\(name)' differs from the entity '\(existing)' only in letter case: names that differ only in case are one table to SQLite, so the store refuses the second on every backend; choose another name")
    }
}

/// Checks and quotes SQL identifiers, so no name is ever pasted into SQL unchecked.
package enum Identifier {
    /// Whether `name` matches `[A-Za-z_][A-Za-z0-9_]*`.
    package static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        func isLetter(_ byte: UInt8) -> Bool {
            (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
        }
        guard isLetter(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || ($0 >= 48 && $0 <= 57) }
    }

    /// Throws unless `name` is a valid identifier; `role` says what the name is for.
    package static func validate(_ name: String, as role: String) throws(SchemaError) {
        guard isValid(name) else {
            throw SchemaError("\(role) '\(name)' is not an identifier: use letters, digits and '_', not starting with a digit")
        }
    }

    /// Whether `name` starts with `_roster` in any case: the prefix of the store's own
    /// tables, triggers and columns, which entities and attributes may not use.
    static func isReserved(_ name: String) -> Bool {
        name.lowercased().hasPrefix("_roster")
    }

    /// The identifier in double quotes, ready for SQL. Only call with valid identifiers.
    package static func quoted(_ name: String) -> String { "\"\(name)\"" }
}
