/// A table printed a row at a time, in columns of fixed width: the leading label columns
/// left aligned, the numbers right aligned.
struct TextTable {
    struct Column {
        let title: String
        let width: Int
    }

    let columns: [Column]
    /// How many columns, from the first, are labels.
    let labelColumns: Int

    init(labels labelColumns: Int = 1, _ columns: [(title: String, width: Int)]) {
        self.columns = columns.map { Column(title: $0.title, width: max($0.width, $0.title.count)) }
        self.labelColumns = labelColumns
    }

    /// The titles and a rule under them.
    var header: [String] {
        [line(columns.map(\.title)), line(columns.map { String(repeating: "-", count: $0.width) })]
    }

    /// One row; a cell wider than its column pushes the rest of the row right.
    func line(_ cells: [String]) -> String {
        var text = ""
        for (index, column) in columns.enumerated() {
            let cell = index < cells.count ? cells[index] : ""
            let padding = String(repeating: " ", count: max(0, column.width - cell.count))
            if index > 0 { text += "  " }
            text += index < labelColumns ? cell + padding : padding + cell
        }
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// How numbers are written in the table.
enum Format {
    /// Milliseconds with about three significant digits: `0.0512`, `3.41`, `127`.
    static func milliseconds(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : magnitude >= 0.1 ? 3 : 4
        return fixed(value, decimals: decimals)
    }

    /// `median / p95 / p99 / max` in milliseconds.
    static func summary(_ durations: Durations) -> String {
        guard !durations.isEmpty else { return "-" }
        return [durations.median, durations.p95, durations.percentile(0.99), durations.max].map(milliseconds).joined(separator: " / ")
    }

    /// A ratio such as `24.1x`.
    static func ratio(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        return fixed(value, decimals: value >= 100 ? 0 : value >= 10 ? 1 : 2) + "x"
    }

    /// Bytes in KB, MB or GB (powers of 1,024).
    static func bytes(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let units = ["B", "KB", "MB", "GB"]
        var amount = value
        var unit = 0
        while abs(amount) >= 1_024, unit < units.count - 1 {
            amount /= 1_024
            unit += 1
        }
        return fixed(amount, decimals: unit == 0 ? 0 : 1) + " " + units[unit]
    }

    /// `value` rounded to `decimals` places, without Foundation's locale-dependent formatting.
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int64(scaled / scale)
        var text = (value < 0 && scaled > 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let fraction = String(Int64(scaled - Double(whole) * scale))
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }
}
