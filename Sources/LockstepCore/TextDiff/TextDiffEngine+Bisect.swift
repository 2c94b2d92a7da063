extension TextDiffEngine {
    /// Finds the middle snake of a shortest edit script and diffs the two halves on either
    /// side of it: the divide-and-conquer form of Myers' algorithm (Eugene W. Myers, "An
    /// O(ND) Difference Algorithm and Its Variations", 1986, section 4b), which needs only
    /// linear space.
    ///
    /// Paths are searched forwards from the top-left corner of the edit graph and backwards
    /// from the bottom-right at the same time, one more difference `d` per round, until a
    /// forward path and a backward path overlap on the same diagonal. `forward[k]` holds the
    /// furthest x reached on diagonal k (x − y = k); `backward[k]` the same counted from the end.
    ///
    /// Past the deadline, gives up and replaces all of `old` with all of `new`.
    func bisect(_ old: [UInt32], _ new: [UInt32]) -> [TextEdit] {
        let oldCount = old.count
        let newCount = new.count
        let maxDifferences = (oldCount + newCount + 1) / 2
        // Diagonals −radius … radius + 1 are stored, at index k + radius. Each round d reads
        // diagonals up to ±(d + 1), so the arrays grow as d does: sizing them for the worst
        // case would mean megabytes of memory to clear for a few changes in a large text.
        var radius = min(maxDifferences, 1024)
        var forward = [Int](repeating: -1, count: 2 * radius + 2)
        var backward = forward
        forward[radius + 1] = 0
        backward[radius + 1] = 0

        // The diagonal of the bottom-right corner, as seen from the top-left.
        let delta = oldCount - newCount
        // Paths can only meet after a forward step when delta is odd, after a backward one when even.
        let meetsOnForwardStep = delta % 2 != 0
        // Diagonals that ran off the edge of the graph are trimmed from the next rounds.
        var forwardTrimStart = 0
        var forwardTrimEnd = 0
        var backwardTrimStart = 0
        var backwardTrimEnd = 0

        for d in 0 ..< maxDifferences {
            if isPastDeadline { break }
            if d + 1 > radius {
                let wider = min(2 * radius, maxDifferences)
                forward = Self.widen(forward, from: radius, to: wider)
                backward = Self.widen(backward, from: radius, to: wider)
                radius = wider
            }
            let offset = radius
            let diagonals = forward.count

            for k in stride(from: -d + forwardTrimStart, through: d - forwardTrimEnd, by: 2) {
                let index = offset + k
                // Step down from diagonal k + 1 or right from k − 1, whichever got further.
                var x = k == -d || (k != d && forward[index - 1] < forward[index + 1])
                    ? forward[index + 1]
                    : forward[index - 1] + 1
                var y = x - k
                while x < oldCount && y < newCount && old[x] == new[y] {
                    x += 1
                    y += 1
                }
                forward[index] = x
                if x > oldCount {
                    forwardTrimEnd += 2
                } else if y > newCount {
                    forwardTrimStart += 2
                } else if meetsOnForwardStep {
                    let backwardIndex = offset + delta - k
                    if backwardIndex >= 0 && backwardIndex < diagonals && backward[backwardIndex] != -1
                        && x >= oldCount - backward[backwardIndex] {
                        return split(old, new, atOld: x, new: y)
                    }
                }
            }

            for k in stride(from: -d + backwardTrimStart, through: d - backwardTrimEnd, by: 2) {
                let index = offset + k
                var x = k == -d || (k != d && backward[index - 1] < backward[index + 1])
                    ? backward[index + 1]
                    : backward[index - 1] + 1
                var y = x - k
                while x < oldCount && y < newCount && old[oldCount - x - 1] == new[newCount - y - 1] {
                    x += 1
                    y += 1
                }
                backward[index] = x
                if x > oldCount {
                    backwardTrimEnd += 2
                } else if y > newCount {
                    backwardTrimStart += 2
                } else if !meetsOnForwardStep {
                    let forwardIndex = offset + delta - k
                    if forwardIndex >= 0 && forwardIndex < diagonals && forward[forwardIndex] != -1 {
                        let forwardX = forward[forwardIndex]
                        let forwardY = forwardX - (forwardIndex - offset)
                        if forwardX >= oldCount - x {
                            return split(old, new, atOld: forwardX, new: forwardY)
                        }
                    }
                }
            }
        }
        // Only reached past the deadline: the paths always meet within maxDifferences rounds.
        return [TextEdit(.delete, scalars: old), TextEdit(.insert, scalars: new)]
    }

    /// The diagonal array `values`, which stores ±`radius`, re-centred to store ±`wider`.
    private static func widen(_ values: [Int], from radius: Int, to wider: Int) -> [Int] {
        var widened = [Int](repeating: -1, count: 2 * wider + 2)
        widened.replaceSubrange(wider - radius ..< wider - radius + values.count, with: values)
        return widened
    }

    /// Diffs the texts before and after a point on a shortest path separately.
    private func split(_ old: [UInt32], _ new: [UInt32], atOld x: Int, new y: Int) -> [TextEdit] {
        edits(from: Array(old[..<x]), to: Array(new[..<y]), lineMode: false)
            + edits(from: Array(old[x...]), to: Array(new[y...]), lineMode: false)
    }
}
