/// A property of a record, or of the record a relationship of it leads to, checked by the
/// compiler: `.property(\.day)`, `.related(\.feed, \Feed.title)` (the key path
/// `feed.title`).
public struct TypedPath<R: Record> {
    /// The attribute name or key path, once the types' layouts are known.
    let name: () throws(StoreError) -> String

    /// The record's own property.
    public static func property<V>(_ keyPath: KeyPath<R, V>) -> TypedPath {
        TypedPath { () throws(StoreError) in try RecordLayouts.of(R.self).requireAttributeName(for: keyPath) }
    }

    /// A property of the record that `relationship` leads to (a property of `R` that
    /// ``Record/relationships`` names): the key path `relationship.property`.
    public static func related<D: Record, V>(_ relationship: PartialKeyPath<R>, _ keyPath: KeyPath<D, V>) -> TypedPath {
        TypedPath { () throws(StoreError) in
            let owner = try RecordLayouts.of(R.self).requireAttributeName(for: relationship)
            return owner + "." + (try RecordLayouts.of(D.self).requireAttributeName(for: keyPath))
        }
    }
}

/// A sort key on a record's property, checked by the compiler: `.descending(\.published)`,
/// or on a related record's: `.ascending(.related(\.feed, \Feed.title))`.
public struct TypedSortKey<R: Record> {
    let path: TypedPath<R>
    let ascending: Bool

    /// Sorts by the property, smallest first (nulls first).
    public static func ascending<V>(_ keyPath: KeyPath<R, V>) -> TypedSortKey { TypedSortKey(path: .property(keyPath), ascending: true) }
    /// Sorts by the property, largest first (nulls last).
    public static func descending<V>(_ keyPath: KeyPath<R, V>) -> TypedSortKey { TypedSortKey(path: .property(keyPath), ascending: false) }
    /// Sorts by a property or a related record's, smallest first (nulls first).
    public static func ascending(_ path: TypedPath<R>) -> TypedSortKey { TypedSortKey(path: path, ascending: true) }
    /// Sorts by a property or a related record's, largest first (nulls last).
    public static func descending(_ path: TypedPath<R>) -> TypedSortKey { TypedSortKey(path: path, ascending: false) }
}

/// A predicate on a record's properties, written with key paths the compiler checks:
/// `\.rank > 2 && !(\.pinned == true)`. Values are bound, never quoted by hand.
public struct TypedPredicate<R: Record> {
    /// Builds the format and its arguments once the type's layout is known.
    let build: (RecordLayout<R>) throws(StoreError) -> (format: String, arguments: [Value])

    /// A predicate in NSPredicate's format with `%@` arguments, for what operators cannot
    /// say; a misspelt attribute is an error that names it when the request is made.
    public static func format(_ format: String, _ arguments: any ValueConvertible...) -> TypedPredicate {
        let values = arguments.map(\.value)
        return TypedPredicate { _ throws(StoreError) in (format, values) }
    }

    static func comparison(_ keyPath: PartialKeyPath<R>, _ op: String, _ value: Value) -> TypedPredicate {
        TypedPredicate { layout throws(StoreError) in
            ("%K \(op) %@", [.string(try layout.requireAttributeName(for: keyPath)), value])
        }
    }

    /// The string property begins with `prefix`; `caseInsensitive` is `[c]` (Unicode's full
    /// case folding), `diacriticInsensitive` is `[d]` (accents and other marks ignored).
    public static func beginsWith(_ keyPath: KeyPath<R, String>, _ prefix: String,
                                  caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> TypedPredicate {
        comparison(keyPath, "BEGINSWITH" + modifier(caseInsensitive, diacriticInsensitive), .string(prefix))
    }
    /// The string property contains `text`, folded as ``beginsWith(_:_:caseInsensitive:diacriticInsensitive:)`` says.
    public static func contains(_ keyPath: KeyPath<R, String>, _ text: String,
                                caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> TypedPredicate {
        comparison(keyPath, "CONTAINS" + modifier(caseInsensitive, diacriticInsensitive), .string(text))
    }
    /// The string property ends with `suffix`, folded as ``beginsWith(_:_:caseInsensitive:diacriticInsensitive:)`` says.
    public static func endsWith(_ keyPath: KeyPath<R, String>, _ suffix: String,
                                caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> TypedPredicate {
        comparison(keyPath, "ENDSWITH" + modifier(caseInsensitive, diacriticInsensitive), .string(suffix))
    }
    /// The string property equals `text` once both are folded: `==[c]`, `==[d]` or `==[cd]`
    /// (without folding, `\.title == text` says it).
    public static func equals(_ keyPath: KeyPath<R, String>, _ text: String,
                              caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> TypedPredicate {
        comparison(keyPath, "==" + modifier(caseInsensitive, diacriticInsensitive), .string(text))
    }

    private static func modifier(_ caseInsensitive: Bool, _ diacriticInsensitive: Bool) -> String {
        var folding: TextFolding = []
        if caseInsensitive { folding.insert(.caseInsensitive) }
        if diacriticInsensitive { folding.insert(.diacriticInsensitive) }
        return folding.modifier
    }

    /// `predicate` holds for the record that `relationship` leads to (a property of `R`
    /// that ``Record/relationships`` names): its attributes are read through the key
    /// path, `\.muted == false` on `Feed` becoming `feed.muted == NO`. False when the
    /// relationship leads nowhere, unless `predicate` holds for nulls.
    public static func related<D: Record>(_ relationship: PartialKeyPath<R>, _ predicate: TypedPredicate<D>) -> TypedPredicate {
        TypedPredicate { layout throws(StoreError) in
            let name = try layout.requireAttributeName(for: relationship)
            // Checked against the related record's own attributes, then read through the path.
            let inner = try predicate.queryPredicate()
            return (inner.prefixingAttributes(with: name + ".").description, [])
        }
    }

    /// Both predicates hold.
    public static func && (lhs: TypedPredicate, rhs: TypedPredicate) -> TypedPredicate {
        TypedPredicate { layout throws(StoreError) in
            let left = try lhs.build(layout), right = try rhs.build(layout)
            return ("(\(left.format)) AND (\(right.format))", left.arguments + right.arguments)
        }
    }
    /// Either predicate holds.
    public static func || (lhs: TypedPredicate, rhs: TypedPredicate) -> TypedPredicate {
        TypedPredicate { layout throws(StoreError) in
            let left = try lhs.build(layout), right = try rhs.build(layout)
            return ("(\(left.format)) OR (\(right.format))", left.arguments + right.arguments)
        }
    }
    /// The predicate does not hold.
    public static prefix func ! (operand: TypedPredicate) -> TypedPredicate {
        TypedPredicate { layout throws(StoreError) in
            let inner = try operand.build(layout)
            return ("NOT (\(inner.format))", inner.arguments)
        }
    }

    /// The predicate for the store.
    func queryPredicate() throws(StoreError) -> QueryPredicate {
        let layout = try RecordLayouts.of(R.self)
        let (format, arguments) = try build(layout)
        do {
            let predicate = try QueryPredicate(parsing: format, arguments: arguments)
            // Check names and types now, so a misspelt attribute fails where it is written;
            // key paths through relationships are checked when the request is bound.
            if !predicate.attributeNames.contains(where: { $0.contains(".") }) {
                _ = try BoundPredicate(predicate, entity: layout.entity)
            }
            return predicate
        } catch {
            throw .predicate(error)
        }
    }
}

/// The property equals the value (null-safe: `== nil` matches null).
public func == <R: Record, V: ValueConvertible>(lhs: KeyPath<R, V>, rhs: V) -> TypedPredicate<R> { .comparison(lhs, "==", rhs.value) }
/// The property differs from the value (true for null, unless the value is nil).
public func != <R: Record, V: ValueConvertible>(lhs: KeyPath<R, V>, rhs: V) -> TypedPredicate<R> { .comparison(lhs, "!=", rhs.value) }
/// The property is less than the value (false for null).
public func < <R: Record, V: ValueConvertible>(lhs: KeyPath<R, V>, rhs: V) -> TypedPredicate<R> { .comparison(lhs, "<", rhs.value) }
/// The property is at most the value (false for null).
public func <= <R: Record, V: ValueConvertible>(lhs: KeyPath<R, V>, rhs: V) -> TypedPredicate<R> { .comparison(lhs, "<=", rhs.value) }
/// The property is greater than the value (false for null).
public func > <R: Record, V: ValueConvertible>(lhs: KeyPath<R, V>, rhs: V) -> TypedPredicate<R> { .comparison(lhs, ">", rhs.value) }
/// The property is at least the value (false for null).
public func >= <R: Record, V: ValueConvertible>(lhs: KeyPath<R, V>, rhs: V) -> TypedPredicate<R> { .comparison(lhs, ">=", rhs.value) }

extension FetchRequest {
    /// A request for records of type `R`, with a typed predicate, sort keys and section.
    ///
    /// ```swift
    /// let request = try FetchRequest(Post.self, where: \.rank > 2,
    ///                                sortedBy: [.descending(\.day), .ascending(\.rank)], sectionedBy: \.day)
    /// ```
    ///
    /// - Throws: ``StoreError`` when a key path does not read a stored property.
    public init<R: Record>(_ type: R.Type, where predicate: TypedPredicate<R>? = nil, sortedBy sortKeys: [TypedSortKey<R>] = [], sectionedBy section: PartialKeyPath<R>? = nil) throws {
        let layout = try RecordLayouts.of(type)
        try self.init(type, where: predicate, sortedBy: sortKeys,
                      sectionedBy: try section.map { keyPath throws(StoreError) in let name = try layout.requireAttributeName(for: keyPath); return TypedPath { name } })
    }

    /// A request for records of type `R` sectioned by a related record's property:
    /// `sectionedBy: .related(\.feed, \Feed.title)`.
    ///
    /// - Throws: ``StoreError`` when a key path does not read a stored property.
    public init<R: Record>(_ type: R.Type, where predicate: TypedPredicate<R>? = nil, sortedBy sortKeys: [TypedSortKey<R>] = [], sectionedBy section: TypedPath<R>?) throws {
        let layout = try RecordLayouts.of(type)
        var keys: [SortKey] = []
        for key in sortKeys {
            keys.append(SortKey(try key.path.name(), ascending: key.ascending))
        }
        self.init(
            entity: layout.entity.name,
            predicate: try predicate?.queryPredicate() ?? .all,
            sortKeys: keys,
            sectionAttribute: try section.map { path throws(StoreError) in try path.name() })
    }
}

extension ResultsController {
    /// The object at an index path, as a record; nil when ``object(at:)`` is nil.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` when it does not decode.
    public func record<R: Record>(at indexPath: IndexPath, as type: R.Type) throws -> R? {
        try object(at: indexPath)?.decode(type)
    }

    /// All results, as records.
    ///
    /// - Throws: ``StoreError`` when a row cannot be read (see ``fetchedObjects``) or does
    ///   not decode.
    public func records<R: Record>(as type: R.Type) throws -> [R] {
        var records: [R] = []
        for object in try fetchedObjects { records.append(try object.decode(type)) }
        return records
    }
}

extension LiveResults {
    /// All results as of the last change taken, as records.
    public func records<R: Record>(as type: R.Type) throws -> [R] {
        var records: [R] = []
        for object in fetchedObjects { records.append(try object.decode(type)) }
        return records
    }
}
