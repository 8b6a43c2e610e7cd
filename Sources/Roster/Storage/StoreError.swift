/// A write or read that the store refused, saying what was wrong and where.
///
/// Every store operation that fails throws a `StoreError` and changes nothing. Its
/// ``code`` says what kind of failure it is; ``entity``, ``attribute`` and ``key`` say
/// where, when they apply; ``description`` says it in words. A failure that SQLite, a
/// PostgreSQL server, the predicate parser or an entity definition reported keeps their
/// error (``databaseError``, ``serverError``, ``predicateError``, ``schemaError``).
///
/// `StoreError` is a struct, not an enum, so that a later Roster can add a code without
/// breaking a `switch` in your app (the pattern of GRDB's `DatabaseError` and
/// postgres-nio's `PSQLError`). Match a code in a `catch` clause, or compare it:
///
/// ```swift
/// do {
///     try store.update("Post", key: "p9", ["rank": 2])
/// } catch StoreError.Code.notFound {
///     // no such post
/// } catch let error as StoreError where error.databaseError?.code == .busy {
///     // another process holds the write lock
/// }
/// ```
///
/// The public API is declared `throws`, not `throws(StoreError)`, though `StoreError` is
/// all it throws (``QueryPredicate``'s parser throws ``QueryPredicateError``, ``Entity``'s
/// initializer ``SchemaError``): with typed throws, Swift 6.3's compiler aborts on the
/// `catch` clauses above in top-level code and in some functions ("Found ownership
/// error?!"; the reproducer is in `DocSnippetTests`). Roster's own code keeps typed throws.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure a ``StoreError`` is.
    ///
    /// Codes are static members, so new ones can be added; compare with `==`, or match
    /// one against any error in a `catch` clause (`catch StoreError.Code.notFound`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as its static member is spelt.
        public let name: String

        init(_ name: String) { self.name = name }

        public var description: String { name }

        /// No entity has this name.
        public static let unknownEntity = Code("unknownEntity")
        /// The entity has no attribute with this name.
        public static let unknownAttribute = Code("unknownAttribute")
        /// A value does not have the attribute's type.
        public static let typeMismatch = Code("typeMismatch")
        /// An insert gave no key, or a null one.
        public static let missingKey = Code("missingKey")
        /// An insert used a key that another object already has.
        public static let duplicateKey = Code("duplicateKey")
        /// No object has this key.
        public static let notFound = Code("notFound")
        /// An update tried to change an object's key.
        public static let keyChange = Code("keyChange")
        /// An entity's definition does not match the table in the database file.
        public static let schemaMismatch = Code("schemaMismatch")
        /// A string value longer than ``StoreLimits/maxTextBytes``.
        public static let valueTooLarge = Code("valueTooLarge")
        /// A transaction call out of order, e.g. `commit()` with no transaction.
        public static let transaction = Code("transaction")
        /// Raw SQL that the store will not run.
        public static let rejectedSQL = Code("rejectedSQL")
        /// An entity definition that is not valid (``StoreError/schemaError``).
        public static let schema = Code("schema")
        /// A predicate that does not parse or does not fit the entity
        /// (``StoreError/predicateError``).
        public static let predicate = Code("predicate")
        /// SQLite refused the operation (``StoreError/databaseError``).
        public static let database = Code("database")
        /// A PostgreSQL server refused the operation, or could not be reached
        /// (``StoreError/serverError``).
        public static let server = Code("server")
        /// A window over a live query's results that cannot be placed: a negative count,
        /// or an anchor that is not in the results (``ResultsWindow``).
        public static let invalidWindow = Code("invalidWindow")
        /// A resume token that is damaged, or was saved by another store or for another
        /// request (``ResumeToken``).
        public static let invalidResumeToken = Code("invalidResumeToken")
        /// An aggregate of a request that cannot be kept: no name, a name used twice, a sum
        /// of an attribute that is missing or not numeric (``Aggregate``).
        public static let invalidAggregate = Code("invalidAggregate")
        /// An integer sum of a live query's aggregates went outside Int64's range; it reads
        /// null until it is back in range (``AggregateValues``).
        public static let aggregateOverflow = Code("aggregateOverflow")
        /// A delete that a `deny` relationship refused: an object still refers to the one
        /// being deleted (``Relationship/DeleteRule/deny``).
        public static let deleteDenied = Code("deleteDenied")
        /// A key path that cannot be followed: through an attribute that is not a
        /// relationship, to an attribute the destination lacks, or longer than the limit.
        public static let invalidKeyPath = Code("invalidKeyPath")

        /// Whether `error` is a ``StoreError`` with this code: lets a `catch` clause name a
        /// code (`catch StoreError.Code.duplicateKey`).
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StoreError)?.code == code
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The entity the failure is about, when there is one.
    public let entity: String?
    /// The attribute the failure is about, when there is one.
    public let attribute: String?
    /// The object's key, when the failure is about one object.
    public let key: Value?
    /// What was wrong and where, in words.
    public let description: String
    /// SQLite's error, for ``Code/database``.
    public let databaseError: DatabaseError?
    /// The PostgreSQL server's error, for ``Code/server``.
    public var serverError: ServerError? { serverErrorBox?.error }
    /// ``serverError``, behind a reference: a `StoreError` is thrown by every call of the
    /// SQLite path too, where a larger error value costs each typed-throws frame.
    private let serverErrorBox: ServerErrorBox?
    /// The predicate's error, for ``Code/predicate``.
    public let predicateError: QueryPredicateError?
    /// The definition's error, for ``Code/schema``.
    public let schemaError: SchemaError?

    init(_ code: Code, _ description: String, entity: String? = nil, attribute: String? = nil, key: Value? = nil,
         databaseError: DatabaseError? = nil, serverError: ServerError? = nil, predicateError: QueryPredicateError? = nil, schemaError: SchemaError? = nil) {
        self.code = code
        self.description = description
        self.entity = entity
        self.attribute = attribute
        self.key = key
        self.databaseError = databaseError
        self.serverErrorBox = serverError.map(ServerErrorBox.init)
        self.predicateError = predicateError
        self.schemaError = schemaError
    }
}

extension StoreError {
    /// No entity has this name.
    public static func unknownEntity(_ name: String) -> StoreError {
        StoreError(.unknownEntity, "no entity named '\(name)'", entity: name)
    }

    /// The entity has no attribute with this name.
    public static func unknownAttribute(entity: String, attribute: String) -> StoreError {
        StoreError(.unknownAttribute, "entity '\(entity)' has no attribute '\(attribute)'", entity: entity, attribute: attribute)
    }

    /// A value does not have the attribute's type.
    public static func typeMismatch(entity: String, attribute: String, expected: AttributeType, value: Value) -> StoreError {
        StoreError(.typeMismatch, "\(entity).\(attribute) is \(expected.article) \(expected.rawValue) attribute; got \(value.typeDescription) \(value)",
                   entity: entity, attribute: attribute)
    }

    /// An insert gave no key, or a null one.
    public static func missingKey(entity: String, keyAttribute: String) -> StoreError {
        StoreError(.missingKey, "\(entity) needs a non-null key '\(keyAttribute)'", entity: entity, attribute: keyAttribute)
    }

    /// An insert used a key that another object already has.
    public static func duplicateKey(entity: String, key: Value) -> StoreError {
        StoreError(.duplicateKey, "\(entity) with key \(key) already exists", entity: entity, key: key)
    }

    /// No object has this key.
    public static func notFound(entity: String, key: Value) -> StoreError {
        StoreError(.notFound, "no \(entity) with key \(key)", entity: entity, key: key)
    }

    /// An update tried to change an object's key.
    public static func keyChange(entity: String, key: Value, newKey: Value) -> StoreError {
        StoreError(.keyChange, "cannot change the key of \(entity) \(key) to \(newKey): delete it and insert a new one", entity: entity, key: key)
    }

    /// An entity's definition does not match the table already in the database file.
    public static func schemaMismatch(entity: String, reason: String) -> StoreError {
        StoreError(.schemaMismatch, "entity '\(entity)' does not match the database: \(reason)", entity: entity)
    }

    /// A string value longer than ``StoreLimits/maxTextBytes``.
    public static func valueTooLarge(entity: String, attribute: String, bytes: Int, limit: Int) -> StoreError {
        StoreError(.valueTooLarge, "\(entity).\(attribute) takes text of at most \(limit) bytes; got \(bytes) bytes", entity: entity, attribute: attribute)
    }

    /// A transaction call out of order, e.g. `commit()` with no transaction.
    public static func transaction(_ message: String) -> StoreError {
        StoreError(.transaction, message)
    }

    /// Raw SQL that the store will not run, with the reason.
    public static func rejectedSQL(_ message: String) -> StoreError {
        StoreError(.rejectedSQL, message)
    }

    /// A schema definition error.
    public static func schema(_ error: SchemaError) -> StoreError {
        StoreError(.schema, error.description, schemaError: error)
    }

    /// A predicate that does not parse or does not fit the entity.
    public static func predicate(_ error: QueryPredicateError) -> StoreError {
        StoreError(.predicate, error.description, predicateError: error)
    }

    /// A window that cannot be placed over a live query's results.
    public static func invalidWindow(_ message: String, key: Value? = nil) -> StoreError {
        StoreError(.invalidWindow, message, key: key)
    }

    /// A resume token that cannot be used here, with the reason.
    public static func invalidResumeToken(_ message: String) -> StoreError {
        StoreError(.invalidResumeToken, message)
    }

    /// An aggregate of a request that cannot be kept, with the reason.
    public static func invalidAggregate(entity: String, aggregate: String, reason: String) -> StoreError {
        StoreError(.invalidAggregate, "aggregate '\(aggregate)' of \(entity): \(reason)", entity: entity)
    }

    /// An integer sum that went outside Int64's range, in a section (nil: the total).
    public static func aggregateOverflow(entity: String, aggregate: String, section: Value?) -> StoreError {
        let place = section.map { "in section \($0)" } ?? "over the whole results"
        return StoreError(.aggregateOverflow,
                          "the sum '\(aggregate)' of \(entity) \(place) is outside the range of a 64-bit integer; it reads null until it is back in range",
                          entity: entity)
    }

    /// A delete refused because an object of `referrer` refers to the one deleted (or to
    /// one its delete would cascade to) through a `deny` relationship.
    public static func deleteDenied(entity: String, key: Value, referrer: String, attribute: String, referrerKey: Value) -> StoreError {
        StoreError(.deleteDenied, "cannot delete \(entity) \(key): \(referrer) \(referrerKey) refers to it through '\(attribute)', whose delete rule is deny",
                   entity: entity, attribute: attribute, key: key)
    }

    /// A key path that cannot be followed, with the reason.
    public static func invalidKeyPath(entity: String, path: String, reason: String) -> StoreError {
        StoreError(.invalidKeyPath, "key path '\(path)' of \(entity): \(reason)", entity: entity, attribute: path)
    }

    /// SQLite refused the operation.
    public static func database(_ error: DatabaseError) -> StoreError {
        StoreError(.database, error.description, databaseError: error)
    }

    /// A PostgreSQL server refused the operation, or could not be reached.
    public static func server(_ error: ServerError) -> StoreError {
        StoreError(.server, error.description, serverError: error)
    }
}

extension StoreError {
    /// A request that does not fit its entity, as the store reports it: the same codes a
    /// user has always matched (`predicate`, `unknownAttribute`, `schema`).
    init(_ error: RequestBindingError) {
        switch error {
        case let .predicate(predicateError): self = .predicate(predicateError)
        case let .unknownSectionAttribute(entity, attribute), let .unknownDisplayedAttribute(entity, attribute):
            self = .unknownAttribute(entity: entity, attribute: attribute)
        case let .sort(schemaError): self = .schema(schemaError)
        case let .invalidAggregate(entity, aggregate, reason): self = .invalidAggregate(entity: entity, aggregate: aggregate, reason: reason)
        }
    }
}

extension AttributeType {
    /// "a" or "an", to read well in messages.
    var article: String { self == .integer ? "an" : "a" }
}

extension Value {
    /// The kind of value, for messages: "string", "integer", "double", "bool" or "null".
    var typeDescription: String { type?.rawValue ?? "null" }
}

/// A ``ServerError`` held by reference inside a ``StoreError``; compared and hashed by value.
private final class ServerErrorBox: Sendable, Hashable {
    let error: ServerError

    init(_ error: ServerError) { self.error = error }

    static func == (a: ServerErrorBox, b: ServerErrorBox) -> Bool { a.error == b.error }
    func hash(into hasher: inout Hasher) { hasher.combine(error) }
}
