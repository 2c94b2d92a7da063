/// Reads the dates of configuration files without a calendar library, so that every platform
/// turns them into the same instant.
public enum CalendarTime {
    /// Milliseconds since the Unix epoch for `2025-10-31` (midnight UTC), `2025-10-31T18:00Z`,
    /// `2025-10-31T18:00:00Z` or `2025-10-31T18:00:00+02:00`; `nil` for anything else.
    public static func milliseconds(parsing text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var position = 0

        func number(digits: Int) -> Int64? {
            guard position + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<position + digits] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            position += digits
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard position < bytes.count, bytes[position] == character.asciiValue else { return false }
            position += 1
            return true
        }

        guard let year = number(digits: 4), expect("-"), let month = number(digits: 2), expect("-"), let day = number(digits: 2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400
        guard position < bytes.count else { return seconds * 1000 }

        guard expect("T") || expect(" "), let hour = number(digits: 2), expect(":"), let minute = number(digits: 2),
            hour < 24, minute < 60
        else { return nil }
        seconds += hour * 3600 + minute * 60
        if expect(":") {
            guard let second = number(digits: 2), second < 60 else { return nil }
            seconds += second
        }
        if expect("Z") || expect("z") {
            return position == bytes.count ? seconds * 1000 : nil
        }
        guard position < bytes.count else { return nil }
        let sign: Int64 = bytes[position] == UInt8(ascii: "-") ? -1 : 1
        guard expect("+") || expect("-"), let offsetHours = number(digits: 2), expect(":"), let offsetMinutes = number(digits: 2),
            offsetHours < 24, offsetMinutes < 60, position == bytes.count
        else { return nil }
        seconds -= sign * (offsetHours * 3600 + offsetMinutes * 60)
        return seconds * 1000
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
