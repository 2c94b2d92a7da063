/// Reads the HTTP-date of a `Date` header (RFC 9110 §5.6.7) as whole seconds since the epoch.
///
/// Servers send the IMF-fixdate form, `Sun, 06 Nov 1994 08:49:37 GMT`; recipients must also
/// accept the obsolete RFC 850 form, `Sunday, 06-Nov-94 08:49:37 GMT`, and C's asctime form,
/// `Sun Nov  6 08:49:37 1994`. All three are GMT. Parsed by hand rather than with a date
/// formatter: no locale, no time zone database, no allocation of formatter state.
enum HTTPDate {
    static func secondsSinceEpoch(_ text: String) -> Int64? {
        let fields = text.split(whereSeparator: { " ,-:".contains($0) })
        guard let monthIndex = fields.firstIndex(where: { month(named: $0) != nil }),
              let month = month(named: fields[monthIndex])
        else { return nil }
        let numbers: [Int64]
        switch (monthIndex, fields.count) {
        case (2, 8): // IMF-fixdate or RFC 850: weekday day month year hour minute second GMT
            numbers = [fields[3], fields[1], fields[4], fields[5], fields[6]].compactMap { Int64($0) }
        case (1, 7): // asctime: weekday month day hour minute second year
            numbers = [fields[6], fields[2], fields[3], fields[4], fields[5]].compactMap { Int64($0) }
        default:
            return nil
        }
        guard numbers.count == 5 else { return nil }
        // RFC 850 has two-digit years. RFC 9110's rule for them needs today's date, which is
        // the device clock this module never reads; 1970–2069 agrees with it until 2020.
        let year = numbers[0] < 100 ? numbers[0] + (numbers[0] < 70 ? 2000 : 1900) : numbers[0]
        let (day, hour, minute, second) = (numbers[1], numbers[2], numbers[3], numbers[4])
        guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func month(named name: Substring) -> Int64? {
        monthNames.firstIndex(of: name.lowercased()).map { Int64($0 + 1) }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar. Counting years from
    /// March puts the leap day last, so each 400-year era has the same shape.
    private static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
