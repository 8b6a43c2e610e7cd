/// How a live query's rows reach the values of related objects: the to-one relationships
/// its key paths follow (`feed.title` follows `feed` to a `Feed` and reads its `title`),
/// as joins, and the SQL that reads the entity with those values appended.
///
/// Every prefix of a path that ends in a relationship is a join, shared by the paths that
/// start with it; every prefix of two steps or more is a column of the extended row (so
/// `feed.group.name` also reads `feed.group`, the key the second join follows). A
/// reference that leads nowhere — null, or dangling because another writer deleted its
/// destination without the delete rules — gives null for everything past it.
struct KeyPathColumns: Sendable, Hashable {
    /// One relationship followed.
    struct Join: Sendable, Hashable {
        /// The path to the relationship, from the entity (`feed`, `feed.group`).
        let path: String
        /// The entity it leads to.
        let destination: Entity
        /// The name of the column of the extended row holding the key it follows: a stored
        /// attribute for the first step, else the previous join's column (`feed.group`).
        let referenceColumn: String
    }

    /// The longest key path: steps, the attribute read included (`a.b.c.d`).
    static let maximumSteps = 4

    /// How many attributes the entity stores: the key-path columns follow them.
    let storedCount: Int
    /// The relationships followed, each after the one it starts from.
    let joins: [Join]
    /// For each key-path column, in order: the join it reads and the attribute it reads there.
    let columns: [Column]
    /// `(SELECT … FROM table LEFT JOIN … ) AS "Entity"`: the entity's rows with the key-path
    /// columns, under the entity's name.
    let source: String

    /// One key-path column.
    struct Column: Sendable, Hashable {
        /// The index in ``KeyPathColumns/joins`` of the join whose destination it reads.
        let join: Int
        /// The destination's attribute it reads.
        let attribute: String
    }

    /// The indexes, in the join's destination, of the attributes the key-path columns read
    /// there: a change to one of them changes the rows that follow the join.
    func readAttributes(ofJoin join: Int) -> [Int] {
        columns.filter { $0.join == join }.compactMap { joins[join].destination.index(of: $0.attribute) }
    }

    /// Why a key path cannot be followed.
    struct PathError: Error {
        let path: String
        let reason: String
    }

    /// `entity` extended with the columns that `paths` (dotted names) need, or `entity`
    /// itself when none has a dot.
    ///
    /// - Parameter lookup: the store's entity of a name.
    /// - Throws: ``PathError`` for a path longer than ``maximumSteps``, an empty step, a
    ///   step through an attribute that is not a relationship, or to an attribute or an
    ///   entity that does not exist.
    static func extend(_ entity: Entity, following paths: [String], lookup: (String) -> Entity?) throws(PathError) -> Entity {
        var prefixes: [String] = []  // every dotted prefix of two steps or more, in order
        var origin: [String: String] = [:]  // the path each prefix came from, for errors
        for path in paths where path.contains(".") {
            let steps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard steps.count <= maximumSteps else {
                throw PathError(path: path, reason: "it has \(steps.count) steps; a key path has at most \(maximumSteps)")
            }
            guard !steps.contains(where: \.isEmpty) else { throw PathError(path: path, reason: "a step is empty") }
            for length in 2...steps.count {
                let prefix = steps.prefix(length).joined(separator: ".")
                if !prefixes.contains(prefix) {
                    prefixes.append(prefix)
                    origin[prefix] = path
                }
            }
        }
        guard !prefixes.isEmpty else { return entity }
        var joins: [Join] = []
        var joinIndex: [String: Int] = [:]
        var columns: [Column] = []
        var derived: [Attribute] = []
        // Which entity each relationship path reaches, and the attribute a path ends in.
        func destination(of relationshipPath: String, from entity: Entity) throws(PathError) -> Int {
            if let index = joinIndex[relationshipPath] { return index }
            let steps = relationshipPath.split(separator: ".").map(String.init)
            let (owner, referenceColumn): (Entity, String)
            if steps.count == 1 {
                owner = entity
                referenceColumn = relationshipPath
            } else {
                let parent = steps.dropLast().joined(separator: ".")
                owner = joins[try destination(of: parent, from: entity)].destination
                referenceColumn = relationshipPath
            }
            guard let attribute = owner.attribute(named: steps[steps.count - 1]) else {
                throw PathError(path: relationshipPath, reason: "entity '\(owner.name)' has no attribute '\(steps[steps.count - 1])'")
            }
            guard let relationship = attribute.relationship else {
                throw PathError(path: relationshipPath, reason: "'\(attribute.name)' of '\(owner.name)' is not a relationship, so a key path cannot go through it")
            }
            guard let target = relationship.destination == owner.name ? owner : lookup(relationship.destination) else {
                throw PathError(path: relationshipPath, reason: "'\(attribute.name)' of '\(owner.name)' refers to '\(relationship.destination)', which the store does not define")
            }
            joins.append(Join(path: relationshipPath, destination: target, referenceColumn: referenceColumn))
            joinIndex[relationshipPath] = joins.count - 1
            return joins.count - 1
        }
        for prefix in prefixes {
            let steps = prefix.split(separator: ".").map(String.init)
            let join: Int
            do {
                join = try destination(of: steps.dropLast().joined(separator: "."), from: entity)
            } catch {
                throw PathError(path: origin[prefix] ?? prefix, reason: error.reason)
            }
            let target = joins[join].destination
            guard let attribute = target.attribute(named: steps[steps.count - 1]) else {
                throw PathError(path: origin[prefix] ?? prefix, reason: "entity '\(target.name)' has no attribute '\(steps[steps.count - 1])'")
            }
            columns.append(Column(join: join, attribute: attribute.name))
            var column = Attribute(prefix, attribute.type)
            column.relationship = attribute.relationship
            derived.append(column)
        }
        let table = Identifier.quoted(entity.name)
        func alias(_ join: Int) -> String { Identifier.quoted("_roster_j\(join)") }
        var select = entity.attributes.map { "\(table).\(Identifier.quoted($0.name))" }
        select += columns.enumerated().map { offset, column in
            "\(alias(column.join)).\(Identifier.quoted(column.attribute)) AS \(Identifier.quoted(prefixes[offset]))"
        }
        var from = table
        for (index, join) in joins.enumerated() {
            // The key a join follows: a stored column, or the column the previous join read.
            let reference: String
            if join.path.contains(".") {
                let steps = join.path.split(separator: ".").map(String.init)
                let parent = joinIndex[steps.dropLast().joined(separator: ".")] ?? 0
                reference = "\(alias(parent)).\(Identifier.quoted(steps[steps.count - 1]))"
            } else {
                reference = "\(table).\(Identifier.quoted(join.path))"
            }
            from += " LEFT JOIN \(Identifier.quoted(join.destination.name)) AS \(alias(index)) ON \(alias(index)).\(Identifier.quoted(join.destination.key.name)) = \(reference)"
        }
        let source = "(SELECT \(select.joined(separator: ", ")) FROM \(from)) AS \(table)"
        let keyPaths = KeyPathColumns(storedCount: entity.attributes.count, joins: joins, columns: columns, source: source)
        return Entity(entity, following: keyPaths, derived: derived)
    }
}
