/// What a live query shows: objects of one entity that match a predicate, in an order,
/// optionally grouped into sections by one attribute.
///
/// ```swift
/// let request = try FetchRequest(
///     entity: "Post",
///     predicate: QueryPredicate("rank > %@", 2),
///     sortKeys: [SortKey("day", ascending: false), SortKey("rank")],
///     sectionAttribute: "day")
/// ```
///
/// Objects that tie on every sort key are ordered by key, ascending. When
/// `sectionAttribute` is set, the section attribute is the first sort key, so that each
/// section's objects are together: name it first to choose its direction; if the sort
/// keys start with another attribute, the section attribute is put before them, ascending.
public struct FetchRequest: Sendable, Hashable {
    /// The entity whose objects are fetched.
    public var entityName: String
    /// Which objects are included; ``QueryPredicate/all`` for every object.
    public var predicate: QueryPredicate
    /// The order, most significant first.
    public var sortKeys: [SortKey]
    /// The attribute whose value names each section, or nil for one section.
    public var sectionAttribute: String?
    /// The attributes the list displays, or nil for all of them. A commit that changes only
    /// other attributes of an object reports no `update` for it (its values are still
    /// current when read); one that changes a displayed attribute reports it as before.
    /// Moves, inserts and deletes do not depend on it.
    public var displayedAttributes: [String]?
    /// Whether each `update`, and each `move` that also changed values, names the
    /// attributes whose values changed (`ObjectChange.changedAttributes`, in the order of
    /// the entity's attributes). Off by default: the changes are then exactly as without it.
    public var reportsChangedAttributes: Bool
    /// Figures kept per section and over the whole results as commits change them: counts
    /// of objects that match a predicate, sums of numeric attributes (``Aggregate``,
    /// ``AggregateValues``). Empty by default: the query keeps none.
    public var aggregates: [Aggregate]

    /// Creates a fetch request.
    public init(entity: String, predicate: QueryPredicate = .all, sortKeys: [SortKey] = [], sectionAttribute: String? = nil,
                displayedAttributes: [String]? = nil, reportsChangedAttributes: Bool = false, aggregates: [Aggregate] = []) {
        self.entityName = entity
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.sectionAttribute = sectionAttribute
        self.displayedAttributes = displayedAttributes
        self.reportsChangedAttributes = reportsChangedAttributes
        self.aggregates = aggregates
    }
}

extension FetchRequest {
    /// Every attribute name and key path the request reads: the predicate's, the sort
    /// keys, the section attribute, the displayed attributes and the aggregates'.
    var attributeNames: [String] {
        var names = predicate.attributeNames + sortKeys.map(\.attribute)
        if let sectionAttribute { names.append(sectionAttribute) }
        names += displayedAttributes ?? []
        for aggregate in aggregates {
            switch aggregate.function {
            case let .count(predicate): names += predicate.attributeNames
            case let .sum(attribute): names.append(attribute)
            }
        }
        return names
    }
}

/// A fetch request checked against its entity: attributes resolved, the predicate
/// compiled to SQL and to Swift, the order ready to compare rows.
struct BoundQuery: Sendable {
    /// The request bound.
    let request: FetchRequest
    let entity: Entity
    let predicate: BoundPredicate
    let sort: BoundSort
    /// The index of the section attribute, if any.
    let sectionIndex: Int?
    /// `SELECT … FROM … WHERE … ORDER BY …` for the whole result.
    let selectSQL: String
    /// `SELECT key, sort columns … WHERE … ORDER BY …`: the order alone, which an index on
    /// the sort columns (and the key) serves without reading the rows.
    let orderSQL: String
    /// The attribute indexes `orderSQL` returns, in order: the key, then the sort values
    /// other than the key.
    let orderColumns: [Int]
    /// What the request's attribute options need (``AttributeRelevance``), or nil when it
    /// has neither ``FetchRequest/displayedAttributes`` nor
    /// ``FetchRequest/reportsChangedAttributes``.
    let attributeRelevance: AttributeRelevance?
    /// The request's aggregates, bound; nil when it has none.
    let aggregates: BoundAggregates?

    /// The attribute indexes whose change can insert, delete or move an object: the key,
    /// the sort keys (the section attribute among them) and what the predicate reads.
    var placingAttributes: Set<Int> { Self.placingAttributes(entity: entity, sort: sort, predicate: predicate) }

    static func placingAttributes(entity: Entity, sort: BoundSort, predicate: BoundPredicate) -> Set<Int> {
        Set([entity.keyIndex] + sort.attributeIndexes + predicate.referencedAttributes)
    }

    init(_ request: FetchRequest, entity: Entity) throws(RequestBindingError) {
        self.request = request
        self.entity = entity
        do {
            predicate = try BoundPredicate(request.predicate, entity: entity)
        } catch {
            throw .predicate(error)
        }
        var sortKeys = request.sortKeys
        if let name = request.sectionAttribute {
            guard let index = entity.index(of: name) else {
                throw .unknownSectionAttribute(entity: entity.name, attribute: name)
            }
            // Sections must be contiguous, so the section attribute sorts first; when the
            // request does not say how, it sorts ascending.
            if sortKeys.first?.attribute != name {
                sortKeys.insert(SortKey(name), at: 0)
            }
            sectionIndex = index
        } else {
            sectionIndex = nil
        }
        do {
            sort = try BoundSort(sortKeys, entity: entity)
        } catch {
            throw .sort(error)
        }
        attributeRelevance = try AttributeRelevance(request, entity: entity, sort: sort, predicate: predicate, sectionIndex: sectionIndex)
        aggregates = try BoundAggregates(request.aggregates, entity: entity)
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let table = entity.readSource
        selectSQL = "SELECT \(columns) FROM \(table) WHERE \(predicate.sql) ORDER BY \(sort.orderBySQL)"
        orderColumns = [entity.keyIndex] + sort.attributeIndexes.filter { $0 != entity.keyIndex }
        let ordered = orderColumns.map { Identifier.quoted(entity.attributes[$0].name) }.joined(separator: ", ")
        orderSQL = "SELECT \(ordered) FROM \(table) WHERE \(predicate.sql) ORDER BY \(sort.orderBySQL)"
    }

    /// `selectSQL` for `?` rows from the `?`-th: a window's rows (parameters after the predicate's).
    var windowSQL: String { selectSQL + " LIMIT ? OFFSET ?" }

    /// `SELECT` statements for the rows next to a row with these sort values, each a range
    /// an index serves: `after` gives those below it in order, the others those above it,
    /// nearest first (each reads at most `?` rows, bound after its values).
    func neighbourSelects(of sortValues: [Value], after: Bool) -> [(sql: String, values: [Value])] {
        let columns = entity.attributes.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let table = entity.readSource
        let ranges = after ? sort.ranges(of: sortValues, after: true) : sort.ranges(of: sortValues, after: false).reversed()
        let order = after ? sort.orderBySQL : sort.reversedOrderBySQL
        return ranges.map { range in
            ("SELECT \(columns) FROM \(table) WHERE (\(predicate.sql)) AND \(range.sql) ORDER BY \(order) LIMIT ?", range.values)
        }
    }

    /// The section name of a row: its section attribute's value, or null without sections.
    func sectionName(of row: [Value]) -> Value {
        sectionIndex.map { row[$0] } ?? .null
    }

    /// The key of a row.
    func key(of row: [Value]) -> Value { row[entity.keyIndex] }
}

/// Which attributes a request displays and which place its objects: what its
/// ``FetchRequest/displayedAttributes`` and ``FetchRequest/reportsChangedAttributes`` need,
/// kept apart from the rest of ``BoundQuery`` so that a commit reads only these.
struct AttributeRelevance: Sendable {
    /// For each attribute, whether the request displays it (every one without
    /// ``FetchRequest/displayedAttributes``).
    let isDisplayed: [Bool]
    /// For each attribute, whether a change to it can insert, delete or move an object:
    /// the key, the sort keys, the section attribute and what the predicate reads.
    let isPlacing: [Bool]
    /// Whether the request names what it displays (else every attribute is displayed).
    let filtersDisplayed: Bool
    /// Whether updates and moves name their changed attributes.
    let reportsChanged: Bool
    /// The attributes' names, in the entity's order.
    let names: [String]
    /// The indexes of the attributes that are displayed or place an object.
    let mattering: [Int]

    /// The relevance of `request`'s attributes, or nil when it has neither option.
    ///
    /// - Throws: ``RequestBindingError/unknownDisplayedAttribute(entity:attribute:)`` for a
    ///   displayed attribute the entity does not have.
    init?(_ request: FetchRequest, entity: Entity, sort: BoundSort, predicate: BoundPredicate, sectionIndex: Int?) throws(RequestBindingError) {
        guard request.displayedAttributes != nil || request.reportsChangedAttributes else { return nil }
        var isDisplayed = [Bool](repeating: request.displayedAttributes == nil, count: entity.attributes.count)
        for name in request.displayedAttributes ?? [] {
            guard let index = entity.index(of: name) else {
                throw .unknownDisplayedAttribute(entity: entity.name, attribute: name)
            }
            isDisplayed[index] = true
        }
        var isPlacing = [Bool](repeating: false, count: entity.attributes.count)
        for index in BoundQuery.placingAttributes(entity: entity, sort: sort, predicate: predicate) { isPlacing[index] = true }
        if let sectionIndex { isPlacing[sectionIndex] = true }
        self.isDisplayed = isDisplayed
        self.isPlacing = isPlacing
        filtersDisplayed = request.displayedAttributes != nil
        reportsChanged = request.reportsChangedAttributes
        names = entity.attributes.map(\.name)
        mattering = entity.attributes.indices.filter { isPlacing[$0] || isDisplayed[$0] }
    }
}

/// Why a ``FetchRequest`` does not fit its entity: the query floor's own error. The store
/// reports it as a ``StoreError`` (`StoreError(_:)`, in Storage/).
enum RequestBindingError: Error, Sendable {
    /// The predicate does not parse or does not fit the entity.
    case predicate(QueryPredicateError)
    /// The section attribute is not an attribute of the entity.
    case unknownSectionAttribute(entity: String, attribute: String)
    /// A displayed attribute is not an attribute of the entity.
    case unknownDisplayedAttribute(entity: String, attribute: String)
    /// A sort key names an attribute the entity does not have.
    case sort(SchemaError)
    /// An aggregate that cannot be kept (``BoundAggregates``).
    case invalidAggregate(entity: String, aggregate: String, reason: String)
}
