/// Pearson's correlation of two equally long series, or `nil` when either is constant.
func pearsonCorrelation(_ xs: [Double], _ ys: [Double]) -> Double? {
    let meanX = xs.reduce(0, +) / Double(xs.count)
    let meanY = ys.reduce(0, +) / Double(ys.count)
    var covariance = 0.0, varianceX = 0.0, varianceY = 0.0
    for (x, y) in zip(xs, ys) {
        covariance += (x - meanX) * (y - meanY)
        varianceX += (x - meanX) * (x - meanX)
        varianceY += (y - meanY) * (y - meanY)
    }
    guard varianceX > 0, varianceY > 0 else { return nil }
    return covariance / (varianceX * varianceY).squareRoot()
}

/// The least-squares slope of `ys` against `xs`, or `nil` when all `xs` are equal.
func leastSquaresSlope(_ xs: [Double], _ ys: [Double]) -> Double? {
    let meanX = xs.reduce(0, +) / Double(xs.count)
    let meanY = ys.reduce(0, +) / Double(ys.count)
    var covariance = 0.0, varianceX = 0.0
    for (x, y) in zip(xs, ys) {
        covariance += (x - meanX) * (y - meanY)
        varianceX += (x - meanX) * (x - meanX)
    }
    guard varianceX > 0 else { return nil }
    return covariance / varianceX
}
