/// A sort key on a record's property, checked by the compiler: `.descending(\.published)`.
public struct TypedSortKey<R: Record> {
    let keyPath: PartialKeyPath<R>
    let ascending: Bool

    /// Sorts by the property, smallest first (nulls first).
    public static func ascending<V>(_ keyPath: KeyPath<R, V>) -> TypedSortKey { TypedSortKey(keyPath: keyPath, ascending: true) }
    /// Sorts by the property, largest first (nulls last).
    public static func descending<V>(_ keyPath: KeyPath<R, V>) -> TypedSortKey { TypedSortKey(keyPath: keyPath, ascending: false) }
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
            let predicate = try QueryPredicate(format: format, arguments: arguments)
            // Check names and types now, so a misspelt attribute fails where it is written.
            _ = try BoundPredicate(predicate, entity: layout.entity)
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
    public init<R: Record>(_ type: R.Type, where predicate: TypedPredicate<R>? = nil, sortedBy sortKeys: [TypedSortKey<R>] = [], sectionedBy section: PartialKeyPath<R>? = nil) throws(StoreError) {
        let layout = try RecordLayouts.of(type)
        var keys: [SortKey] = []
        for key in sortKeys {
            keys.append(SortKey(try layout.requireAttributeName(for: key.keyPath), ascending: key.ascending))
        }
        self.init(
            entity: layout.entity.name,
            predicate: try predicate?.queryPredicate() ?? .all,
            sortKeys: keys,
            sectionAttribute: try section.map { keyPath throws(StoreError) in try layout.requireAttributeName(for: keyPath) })
    }
}

extension ResultsController {
    /// The object at an index path, as a record; nil when ``object(at:)`` is nil.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` when it does not decode.
    public func record<R: Record>(at indexPath: IndexPath, as type: R.Type) throws(StoreError) -> R? {
        try object(at: indexPath)?.decode(type)
    }

    /// All results, as records.
    ///
    /// - Throws: ``StoreError`` when a row cannot be read (see ``fetchedObjects``) or does
    ///   not decode.
    public func records<R: Record>(as type: R.Type) throws(StoreError) -> [R] {
        var records: [R] = []
        for object in try fetchedObjects { records.append(try object.decode(type)) }
        return records
    }
}

extension LiveResults {
    /// All results as of the last change taken, as records.
    public func records<R: Record>(as type: R.Type) throws(StoreError) -> [R] {
        var records: [R] = []
        for object in fetchedObjects { records.append(try object.decode(type)) }
        return records
    }
}
