extension Store {
    /// Inserts an object. Attributes not named in `values` are null.
    ///
    /// Outside a transaction the insert commits at once and live queries hear about it
    /// before this returns.
    ///
    /// - Throws: ``StoreError`` for an unknown entity or attribute, a value of the wrong
    ///   type, a missing or duplicate key. A failed insert changes nothing.
    public func insert(_ entityName: String, _ values: [String: Value]) throws {
        let entity = try definedEntity(named: entityName)
        var row = [Value](repeating: .null, count: entity.attributes.count)
        for (name, value) in values {
            let index = try attributeIndex(name, in: entity)
            row[index] = try coerce(value, to: entity, at: index)
        }
        let key = row[entity.keyIndex]
        guard !key.isNull else { throw StoreError.missingKey(entity: entity.name, keyAttribute: entity.key.name) }
        try atomically { () throws(StoreError) in try storage.insert(row, into: entity) }
    }

    /// Sets some attributes of the object with this key; the others keep their values.
    ///
    /// Setting every attribute to the value it already has changes nothing and reports nothing.
    ///
    /// - Throws: ``StoreError/notFound(entity:key:)`` when no object has the key,
    ///   ``StoreError/keyChange(entity:key:newKey:)`` when `values` changes the key, or a
    ///   type or name error. A failed update changes nothing.
    public func update(_ entityName: String, key: Value, _ values: [String: Value]) throws {
        let entity = try definedEntity(named: entityName)
        let key = try coerce(key, to: entity, at: entity.keyIndex)
        var assignments: [(index: Int, value: Value)] = []
        for (name, value) in values {
            let index = try attributeIndex(name, in: entity)
            let value = try coerce(value, to: entity, at: index)
            if index == entity.keyIndex {
                guard value == key else { throw StoreError.keyChange(entity: entity.name, key: key, newKey: value) }
                continue
            }
            assignments.append((index, value))
        }
        assignments.sort { $0.index < $1.index }
        guard !assignments.isEmpty else {
            guard try fetch(entityName, key: key) != nil else { throw StoreError.notFound(entity: entity.name, key: key) }
            return
        }
        try atomically { () throws(StoreError) in
            guard try storage.update(entity, key: key, setting: assignments) else { throw .notFound(entity: entity.name, key: key) }
        }
    }

    /// Deletes the object with this key, applying the delete rule of every relationship
    /// that refers to it (``Relationship/DeleteRule``): referring objects are deleted with
    /// their own rules (`cascade`), get a null reference (`nullify`), or stop the delete
    /// (`deny`). All of it is one atomic write, whatever order the entities are defined in.
    ///
    /// - Throws: ``StoreError/notFound(entity:key:)`` when no object has the key;
    ///   ``StoreError/Code/deleteDenied`` naming an object, not itself deleted, whose `deny`
    ///   relationship refers to it or to an object the delete would cascade to. Nothing is
    ///   deleted then.
    public func delete(_ entityName: String, key: Value) throws {
        let entity = try definedEntity(named: entityName)
        let key = try coerce(key, to: entity, at: entity.keyIndex)
        try atomically { () throws(StoreError) in
            guard try storage.row(of: entity, key: key) != nil else { throw .notFound(entity: entity.name, key: key) }
            try deleteWithRules(entity, key: key)
        }
    }

    /// A relationship that refers to an entity: the entity holding it, the attribute's
    /// index, and its rule.
    private typealias Referrer = (entity: Entity, attribute: Int, rule: Relationship.DeleteRule)

    /// Deletes an object and everything that cascades from it, in three passes: the whole
    /// set the delete takes (breadth first, so no chain is too deep), then `deny` against
    /// objects outside the set, then `nullify` of those outside it, then the deletes.
    private func deleteWithRules(_ entity: Entity, key: Value) throws(StoreError) {
        var referrers: [String: [Referrer]] = [:]
        for holder in entitiesByName.values.sorted(by: { $0.name < $1.name }) {
            for (index, attribute) in holder.attributes.enumerated() {
                if let relationship = attribute.relationship {
                    referrers[relationship.destination, default: []].append((holder, index, relationship.deleteRule))
                }
            }
        }
        var taken: [(entity: Entity, key: Value)] = [(entity, key)]
        var isTaken: Set<[Value]> = [[.string(entity.name), key]]
        var next = 0
        while next < taken.count {
            let (target, targetKey) = taken[next]
            next += 1
            for referrer in referrers[target.name] ?? [] where referrer.rule == .cascade {
                for referring in try storage.keys(of: referrer.entity, whereAttribute: referrer.attribute, equals: targetKey)
                where isTaken.insert([.string(referrer.entity.name), referring]).inserted {
                    taken.append((referrer.entity, referring))
                }
            }
        }
        for rule in [Relationship.DeleteRule.deny, .nullify] {
            for (target, targetKey) in taken {
                for referrer in referrers[target.name] ?? [] where referrer.rule == rule {
                    let keys = try storage.keys(of: referrer.entity, whereAttribute: referrer.attribute, equals: targetKey)
                    for referring in keys where !isTaken.contains([.string(referrer.entity.name), referring]) {
                        if rule == .deny {
                            throw .deleteDenied(entity: target.name, key: targetKey, referrer: referrer.entity.name,
                                                attribute: referrer.entity.attributes[referrer.attribute].name, referrerKey: referring)
                        }
                        _ = try storage.update(referrer.entity, key: referring, setting: [(referrer.attribute, .null)])
                    }
                }
            }
        }
        for (target, targetKey) in taken.reversed() {
            _ = try storage.delete(target, key: targetKey)
        }
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
    public func execute(_ sql: String, arguments: [Value] = []) throws {
        try atomically { () throws(StoreError) in
            try storage.execute(sql, arguments: arguments)
        }
    }

    /// The object with this key, or nil. Inside a transaction it sees the transaction's writes.
    public func fetch(_ entityName: String, key: Value) throws -> Object? {
        let entity = try definedEntity(named: entityName)
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
