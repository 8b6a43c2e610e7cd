import Roster
import RosterJSON

extension ScriptRunner {
    /// Carries out one command; events its delegates record are collected by the caller.
    func perform(_ command: ScriptCommand, events: inout [JSONObject]) throws(ScriptError) {
        do {
            switch command.op {
            case "entity": try defineEntity(command)
            case "query": try registerQuery(command)
            case "insert":
                let entity = try store.entity(named: command.string("entity"))
                try store.insert(entity.name, ScriptValues.values(command.value("values"), of: entity))
            case "update":
                let entity = try store.entity(named: command.string("entity"))
                try store.update(entity.name, key: key(command, entity), ScriptValues.values(command.value("values"), of: entity))
            case "delete":
                let entity = try store.entity(named: command.string("entity"))
                try store.delete(entity.name, key: key(command, entity))
            case "sql":
                try store.execute(command.string("sql"))
            case "external":
                let sql = try command.string("sql")
                // SQLite refuses another connection's write at once while the store's
                // transaction holds the write lock (from `begin` on); a server locks rows,
                // not the database, so the runner refuses it the same way there: the same
                // lines fail on both backends (ScriptFormat.md, "On PostgreSQL").
                if store.isInTransaction, PostgresSchema.isURL(store.path) {
                    throw command.error("PostgreSQL error 55P03: another connection cannot write while the script's transaction is open (from `begin` to `commit` or `rollback`), as on SQLite")
                }
                try externalConnection().execute(sql)
                try store.pollExternalChanges()
            case "begin": try store.beginTransaction()
            case "commit": try store.commit()
            case "rollback": try store.rollback()
            case "sort":
                let query = try liveQuery(command)
                try query.controller.setSortKeys(sortKeys(command.value("sort"), command))
            case "filter":
                let query = try liveQuery(command)
                try query.controller.setPredicate(predicate(command.optionalString("predicate"), command))
            case "window":
                let query = try liveQuery(command)
                let entity = try store.entity(named: query.controller.request.entityName)
                try query.controller.setWindow(ScriptWindow.window(command.value("window"), of: entity))
            case "token":
                let query = try liveQuery(command)
                tokens[try command.string("name")] = (try query.controller.resumeToken(), query.controller.request, query.recorder.adapter)
            case "resume": try resumeQuery(command)
            case "count": try registerCount(command)
            default:
                throw ScriptError(unknownOp: "unknown op '\(command.op)': expected entity, query, insert, update, delete, sql, external, begin, commit, rollback, sort, filter, window, token, resume or count")
            }
        } catch let error as ScriptError {
            throw error.namesItsOp || error.message.hasPrefix("\(command.op): ") ? error : command.error(error.message)
        } catch {
            let message = "\(error)"
            throw message.hasPrefix("\(command.op): ") ? ScriptError(message) : command.error(message)
        }
    }

    private func defineEntity(_ command: ScriptCommand) throws {
        try store.define(entityDefinition(command))
    }

    /// The entity an `entity` line describes.
    func entityDefinition(_ command: ScriptCommand) throws -> Entity {
        let name = try command.string("name")
        let keyName = try command.string("key")
        guard case let .object(attributesJSON) = try command.value("attributes") else {
            throw ScriptError("\"attributes\" must be an object of attribute names to types")
        }
        var attributes: [Attribute] = []
        for (attributeName, typeJSON) in attributesJSON.members {
            if case let .object(relationship) = typeJSON {
                attributes.append(try relationshipAttribute(attributeName, relationship, entity: name, key: keyName, attributes: attributesJSON))
                continue
            }
            guard case let .string(typeName) = typeJSON, let type = AttributeType(rawValue: typeName) else {
                throw ScriptError("attribute '\(attributeName)' has type \(typeJSON.serialized()); expected \"string\", \"integer\", \"double\", \"bool\" or a relationship {\"to\": entity}")
            }
            attributes.append(Attribute(attributeName, type))
        }
        return try Entity(name, key: keyName, attributes: attributes)
    }

    /// Checks that a new query's or count's name is free.
    private func newName(_ command: ScriptCommand) throws -> String {
        let name = try command.string("name")
        guard !queries.contains(where: { $0.name == name }), counts[name] == nil else {
            throw ScriptError("a query named '\(name)' already exists")
        }
        return name
    }

    /// A relationship attribute, `{"to": "Feed", "deleteRule": "cascade"}`: its type is its
    /// destination's key type (the entity's own, for a relationship to itself).
    private func relationshipAttribute(_ name: String, _ definition: JSONObject, entity: String, key: String,
                                       attributes: JSONObject) throws -> Attribute {
        guard case let .string(destination)? = definition["to"] else {
            throw ScriptError("relationship '\(name)' needs \"to\": the name of the entity it refers to")
        }
        var rule = Relationship.DeleteRule.nullify
        if let ruleJSON = definition["deleteRule"], !ruleJSON.isNull {
            guard case let .string(ruleName) = ruleJSON, let parsed = Relationship.DeleteRule(rawValue: ruleName) else {
                throw ScriptError("relationship '\(name)' has deleteRule \(ruleJSON.serialized()); expected \"nullify\", \"cascade\" or \"deny\"")
            }
            rule = parsed
        }
        let type: AttributeType
        if destination == entity {
            guard case let .string(typeName)? = attributes[key], let keyType = AttributeType(rawValue: typeName) else {
                throw ScriptError("relationship '\(name)' refers to '\(entity)' itself, whose key '\(key)' needs a type")
            }
            type = keyType
        } else {
            guard let target = store.entities[destination] else {
                throw ScriptError("relationship '\(name)' of entity '\(entity)' refers to '\(destination)', which the store does not define; define it first")
            }
            type = target.key.type
        }
        return .relationship(name, to: destination, type: type, deleteRule: rule)
    }

    private func registerQuery(_ command: ScriptCommand) throws {
        let name = try newName(command)
        let entityName = try command.string("entity")
        let sort = try command.object["sort"].map { json throws(ScriptError) in try sortKeys(json, command) } ?? []
        let request = FetchRequest(
            entity: entityName,
            predicate: try predicate(command.optionalString("predicate"), command),
            sortKeys: sort,
            sectionAttribute: try command.optionalString("section"),
            displayedAttributes: try command.optionalStrings("displays"),
            reportsChangedAttributes: try command.optionalBool("changedAttributes"),
            aggregates: try aggregates(command.object["aggregates"], command))
        // A query that names changed attributes splits its updates into reloads (of the
        // attributes `reload` names) and reconfigures.
        let reloading = try command.optionalStrings("reload")
        guard reloading == nil || request.reportsChangedAttributes else {
            throw command.error("\"reload\" needs \"changedAttributes\":true: only updates that name their attributes can be reconfigured")
        }
        let queryAdapter = request.reportsChangedAttributes
            ? BatchAdapter(keepsMoves: adapter.keepsMoves, reloadingAttributes: Set(reloading ?? [])) : adapter
        // What `changed` can name: the entity's attributes, and key paths from it.
        if let unknown = try reloading?.first(where: { try !isAttributeOrKeyPath($0, of: store.entity(named: entityName)) }) {
            throw command.error("\"reload\" names '\(unknown)', which is neither an attribute of '\(entityName)' nor a key path from it")
        }
        let controller = try ResultsController(store: store, request: request)
        try controller.setWindow(ScriptWindow.window(command.object["window"], of: store.entity(named: entityName)))
        let recorder = TraceRecorder(queryName: name, adapter: queryAdapter)
        controller.delegate = recorder
        recorder.holdErrors()
        defer { recorder.printHeldErrors() }
        try controller.performFetch()
        queries.append((name, controller, recorder))
        eventSources.append(recorder)
        recorder.recordSnapshot(of: controller)
        try printCounts(of: controller, recorder)
        recorder.recordAllAggregates(of: controller)
    }

    /// Whether `name` is an attribute of `entity`, or a key path (`feed.title`) through its
    /// relationships to an attribute.
    private func isAttributeOrKeyPath(_ name: String, of entity: Entity) -> Bool {
        var current = entity
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (offset, part) in parts.enumerated() {
            guard let attribute = current.attribute(named: part) else { return false }
            if offset == parts.count - 1 { return true }
            guard let destination = attribute.relationship?.destination, let next = store.entities[destination] else { return false }
            current = next
        }
        return false
    }

    /// `count`: a live count of the objects that match a predicate.
    private func registerCount(_ command: ScriptCommand) throws {
        let name = try newName(command)
        let liveCount = try LiveCount(store: store, entity: command.string("entity"),
                                      predicate: predicate(command.optionalString("predicate"), command))
        let recorder = LiveCountRecorder(name: name, liveCount: liveCount)
        liveCount.delegate = recorder
        try liveCount.performFetch()
        counts[name] = recorder
        eventSources.append(recorder)
        recorder.liveCount(liveCount, didChangeTo: liveCount.count)
    }

    /// A query's `aggregates`: an object of names to `{"count": predicate}` or `{"sum": attribute}`;
    /// missing, `null` or `false` for none.
    private func aggregates(_ json: JSONValue?, _ command: ScriptCommand) throws -> [Aggregate] {
        guard let json, !json.isNull else { return [] }
        if case .bool(false) = json { return [] }
        guard case let .object(members) = json else {
            throw ScriptError("\"aggregates\" must be an object of names to {\"count\": predicate} or {\"sum\": attribute}, not \(json.serialized())")
        }
        var aggregates: [Aggregate] = []
        for (name, definition) in members.members {
            guard case let .object(function) = definition, function.members.count == 1, let (kind, argument) = function.members.first,
                  case let .string(text) = argument, kind == "count" || kind == "sum" else {
                throw ScriptError("aggregate '\(name)' must be {\"count\": predicate} or {\"sum\": attribute}, not \(definition.serialized())")
            }
            aggregates.append(kind == "count" ? .count(name, where: try predicate(text, command)) : .sum(name, of: text))
        }
        return aggregates
    }

    /// `resume`: a new live query from a saved token, reporting what changed since.
    private func resumeQuery(_ command: ScriptCommand) throws {
        let name = try newName(command)
        let tokenName = try command.string("token")
        guard let saved = tokens[tokenName] else { throw ScriptError("no token named '\(tokenName)'") }
        let controller = try ResultsController(store: store, request: saved.request)
        let recorder = TraceRecorder(queryName: name, adapter: saved.adapter)
        controller.delegate = recorder
        recorder.holdErrors()
        defer { recorder.printHeldErrors() }
        try controller.performFetch(resumingFrom: saved.token)
        queries.append((name, controller, recorder))
        eventSources.append(recorder)
        // A group ends with the snapshot; without one, the snapshot alone.
        if controller.lastChange == nil { recorder.recordSnapshot(of: controller) }
        try printCounts(of: controller, recorder)
        recorder.recordAllAggregates(of: controller)
    }

    /// A windowed query's `counts` event after it is registered: a window opened cold
    /// loads the whole results now, which reports them.
    private func printCounts(of controller: ResultsController, _ recorder: TraceRecorder) throws {
        guard controller.window != nil else { return }
        if let counts = controller.counts {
            recorder.controller(controller, didChangeCounts: counts)
        } else {
            do { try controller.loadResults() } catch let error as StoreError { recorder.controller(controller, didFailWith: error) }
        }
    }

    private func liveQuery(_ command: ScriptCommand) throws -> (name: String, controller: ResultsController, recorder: TraceRecorder) {
        let name = try command.string("query")
        guard let query = queries.first(where: { $0.name == name }) else {
            throw ScriptError("no query named '\(name)'")
        }
        return query
    }

    private func key(_ command: ScriptCommand, _ entity: Entity) throws -> Value {
        let value = try ScriptValues.value(command.value("key"), for: entity.key, of: entity)
        guard !value.isNull else { throw ScriptError("\"key\" cannot be null") }
        return value
    }

    private func predicate(_ format: String?, _ command: ScriptCommand) throws -> QueryPredicate {
        guard let format else { return .all }
        do {
            return try QueryPredicate(format: format, arguments: [])
        } catch {
            throw ScriptError("\(error)")
        }
    }

    private func sortKeys(_ json: JSONValue, _ command: ScriptCommand) throws(ScriptError) -> [SortKey] {
        guard case let .array(items) = json else {
            throw ScriptError("\"sort\" must be an array of [attribute, \"asc\" or \"desc\"] pairs, not \(json.serialized())")
        }
        var descriptors: [SortKey] = []
        for item in items {
            switch item {
            case let .string(attribute):
                descriptors.append(SortKey(attribute))
            case let .array(pair) where pair.count == 2 || pair.count == 1:
                guard case let .string(attribute) = pair[0] else {
                    throw ScriptError("a sort key's attribute must be a string, not \(pair[0].serialized())")
                }
                var ascending = true
                if pair.count == 2 {
                    guard case let .string(direction) = pair[1], ["asc", "desc"].contains(direction.lowercased()) else {
                        throw ScriptError("sort direction for '\(attribute)' must be \"asc\" or \"desc\", not \(pair[1].serialized())")
                    }
                    ascending = direction.lowercased() == "asc"
                }
                descriptors.append(SortKey(attribute, ascending: ascending))
            default:
                throw ScriptError("a sort key must be [attribute, \"asc\" or \"desc\"], not \(item.serialized())")
            }
        }
        return descriptors
    }
}
