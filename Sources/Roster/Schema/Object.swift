/// One stored object: an entity and its values in attribute order.
///
/// ```swift
/// let post = try store.fetch("Post", key: "p1")
/// print(post?["title"] ?? nil)
/// ```
public struct Object: Sendable, Hashable, CustomStringConvertible {
    /// The object's entity.
    public let entity: Entity
    /// The values, in the order of `entity.attributes`.
    public let values: [Value]

    /// Creates an object from values in attribute order.
    public init(entity: Entity, values: [Value]) {
        precondition(values.count == entity.attributes.count, "an object needs one value per attribute")
        self.entity = entity
        self.values = values
    }

    /// The object's key.
    public var key: Value { values[entity.keyIndex] }

    /// The value of the named attribute, or nil when the entity has no such attribute.
    public subscript(attribute: String) -> Value? {
        entity.index(of: attribute).map { values[$0] }
    }

    /// The values by attribute name.
    public var dictionary: [String: Value] {
        Dictionary(uniqueKeysWithValues: zip(entity.attributes.map(\.name), values))
    }

    public var description: String {
        let pairs = zip(entity.attributes, values).map { "\($0.name): \($1)" }
        return "\(entity.name)(\(pairs.joined(separator: ", ")))"
    }
}
