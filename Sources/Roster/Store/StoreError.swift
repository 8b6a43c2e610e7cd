/// A write or read that the store refused, saying what was wrong and where.
///
/// Every store operation that fails throws a `StoreError` and changes nothing.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No entity has this name.
    case unknownEntity(String)
    /// The entity has no attribute with this name.
    case unknownAttribute(entity: String, attribute: String)
    /// A value does not have the attribute's type.
    case typeMismatch(entity: String, attribute: String, expected: AttributeType, value: Value)
    /// An insert gave no key, or a null one.
    case missingKey(entity: String, keyAttribute: String)
    /// An insert used a key that another object already has.
    case duplicateKey(entity: String, key: Value)
    /// No object has this key.
    case notFound(entity: String, key: Value)
    /// An update tried to change an object's key.
    case keyChange(entity: String, key: Value, newKey: Value)
    /// An entity's definition does not match the table already in the database file.
    case schemaMismatch(entity: String, reason: String)
    /// A string value longer than ``StoreLimits/maxTextBytes``.
    case valueTooLarge(entity: String, attribute: String, bytes: Int, limit: Int)
    /// A transaction call out of order, e.g. `commit()` with no transaction.
    case transaction(String)
    /// Raw SQL that the store will not run, with the reason.
    case rejectedSQL(String)
    /// A schema definition error.
    case schema(SchemaError)
    /// A predicate that does not parse or does not fit the entity.
    case predicate(PredicateError)
    /// SQLite refused the operation.
    case database(DatabaseError)

    public var description: String {
        switch self {
        case let .unknownEntity(name):
            "no entity named '\(name)'"
        case let .unknownAttribute(entity, attribute):
            "entity '\(entity)' has no attribute '\(attribute)'"
        case let .typeMismatch(entity, attribute, expected, value):
            "\(entity).\(attribute) is \(expected.article) \(expected.rawValue) attribute; got \(value.typeDescription) \(value)"
        case let .missingKey(entity, keyAttribute):
            "\(entity) needs a non-null key '\(keyAttribute)'"
        case let .duplicateKey(entity, key):
            "\(entity) with key \(key) already exists"
        case let .notFound(entity, key):
            "no \(entity) with key \(key)"
        case let .keyChange(entity, key, newKey):
            "cannot change the key of \(entity) \(key) to \(newKey): delete it and insert a new one"
        case let .schemaMismatch(entity, reason):
            "entity '\(entity)' does not match the database: \(reason)"
        case let .valueTooLarge(entity, attribute, bytes, limit):
            "\(entity).\(attribute) takes text of at most \(limit) bytes; got \(bytes) bytes"
        case let .transaction(message), let .rejectedSQL(message):
            message
        case let .schema(error):
            error.description
        case let .predicate(error):
            error.description
        case let .database(error):
            error.description
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
