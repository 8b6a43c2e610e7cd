extension JSONObject: RandomAccessCollection {
    /// The position of the first member.
    package var startIndex: Int { members.startIndex }

    /// The position after the last member.
    package var endIndex: Int { members.endIndex }

    /// The member at `position`.
    package subscript(position: Int) -> Member { members[position] }
}

extension JSONObject: Hashable {
    /// Two objects are equal when they have equal members in the same order.
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.elementsEqual(rhs.members) { a, b in
            a.key.utf8.elementsEqual(b.key.utf8) && a.value == b.value
        }
    }

    /// Hashes the members in order.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combineJSONString(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object from a dictionary literal, keeping the literal's key order.
    ///
    /// - Precondition: No key appears twice.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The object as compact JSON text.
    package var description: String {
        JSONValue.object(self).serialized()
    }
}
