extension Int64 {
    /// `value` converted, clamped to the representable range instead of trapping (NaN is 0).
    init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 0x1p63 {
            self = .max
        } else if value < -0x1p63 {
            self = .min
        } else {
            self = Int64(value)
        }
    }
}
