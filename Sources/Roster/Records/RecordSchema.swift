import Foundation

/// The layouts of record types, derived once per type.
enum RecordLayouts {
    private static let cache = Locked<[ObjectIdentifier: any Sendable]>([:])

    /// The layout of `type`.
    static func of<R: Record>(_ type: R.Type) throws(StoreError) -> RecordLayout<R> {
        if let cached = cache.withLock({ $0[ObjectIdentifier(type)] }) as? RecordLayout<R> { return cached }
        let layout = try RecordLayout<R>()
        cache.withLock { $0[ObjectIdentifier(type)] = layout }
        return layout
    }
}

/// What Roster learns about a ``Record`` type by decoding it with a probe: its attributes
/// in declaration order, and which attribute each key path reads.
///
/// Swift cannot name the property a key path reads, so the layout decodes one probe
/// instance per attribute, in which that attribute alone holds a telltale value; a key
/// path reads attribute *a* exactly when, on every probe, it returns what the probe
/// stored in *a*.
struct RecordLayout<R: Record>: Sendable {
    /// The entity the type describes (attributes in property order).
    let entity: Entity
    /// One instance per attribute, and its values as stored.
    private let probes: [(instance: R, row: [String: Value])]

    init() throws(StoreError) {
        let name = R.entityName
        let recorder = ProbeDecoder.Recorder()
        do {
            _ = try R(from: ProbeDecoder(recorder: recorder))
        } catch {
            if let field = recorder.fields.last, field.type == nil {
                throw .schemaMismatch(entity: name, reason: "property '\(field.name)' has type \(field.swiftType), which Roster cannot store; use String, an integer, Double, Float, Bool, Date, UUID or URL, optional or not")
            }
            throw .schemaMismatch(entity: name, reason: "cannot read the properties of \(R.self): \(error)")
        }
        var attributes: [Attribute] = []
        for field in recorder.fields {
            guard let type = field.type else {
                throw .schemaMismatch(entity: name, reason: "property '\(field.name)' has type \(field.swiftType), which Roster cannot store; use String, an integer, Double, Float, Bool, Date, UUID or URL, optional or not")
            }
            var attribute = Attribute(field.name, type)
            attribute.relationship = R.relationships[field.name]
            attributes.append(attribute)
        }
        for property in R.relationships.keys.sorted() where !attributes.contains(where: { $0.name == property }) {
            throw .schemaMismatch(entity: name, reason: "relationships names '\(property)', which is not a stored property of \(R.self)")
        }
        do {
            entity = try Entity(name, key: R.keyAttribute, attributes: attributes, allowingReservedAttributeNames: false)
        } catch {
            throw .schema(error)
        }
        var probes: [(R, [String: Value])] = []
        for index in attributes.indices {
            guard let instance = try? R(from: ProbeDecoder(recorder: ProbeDecoder.Recorder(), distinctIndex: index, order: recorder.order)),
                  let row = try? RowEncoder.encode(instance) else {
                probes = []
                break
            }
            probes.append((instance, row))
        }
        self.probes = probes
    }

    /// The attribute a key path reads, or nil when it does not read a stored property.
    func attributeName(for keyPath: PartialKeyPath<R>) -> String? {
        guard !probes.isEmpty else { return nil }
        let read = probes.map { RowEncoder.value(of: $0.instance[keyPath: keyPath]) }
        return entity.attributes.first { attribute in
            zip(read, probes).allSatisfy { value, probe in value == probe.row[attribute.name] }
        }?.name
    }

    /// Like ``attributeName(for:)``, with an error that names the type.
    func requireAttributeName(for keyPath: PartialKeyPath<R>) throws(StoreError) -> String {
        guard let name = attributeName(for: keyPath) else {
            throw .schemaMismatch(entity: entity.name, reason: "the key path \(keyPath) does not read a stored property of \(R.self)")
        }
        return name
    }
}
