import Foundation

/// Calendar arithmetic for ``FeedDate``: the proleptic Gregorian calendar in UTC.
extension FeedDate {
    /// The UTC calendar day of a date, as `YYYY-MM-DD`.
    ///
    /// - Parameter date: A date.
    /// - Returns: Its day in UTC, e.g. `"2026-11-21"`.
    static func day(of date: Date) -> String {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let (year, month, day) = civil(fromDays: days)
        /// `value` in decimal, zero-padded on the left to `width` digits.
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    /// The date of a calendar day and time at an offset from UTC, after checking that they
    /// exist.
    ///
    /// - Parameters:
    ///   - year: The year.
    ///   - month: The month, 1...12.
    ///   - day: The day of the month, from 1.
    ///   - hour: The hour, 0...23.
    ///   - minute: The minute, 0...59.
    ///   - second: The second, 0...60.
    ///   - offsetSeconds: The zone's offset east of UTC, in seconds.
    /// - Returns: The date, or `nil` when a component is out of range.
    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int,
                             offsetSeconds: Int) -> Date? {
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The number of days in a month of the Gregorian calendar.
    ///
    /// - Parameters:
    ///   - month: The month, 1...12.
    ///   - year: The year.
    /// - Returns: 28 to 31.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a Gregorian date (Howard Hinnant's `days_from_civil`).
    ///
    /// - Parameters:
    ///   - year: The year.
    ///   - month: The month, 1...12.
    ///   - day: The day of the month.
    /// - Returns: The number of days, negative before 1970.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian date that is a number of days from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    ///
    /// - Parameter days: Days from 1970-01-01, negative before.
    /// - Returns: The year, the month 1...12 and the day of the month.
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
