/// One number a benchmark measured: what `--json` writes, one object per line.
package struct Measurement: Sendable, Hashable {
    /// The scenario that measured it: `fetch`, `commit`, `feed`, `queries` or `bulk`.
    package var scenario: String
    /// The number of posts in the table.
    package var size: Int
    /// What was measured, dotted from general to particular, e.g. `insert.roster.commit_to_batch.median`.
    package var metric: String
    /// The value, in ``unit``.
    package var value: Double
    /// `ms`, `bytes`, `bytes/row`, `x` (a ratio) or `count`.
    package var unit: String

    /// Creates a measurement.
    package init(scenario: String, size: Int, metric: String, value: Double, unit: String) {
        self.scenario = scenario
        self.size = size
        self.metric = metric
        self.value = value
        self.unit = unit
    }

    /// The measurement as one JSON object on one line:
    /// `{"scenario":"commit","N":10000,"metric":"…","value":0.25,"unit":"ms"}`. A value
    /// that is not a finite number is written `null`.
    package var jsonLine: String {
        let number = value.isFinite ? "\(value)" : "null"
        return #"{"scenario":\#(Self.quoted(scenario)),"N":\#(size),"metric":\#(Self.quoted(metric)),"value":\#(number),"unit":\#(Self.quoted(unit))}"#
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case _ where scalar.value < 0x20: result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
