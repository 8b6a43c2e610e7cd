/// A Swift type whose values are stored objects: its stored properties are the
/// attributes, one of them the key.
///
/// ```swift
/// struct Post: Record {
///     var id: String
///     var title: String
///     var published: Date
///     var rank: Int
///     var pinned: Bool
///     var summary: String?
/// }
/// try store.define(Post.self)
/// try store.insert(Post(id: "p1", title: "Hello", published: .now, rank: 3, pinned: false, summary: nil))
/// let post = try store.fetch(Post.self, key: "p1")
/// ```
///
/// Property types map to attribute types: `String`, `UUID` and `URL` to `string`; `Int`
/// and the other integer types to `integer`; `Double`, `Float` and `Date` (seconds since
/// 1970) to `double`; `Bool` to `bool`. An optional property may be null. Other types are
/// an error when the entity is defined. The entity's name is the type's name and its key
/// the property `id`, unless ``entityName`` or ``keyAttribute`` say otherwise.
public protocol Record: Codable, Sendable {
    /// The entity's name; the type's name by default.
    static var entityName: String { get }
    /// The name of the key property; `"id"` by default.
    static var keyAttribute: String { get }
    /// The properties that are to-one relationships, by property name: each holds the key
    /// of another record (``Relationship``), so that key paths (`feed.title`, or
    /// `TypedPath.related(_:_:)`) can go through it. None by default.
    ///
    /// ```swift
    /// struct Entry: Record {
    ///     var id: String
    ///     var feed: String?
    ///     static let relationships = ["feed": Relationship(destination: "Feed", deleteRule: .cascade)]
    /// }
    /// ```
    static var relationships: [String: Relationship] { get }
}

extension Record {
    public static var entityName: String { String(describing: Self.self) }
    public static var keyAttribute: String { "id" }
    public static var relationships: [String: Relationship] { [:] }
}
