extension Store {
    /// Inserts an object. Attributes not named in `values` are null.
    ///
    /// Outside a transaction the insert commits at once and live queries hear about it
    /// before this returns.
    ///
    /// - Throws: ``StoreError`` for an unknown entity or attribute, a value of the wrong
    ///   type, a missing or duplicate key. A failed insert changes nothing.
    public func insert(_ entityName: String, _ values: [String: Value]) throws(StoreError) {
        let entity = try entity(named: entityName)
        var row = [Value](repeating: .null, count: entity.attributes.count)
        for (name, value) in values {
            let index = try attributeIndex(name, in: entity)
            row[index] = try coerce(value, to: entity, at: index)
        }
        let key = row[entity.keyIndex]
        guard !key.isNull else { throw .missingKey(entity: entity.name, keyAttribute: entity.key.name) }
        try atomically { () throws(StoreError) in try storage.insert(row, into: entity) }
    }

    /// Sets some attributes of the object with this key; the others keep their values.
    ///
    /// Setting every attribute to the value it already has changes nothing and reports nothing.
    ///
    /// - Throws: ``StoreError/notFound(entity:key:)`` when no object has the key,
    ///   ``StoreError/keyChange(entity:key:newKey:)`` when `values` changes the key, or a
    ///   type or name error. A failed update changes nothing.
    public func update(_ entityName: String, key: Value, _ values: [String: Value]) throws(StoreError) {
        let entity = try entity(named: entityName)
        let key = try coerce(key, to: entity, at: entity.keyIndex)
        var assignments: [(index: Int, value: Value)] = []
        for (name, value) in values {
            let index = try attributeIndex(name, in: entity)
            let value = try coerce(value, to: entity, at: index)
            if index == entity.keyIndex {
                guard value == key else { throw .keyChange(entity: entity.name, key: key, newKey: value) }
                continue
            }
            assignments.append((index, value))
        }
        assignments.sort { $0.index < $1.index }
        guard !assignments.isEmpty else {
            guard try fetch(entityName, key: key) != nil else { throw .notFound(entity: entity.name, key: key) }
            return
        }
        try atomically { () throws(StoreError) in
            guard try storage.update(entity, key: key, setting: assignments) else { throw .notFound(entity: entity.name, key: key) }
        }
    }

    /// Deletes the object with this key, applying the delete rule of every relationship
    /// that refers to it (``Relationship/DeleteRule``): referring objects get a null
    /// reference (`nullify`), are deleted with their own rules (`cascade`), or stop the
    /// delete (`deny`). All of it is one atomic write.
    ///
    /// - Throws: ``StoreError/notFound(entity:key:)`` when no object has the key;
    ///   ``StoreError/Code/deleteDenied`` naming an object whose `deny` relationship refers
    ///   to it, or to an object the delete would cascade to. Nothing is deleted then.
    public func delete(_ entityName: String, key: Value) throws(StoreError) {
        let entity = try entity(named: entityName)
        let key = try coerce(key, to: entity, at: entity.keyIndex)
        try atomically { () throws(StoreError) in
            var deleting: Set<[Value]> = []
            guard try delete(entity, key: key, deleting: &deleting) else { throw .notFound(entity: entity.name, key: key) }
        }
    }

    /// Deletes one object after applying the rules of the relationships that refer to it;
    /// `deleting` holds the objects this delete already took (a cascade through a cycle
    /// stops there). False when there is no such object.
    private func delete(_ entity: Entity, key: Value, deleting: inout Set<[Value]>) throws(StoreError) -> Bool {
        deleting.insert([.string(entity.name), key])
        for referrer in entitiesByName.values.sorted(by: { $0.name < $1.name }) {
            for (index, attribute) in referrer.attributes.enumerated() {
                guard let relationship = attribute.relationship, relationship.destination == entity.name else { continue }
                let keys = try storage.keys(of: referrer, whereAttribute: index, equals: key)
                switch relationship.deleteRule {
                case .deny:
                    if let first = keys.first(where: { !deleting.contains([.string(referrer.name), $0]) }) {
                        throw .deleteDenied(entity: entity.name, key: key, referrer: referrer.name, attribute: attribute.name, referrerKey: first)
                    }
                case .nullify:
                    for referring in keys where !deleting.contains([.string(referrer.name), referring]) {
                        _ = try storage.update(referrer, key: referring, setting: [(index, .null)])
                    }
                case .cascade:
                    for referring in keys where !deleting.contains([.string(referrer.name), referring]) {
                        _ = try delete(referrer, key: referring, deleting: &deleting)
                    }
                }
            }
        }
        return try storage.delete(entity, key: key)
    }

    /// Runs raw SQL on the store's connection: one or more statements, in order, atomically.
    ///
    /// The store notices whatever the SQL changed in entity tables, as for any other
    /// write. Outside a transaction the SQL runs in its own transaction; inside one, in a
    /// savepoint, so a failing or refused statement undoes the ones before it and the
    /// transaction goes on.
    ///
    /// Refused, whatever quoting or comments surround them, since SQLite itself reads the
    /// statements: transaction control (`BEGIN`, `COMMIT`, `END`, `ROLLBACK`, `SAVEPOINT`,
    /// `RELEASE`) — use ``write(_:)``, ``savepoint(_:)`` or ``beginTransaction()`` — and
    /// `ATTACH`/`DETACH`, which would outlive a rollback. `VACUUM` fails: SQLite cannot
    /// vacuum inside the transaction that raw SQL runs in.
    ///
    /// - Parameters:
    ///   - sql: one or more SQL statements.
    ///   - arguments: values for the `?` parameters of a single statement.
    /// - Throws: ``StoreError/rejectedSQL(_:)`` saying which statement was refused and
    ///   why (e.g. `raw SQL may not control transactions ('COMMIT' in statement 2): it runs
    ///   in the store's transaction`), or for arguments with more or fewer than one
    ///   statement; ``StoreError/database(_:)`` with SQLite's code and message.
    public func execute(_ sql: String, arguments: [Value] = []) throws(StoreError) {
        try atomically { () throws(StoreError) in
            try storage.execute(sql, arguments: arguments)
        }
    }

    /// The object with this key, or nil. Inside a transaction it sees the transaction's writes.
    public func fetch(_ entityName: String, key: Value) throws(StoreError) -> Object? {
        let entity = try entity(named: entityName)
        let key = try coerce(key, to: entity, at: entity.keyIndex)
        return try storage.row(of: entity, key: key).map { Object(entity: entity, values: $0) }
    }

    // MARK: - Helpers

    private func attributeIndex(_ name: String, in entity: Entity) throws(StoreError) -> Int {
        guard let index = entity.index(of: name) else { throw .unknownAttribute(entity: entity.name, attribute: name) }
        return index
    }

    /// The value as the attribute stores it; integers widen to doubles, nothing else converts.
    func coerce(_ value: Value, to entity: Entity, at index: Int) throws(StoreError) -> Value {
        let attribute = entity.attributes[index]
        switch (attribute.type, value) {
        case let (.string, .string(text)) where text.utf8.count > StoreLimits.maxTextBytes:
            throw .valueTooLarge(entity: entity.name, attribute: attribute.name, bytes: text.utf8.count, limit: StoreLimits.maxTextBytes)
        case (_, .null), (.string, .string), (.string, .invalidUTF8), (.integer, .integer), (.double, .double), (.bool, .bool):
            return value
        case let (.double, .integer(number)):
            return .double(Double(number))
        default:
            throw .typeMismatch(entity: entity.name, attribute: attribute.name, expected: attribute.type, value: value)
        }
    }
}
