/// How an entity's definition is recorded in the database's `_roster_entities` table, by
/// every backend: `key=id;id:string,title:string,feed:string:Feed:nullify,…` (a
/// relationship adds its destination and delete rule). Column types alone cannot tell
/// `bool` from `integer` in SQLite, nor a relationship from a plain attribute anywhere.
enum EntityDefinition {
    /// The definition of `entity`, as recorded.
    static func describe(_ entity: Entity) -> String {
        "key=\(entity.key.name);" + entity.attributes.map { attribute in
            let relationship = attribute.relationship.map { ":\($0.destination):\($0.deleteRule.rawValue)" } ?? ""
            return "\(attribute.name):\(attribute.type.rawValue)\(relationship)"
        }.joined(separator: ",")
    }

    /// The entity a recorded definition describes.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` for a definition no Roster wrote.
    static func parse(name: String, definition: String) throws(StoreError) -> Entity {
        let parts = definition.split(separator: ";", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0].hasPrefix("key=") else {
            throw .schemaMismatch(entity: name, reason: "unreadable definition '\(definition)' in _roster_entities")
        }
        var attributes: [Attribute] = []
        for field in parts[1].split(separator: ",") {
            let pair = field.split(separator: ":").map(String.init)
            guard pair.count == 2 || pair.count == 4, let type = AttributeType(rawValue: pair[1]) else {
                throw .schemaMismatch(entity: name, reason: "unreadable attribute '\(field)' in _roster_entities")
            }
            var attribute = Attribute(pair[0], type)
            if pair.count == 4 {
                guard let rule = Relationship.DeleteRule(rawValue: pair[3]) else {
                    throw .schemaMismatch(entity: name, reason: "unreadable relationship '\(field)' in _roster_entities")
                }
                attribute.relationship = Relationship(destination: pair[2], deleteRule: rule)
            }
            attributes.append(attribute)
        }
        do {
            // Names an older Roster accepted stay readable, reserved or not.
            return try Entity(name, key: String(parts[0].dropFirst(4)), attributes: attributes, allowingReservedAttributeNames: true)
        } catch {
            throw .schema(error)
        }
    }
}
