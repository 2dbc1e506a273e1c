import MappingLock

/// How a watched fetch's results changed with one commit (what Core Data's fetched-results
/// controller and Realm's collection notifications report): the new results, and positions —
/// `removed` in the old results, `inserted` and `updated` in the new ones, `moved` from old to new
/// for objects that stayed but changed places relative to the others.
public struct FetchChange: Sendable, Equatable {
    public let results: [ObjectID]
    public let removed: [Int]
    public let inserted: [Int]
    public let moved: [(from: Int, to: Int)]
    public let updated: [Int]

    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty }

    public static func == (a: FetchChange, b: FetchChange) -> Bool {
        a.results == b.results && a.removed == b.removed && a.inserted == b.inserted && a.updated == b.updated
            && a.moved.map(\.from) == b.moved.map(\.from) && a.moved.map(\.to) == b.moved.map(\.to)
    }

    /// The difference between two result lists, `changedObjects` being the objects a commit
    /// updated. Objects kept in the same relative order are not moves: the moves are the fewest
    /// that explain the new order (those off a longest increasing run of old positions).
    package init(old: [ObjectID], new: [ObjectID], changedObjects: Set<ObjectID>) {
        results = new
        var oldPosition: [ObjectID: Int] = [:]
        for (position, object) in old.enumerated() where oldPosition[object] == nil { oldPosition[object] = position }
        let kept = Set(new)
        removed = old.indices.filter { !kept.contains(old[$0]) }
        inserted = new.indices.filter { oldPosition[new[$0]] == nil }
        updated = new.indices.filter { oldPosition[new[$0]] != nil && changedObjects.contains(new[$0]) }
        let stayed = new.indices.compactMap { position in oldPosition[new[position]].map { (from: $0, to: position) } }
        let steady = Set(Self.longestIncreasingRun(stayed.map(\.from)))
        moved = stayed.filter { !steady.contains($0.from) }
    }

    /// The values of one longest strictly increasing subsequence (patience sorting, n log n).
    private static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []          // index into values of the smallest tail of each run length
        var previous = Array(repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = low + (high - low) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(values[index])
            index = previous[index]
        }
        return run.reversed()
    }
}
