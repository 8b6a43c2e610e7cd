/// A figure a live query keeps over its results, per section and in total, maintained
/// with each commit rather than queried again: how many unread entries a feed has, how
/// many words its entries hold.
///
/// ```swift
/// let request = FetchRequest(entity: "Entry", sortKeys: [SortKey("published", ascending: false)],
///                            sectionAttribute: "feedTitle",
///                            aggregates: [.count("unread", where: try QueryPredicate("read == NO")),
///                                         .sum("words", of: "wordCount")])
/// ```
///
/// Every section's number of objects is kept too (``AggregateValues/numberOfObjects``);
/// an aggregate adds a figure beside it. See ``AggregateValues`` for how each is computed.
public struct Aggregate: Sendable, Hashable {
    /// What an aggregate computes.
    public enum Function: Sendable, Hashable {
        /// The number of objects for which the predicate is true.
        case count(QueryPredicate)
        /// The sum of a numeric (`integer`, `double` or `bool`) attribute's values.
        case sum(String)
    }

    /// The name the aggregate's value is reported under (``AggregateValues/subscript(_:)``).
    public let name: String
    /// What it computes.
    public let function: Function

    /// An aggregate named `name` that computes `function`.
    public init(_ name: String, _ function: Function) {
        self.name = name
        self.function = function
    }

    /// The number of objects in each section (and in total) for which `predicate` is true.
    public static func count(_ name: String, where predicate: QueryPredicate) -> Aggregate {
        Aggregate(name, .count(predicate))
    }

    /// The sum of a numeric attribute over each section's objects (and over all of them).
    public static func sum(_ name: String, of attribute: String) -> Aggregate {
        Aggregate(name, .sum(attribute))
    }
}

/// A request's aggregates checked against its entity: what each reads of a row.
struct BoundAggregates: Sendable {
    /// One aggregate, bound.
    enum Term: Sendable {
        /// Counts the rows the predicate is true for.
        case count(BoundPredicate)
        /// Sums an attribute; `isReal` when it is a `double` attribute (the sum is a double
        /// even when it has no values to add).
        case sum(attribute: Int, isReal: Bool)
    }

    /// The aggregates' names, in the request's order.
    let names: [String]
    /// The aggregates, in the request's order.
    let terms: [Term]
    /// The attributes the aggregates read.
    let referencedAttributes: Set<Int>

    /// The request's aggregates bound to `entity`, or nil when it has none.
    ///
    /// - Throws: ``RequestBindingError/invalidAggregate(entity:aggregate:reason:)`` for an
    ///   empty or repeated name, a sum of an attribute the entity does not have or that is
    ///   not numeric; ``RequestBindingError/predicate(_:)`` for a count's predicate that
    ///   does not fit the entity.
    init?(_ aggregates: [Aggregate], entity: Entity) throws(RequestBindingError) {
        guard !aggregates.isEmpty else { return nil }
        var names: [String] = []
        var terms: [Term] = []
        var referenced = Set<Int>()
        for aggregate in aggregates {
            func invalid(_ reason: String) -> RequestBindingError {
                .invalidAggregate(entity: entity.name, aggregate: aggregate.name, reason: reason)
            }
            guard !aggregate.name.isEmpty else { throw invalid("an aggregate needs a name") }
            guard !names.contains(aggregate.name) else { throw invalid("two aggregates cannot share a name") }
            switch aggregate.function {
            case let .count(predicate):
                let bound: BoundPredicate
                do { bound = try BoundPredicate(predicate, entity: entity) } catch { throw .predicate(error) }
                terms.append(.count(bound))
                referenced.formUnion(bound.referencedAttributes)
            case let .sum(attribute):
                guard let index = entity.index(of: attribute) else {
                    throw invalid("entity '\(entity.name)' has no attribute '\(attribute)' to sum")
                }
                let type = entity.attributes[index].type
                guard type != .string else {
                    throw invalid("'\(attribute)' is a string attribute; a sum needs an integer, double or bool attribute")
                }
                terms.append(.sum(attribute: index, isReal: type == .double))
                referenced.insert(index)
            }
            names.append(aggregate.name)
        }
        self.names = names
        self.terms = terms
        referencedAttributes = referenced
    }
}
