extension Store {
    /// Defines the entity that a record type describes, or checks and migrates the one
    /// already in the file.
    ///
    /// A property added to the type since the file was written adds its column (null in
    /// existing objects). A property removed, renamed to another type, or a different key
    /// is an error: Roster never drops a column or converts data silently.
    ///
    /// - Returns: the entity as stored (existing columns first, added ones after).
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` with what differs.
    @discardableResult
    public func define<R: Record>(_ type: R.Type) throws -> Entity {
        let layout = try RecordLayouts.of(type)
        try define(layout.entity)
        return try definedEntity(named: layout.entity.name)
    }

    /// Inserts a record.
    ///
    /// - Throws: ``StoreError/duplicateKey(entity:key:)`` when its key exists, or another
    ///   ``StoreError``.
    public func insert<R: Record>(_ record: R) throws {
        let (entity, values) = try encode(record)
        try insert(entity.name, values)
    }

    /// Replaces every attribute of the stored record with the same key.
    ///
    /// - Throws: ``StoreError/notFound(entity:key:)`` when no record has its key.
    public func update<R: Record>(_ record: R) throws {
        let (entity, values) = try encode(record)
        guard let key = values[entity.key.name] else { throw StoreError.missingKey(entity: entity.name, keyAttribute: entity.key.name) }
        try update(entity.name, key: key, values)
    }

    /// Inserts the record, or replaces the stored one with the same key.
    public func save<R: Record>(_ record: R) throws {
        let (entity, values) = try encode(record)
        guard let key = values[entity.key.name], !key.isNull else { throw StoreError.missingKey(entity: entity.name, keyAttribute: entity.key.name) }
        try write {
            if try fetch(entity.name, key: key) == nil {
                try insert(entity.name, values)
            } else {
                try update(entity.name, key: key, values)
            }
        }
    }

    /// Deletes the record of this type with this key.
    ///
    /// - Throws: ``StoreError/notFound(entity:key:)``.
    public func delete<R: Record>(_ type: R.Type, key: some ValueConvertible) throws {
        try delete(try RecordLayouts.of(type).entity.name, key: key.value)
    }

    /// The record of this type with this key, or nil.
    public func fetch<R: Record>(_ type: R.Type, key: some ValueConvertible) throws -> R? {
        let layout = try RecordLayouts.of(type)
        return try fetch(layout.entity.name, key: key.value).map { object in try object.decode(R.self) }
    }

    /// The values of a record by attribute name, checked against the stored entity.
    private func encode<R: Record>(_ record: R) throws(StoreError) -> (Entity, [String: Value]) {
        let entity = try definedEntity(named: RecordLayouts.of(R.self).entity.name)
        do {
            return (entity, try RowEncoder.encode(record))
        } catch {
            throw .schemaMismatch(entity: entity.name, reason: "cannot store this \(R.self): \(error)")
        }
    }
}

extension Object {
    /// The object as a record of type `R`.
    ///
    /// - Throws: ``StoreError/schemaMismatch(entity:reason:)`` when a value does not fit
    ///   (a null for a non-optional property, say).
    public func decode<R: Record>(_ type: R.Type) throws -> R {
        do {
            return try R(from: RowDecoder(object: self))
        } catch {
            throw StoreError.schemaMismatch(entity: entity.name, reason: "cannot read \(entity.name) \(key) as \(R.self): \(error)")
        }
    }
}
