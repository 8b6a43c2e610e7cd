import Foundation

/// The two date formats of feeds, parsed by hand, and the UTC day of a date (in
/// `FeedDate+Calendar.swift`).
///
/// Hand parsing keeps the rules in view and needs no formatter, locale or calendar: the
/// arithmetic is the proleptic Gregorian calendar in UTC, as both RFCs define dates.
///
/// ```swift
/// FeedDate.rfc822("Sat, 21 Nov 2026 09:30:00 +0000")      // 2026-11-21 09:30:00 UTC
/// FeedDate.rfc3339("2026-11-21T04:30:00.250-05:00")      // 2026-11-21 09:30:00.25 UTC
/// FeedDate.day(of: date)                                  // "2026-11-21"
/// ```
enum FeedDate {
    /// Month abbreviations, in calendar order, as RFC 822 spells them (lowercased).
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun",
                                 "jul", "aug", "sep", "oct", "nov", "dec"]
    /// Day-name abbreviations RFC 822 allows before the date (lowercased).
    private static let weekdays: Set<String> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    /// RFC 822's named zones, as hours from UTC (keys lowercased). Military one-letter zones
    /// other than `Z` are left out: RFC 1123 notes that their signs were defined backwards.
    private static let namedZones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0,
        "est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7,
    ]

    /// Parses an RFC 822 date as RSS writes it: `[Www, ]D Mon YYYY HH:MM[:SS] zone`.
    ///
    /// The day name is optional and not checked against the date. The day has one or two
    /// digits, the year four (or two, read as 19xx from 50 and 20xx below), the zone is
    /// `+hhmm`/`-hhmm` or a name such as `GMT` or `EST`. Names are case-insensitive.
    ///
    /// - Parameter text: The date's text, trimmed.
    /// - Returns: The date, or `nil` when the text is not such a date or names a day that
    ///   does not exist (`31 Nov`).
    static func rfc822(_ text: String) -> Date? {
        var rest = Substring(text)
        if let comma = rest.firstIndex(of: ",") {
            let dayName = rest[..<comma].trimmingCharacters(in: .whitespaces).lowercased()
            guard weekdays.contains(dayName) else { return nil }
            rest = rest[rest.index(after: comma)...]
        }
        let parts = rest.split(whereSeparator: \.isWhitespace)
        guard parts.count == 5,
              let day = number(parts[0], digits: 1...2),
              let monthIndex = months.firstIndex(of: parts[1].lowercased()),
              parts[2].count != 3, var year = number(parts[2], digits: 2...4),
              let zone = zoneOffset(parts[4])
        else { return nil }
        if parts[2].count == 2 { year += year >= 50 ? 1900 : 2000 }
        let time = parts[3].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 2 || time.count == 3,
              let hour = number(time[0], digits: 2...2),
              let minute = number(time[1], digits: 2...2)
        else { return nil }
        var second = 0
        if time.count == 3 {
            guard let value = number(time[2], digits: 2...2) else { return nil }
            second = value
        }
        return date(year: year, month: monthIndex + 1, day: day,
                    hour: hour, minute: minute, second: second, offsetSeconds: zone)
    }

    /// Parses an RFC 3339 date as Atom writes it: `YYYY-MM-DDTHH:MM:SS[.fraction]zone`,
    /// where the zone is `Z` or `±HH:MM`.
    ///
    /// The separator may be `T`, `t` or a space; `Z` may be lowercase; the fraction has any
    /// number of digits. A leap second (`:60`) is read as the next minute's first second.
    ///
    /// - Parameter text: The date's text, trimmed.
    /// - Returns: The date, or `nil` when the text is not such a date or names a day or time
    ///   that does not exist.
    static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        /// The value of `count` ASCII digits at `start`, or `nil` if they are not all digits.
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        /// Whether the byte at `index` exists and is one of the ASCII `choices`.
        func byte(_ index: Int, isOneOf choices: String) -> Bool {
            index < bytes.count && choices.utf8.contains(bytes[index])
        }
        guard let year = digits(0, 4), byte(4, isOneOf: "-"), let month = digits(5, 2), byte(7, isOneOf: "-"),
              let day = digits(8, 2), byte(10, isOneOf: "Tt "),
              let hour = digits(11, 2), byte(13, isOneOf: ":"), let minute = digits(14, 2),
              byte(16, isOneOf: ":"), let second = digits(17, 2)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if byte(index, isOneOf: ".") {
            let start = index + 1
            index = start
            while digits(index, 1) != nil { index += 1 }
            guard index > start, let value = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self))
            else { return nil }
            fraction = value
        }
        var offset = 0
        if byte(index, isOneOf: "Zz") {
            index += 1
        } else if byte(index, isOneOf: "+-"), let hours = digits(index + 1, 2), byte(index + 3, isOneOf: ":"),
                  let minutes = digits(index + 4, 2), hours < 24, minutes < 60 {
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count,
              let whole = date(year: year, month: month, day: day, hour: hour, minute: minute,
                               second: second, offsetSeconds: offset)
        else { return nil }
        return whole.addingTimeInterval(fraction)
    }

    /// An RFC 822 zone as seconds east of UTC: `+hhmm`, `-hhmm`, or a known name.
    ///
    /// - Parameter zone: The zone's text.
    /// - Returns: The offset in seconds, or `nil` for an unknown zone.
    private static func zoneOffset(_ zone: Substring) -> Int? {
        if let hours = namedZones[zone.lowercased()] { return hours * 3600 }
        guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
              let value = number(zone.dropFirst(), digits: 4...4), value / 100 < 24, value % 100 < 60
        else { return nil }
        return (value / 100 * 3600 + value % 100 * 60) * (sign == "-" ? -1 : 1)
    }

    /// The value of a run of ASCII digits of an allowed length.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - digits: The allowed number of digits.
    /// - Returns: The value, or `nil` when the text is not all digits or has the wrong length.
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }
}
