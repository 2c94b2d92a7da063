/// Pearson's correlation of two equally long series, or `nil` when either is constant.
func pearsonCorrelation(_ xs: [Double], _ ys: [Double]) -> Double? {
    var sumX = 0.0, sumY = 0.0
    for index in xs.indices {
        sumX += xs[index]
        sumY += ys[index]
    }
    let meanX = sumX / Double(xs.count), meanY = sumY / Double(ys.count)
    var covariance = 0.0, varianceX = 0.0, varianceY = 0.0
    for index in xs.indices {
        let (x, y) = (xs[index], ys[index])
        covariance += (x - meanX) * (y - meanY)
        varianceX += (x - meanX) * (x - meanX)
        varianceY += (y - meanY) * (y - meanY)
    }
    guard varianceX > 0, varianceY > 0 else { return nil }
    return covariance / (varianceX * varianceY).squareRoot()
}

/// The two-sided 99.9 % quantile of Student's t distribution with `degreesOfFreedom`: how many
/// estimated standard errors a mean of normal draws may lie from the truth, one time in a
/// thousand, when the deviation itself comes from those draws.
///
/// Cornish and Fisher's expansion in 1/ν around the normal quantile z = 3.2905, to the fourth
/// term (Abramowitz and Stegun 26.7.5): within 0.5 % of the exact quantile from 5 degrees of
/// freedom up (6.83 against 6.87 at 5; 4.586 against 4.587 at 10), which is where the clock
/// uses it.
func studentT999(degreesOfFreedom ν: Double) -> Double {
    let z = 3.290_526_731_491_926
    let (z2, z3) = (z * z, z * z * z)
    let (z5, z7, z9) = (z3 * z2, z3 * z2 * z2, z3 * z3 * z3)
    let g1 = (z3 + z) / 4
    let g2 = (5 * z5 + 16 * z3 + 3 * z) / 96
    let g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384
    let g4 = (79 * z9 + 776 * z7 + 1_482 * z5 - 1_920 * z3 - 945 * z) / 92_160
    return z + g1 / ν + g2 / (ν * ν) + g3 / (ν * ν * ν) + g4 / (ν * ν * ν * ν)
}

/// The weighted least-squares slope of `ys` against `xs`, each point weighted by the inverse
/// square of its standard `deviations`, and the slope's variance; `nil` when all `xs` are equal.
///
/// The variance is what the deviations imply, scaled up by Birge's ratio (the residuals'
/// chi-square over its degrees of freedom) when the points scatter more than their deviations
/// say and there are at least three of them.
func weightedLine(_ xs: [Double], _ ys: [Double], deviations: [Double]) -> (slope: Double, slopeVariance: Double)? {
    let weights = deviations.map { 1 / ($0 * $0) }
    let total = weights.reduce(0, +)
    let meanX = zip(weights, xs).map(*).reduce(0, +) / total
    let meanY = zip(weights, ys).map(*).reduce(0, +) / total
    var covariance = 0.0, varianceX = 0.0
    for ((x, y), weight) in zip(zip(xs, ys), weights) {
        covariance += weight * (x - meanX) * (y - meanY)
        varianceX += weight * (x - meanX) * (x - meanX)
    }
    guard varianceX > 0 else { return nil }
    let slope = covariance / varianceX
    var variance = 1 / varianceX
    if xs.count >= 3 {
        let chiSquare = zip(zip(xs, ys), weights).map { point, weight in
            let residual = point.1 - meanY - slope * (point.0 - meanX)
            return weight * residual * residual
        }.reduce(0, +)
        variance *= max(1, chiSquare / Double(xs.count - 2))
    }
    return (slope, variance)
}
