/// One worker's share of the density pass, in memory that grows with the points, never with
/// the pairs (a dense cluster of m points has about m²/2 pairs within epsilon).
///
/// For each pair it counts a neighbour for both points. A point whose count (in this worker)
/// has reached `minimumPoints - 1` is certainly a core point, so a pair of two such points only
/// matters for connectivity: it goes into this worker's union–find, and is kept (in `forest`)
/// only when it joins two of its components, at most n - 1 pairs. Any other pair is kept as it
/// is (in `pairs`): each point is the uncertain end of at most `minimumPoints - 1` of them, and
/// every pair that involves a point that is not core in the end is among them, because such a
/// point is never certain. With groups, each point's nearest neighbours are kept too.
struct DensitySink: PairSink, Sendable {
    private let certainty: UInt32
    /// Neighbours counted by this worker, per point.
    private(set) var degrees: [UInt32]
    /// This worker's union–find over certain core points (the root is always the lower point).
    private var parent: [Int32]
    /// Interleaved pairs of certain core points that joined two components here.
    private(set) var forest: [UInt32] = []
    /// Interleaved pairs with an end that was not certainly core when they were found.
    private(set) var pairs: [UInt32] = []
    /// Each point's nearest neighbours (with groups only).
    private(set) var nearest: NearestNeighbours?

    init(count: Int, minimumPoints: Int, keepsNearest: Bool) {
        certainty = UInt32(clamping: minimumPoints - 1)
        degrees = [UInt32](repeating: 0, count: count)
        parent = (0..<count).map { Int32(truncatingIfNeeded: $0) }
        nearest = keepsNearest ? NearestNeighbours(count: count) : nil
    }

    mutating func add(_ i: Int, _ j: Int, distance: Float) {
        let certain = degrees[i] >= certainty && degrees[j] >= certainty
        degrees[i] &+= 1
        degrees[j] &+= 1
        if certain {
            let rootI = find(i), rootJ = find(j)
            if rootI != rootJ {
                parent[max(rootI, rootJ)] = Int32(truncatingIfNeeded: min(rootI, rootJ))
                forest.append(UInt32(truncatingIfNeeded: i))
                forest.append(UInt32(truncatingIfNeeded: j))
            }
        } else {
            pairs.append(UInt32(truncatingIfNeeded: i))
            pairs.append(UInt32(truncatingIfNeeded: j))
        }
        if nearest != nil {
            nearest!.offer(j, to: i, distance: distance)
            nearest!.offer(i, to: j, distance: distance)
        }
    }

    private mutating func find(_ point: Int) -> Int {
        var point = point
        while Int(parent[point]) != point {
            parent[point] = parent[Int(parent[point])]
            point = Int(parent[point])
        }
        return point
    }
}

/// The `linksPerPoint` nearest neighbours of each point within epsilon, ordered by distance
/// then by index (so the set does not depend on the order pairs arrive in).
struct NearestNeighbours: Sendable {
    /// Neighbours kept per point.
    static let linksPerPoint = 16

    private var neighbours: [UInt32]
    private var distances: [Float]
    private var counts: [UInt8]
    /// Where the farthest of a full list is, so that most offers are turned down in one comparison.
    private var farthest: [UInt8]

    init(count: Int) {
        neighbours = [UInt32](repeating: 0, count: count * Self.linksPerPoint)
        distances = [Float](repeating: 0, count: count * Self.linksPerPoint)
        counts = [UInt8](repeating: 0, count: count)
        farthest = [UInt8](repeating: 0, count: count)
    }

    /// Keeps `neighbour` among the nearest of `point` if it is one of them.
    mutating func offer(_ neighbour: Int, to point: Int, distance: Float) {
        let start = point * Self.linksPerPoint, count = Int(counts[point])
        let candidate = UInt32(truncatingIfNeeded: neighbour)
        if count < Self.linksPerPoint {
            neighbours[start + count] = candidate
            distances[start + count] = distance
            counts[point] += 1
            if count + 1 == Self.linksPerPoint { findFarthest(of: point) }
            return
        }
        let worst = start + Int(farthest[point])
        guard (distance, candidate) < (distances[worst], neighbours[worst]) else { return }
        neighbours[worst] = candidate
        distances[worst] = distance
        findFarthest(of: point)
    }

    private mutating func findFarthest(of point: Int) {
        let start = point * Self.linksPerPoint
        var worst = start
        for slot in start + 1 ..< start + Self.linksPerPoint
        where (distances[slot], neighbours[slot]) > (distances[worst], neighbours[worst]) {
            worst = slot
        }
        farthest[point] = UInt8(worst - start)
    }

    /// The nearest neighbours of `point` with their distances, in no order.
    func of(_ point: Int) -> [(neighbour: Int, distance: Float)] {
        let start = point * Self.linksPerPoint
        return (start ..< start + Int(counts[point])).map { (Int(neighbours[$0]), distances[$0]) }
    }
}

/// From the workers' sinks to cluster keys (each cluster's lowest core point; -1 for noise).
enum DensityLabelling {
    /// Core points and cluster keys. Without groups, plain DBSCAN; with groups, the rule of
    /// ``DBSCAN/cluster(_:groups:)`` (the search already skipped pairs of the same group).
    static func keys(from sinks: [DensitySink], count: Int, minimumPoints: Int, groups: [Int]?) -> (keys: [Int], isCore: [Bool]) {
        var degrees = [UInt32](repeating: 0, count: count)
        for sink in sinks {
            for point in 0..<count { degrees[point] &+= sink.degrees[point] }
        }
        let isCore = degrees.map { Int($0) + 1 >= minimumPoints }

        // Components of the core points: every pair of core points is in some worker's forest
        // (or joined what the forest joins) or among its kept pairs.
        var components = UnionFind(count: count)
        for sink in sinks {
            forEachPair(sink.forest) { i, j in components.union(i, j) }
            forEachPair(sink.pairs) { i, j in
                if isCore[i] && isCore[j] { components.union(i, j) }
            }
        }
        var keys = [Int](repeating: -1, count: count)
        for point in 0..<count where isCore[point] { keys[point] = components.find(point) }

        if let groups { split(&keys, isCore: isCore, groups: groups, nearest: sinks.compactMap(\.nearest)) }

        // Border points: every pair with an end that is not core was kept.
        var borders: [(point: Int, key: Int)] = []
        for sink in sinks {
            forEachPair(sink.pairs) { i, j in
                if isCore[i] && !isCore[j] { borders.append((j, keys[i])) }
                if isCore[j] && !isCore[i] { borders.append((i, keys[j])) }
            }
        }
        guard let groups else {
            for (point, key) in borders where keys[point] < 0 || key < keys[point] { keys[point] = key }
            return (keys, isCore)
        }
        return (assignBorders(borders, to: keys, groups: groups), isCore)
    }

    /// Splits each cluster whose core points include two of one group: its core points are linked
    /// again by their nearest-neighbour links, shortest first (ties by the lower point, then the
    /// higher), two pieces joining only when they share no group.
    private static func split(_ keys: inout [Int], isCore: [Bool], groups: [Int], nearest: [NearestNeighbours]) {
        let count = keys.count
        var seen: [Int: Set<Int>] = [:]
        var conflicted = Set<Int>()
        for point in 0..<count where isCore[point] {
            if !seen[keys[point], default: []].insert(groups[point]).inserted { conflicted.insert(keys[point]) }
        }
        guard !conflicted.isEmpty else { return }

        struct Link: Comparable {
            var distance: Float
            var low: Int
            var high: Int
            static func < (a: Link, b: Link) -> Bool { (a.distance, a.low, a.high) < (b.distance, b.low, b.high) }
        }
        var links: [Link] = []
        var pieces = UnionFind(count: count)
        var members: [Int: Set<Int>] = [:]  // the groups of each piece, at its root
        for point in 0..<count where isCore[point] && conflicted.contains(keys[point]) {
            members[point] = [groups[point]]
            // The point's nearest neighbours over all workers (each worker saw some of its pairs).
            var candidates = nearest.flatMap { $0.of(point) }
            candidates.sort { ($0.distance, $0.neighbour) < ($1.distance, $1.neighbour) }
            for (neighbour, distance) in candidates.prefix(NearestNeighbours.linksPerPoint) where isCore[neighbour] {
                links.append(Link(distance: distance, low: min(point, neighbour), high: max(point, neighbour)))
            }
        }
        links.sort()
        var previous: Link?
        for link in links {
            defer { previous = link }
            if link == previous { continue }
            let rootA = pieces.find(link.low), rootB = pieces.find(link.high)
            guard rootA != rootB, let groupsA = members[rootA], let groupsB = members[rootB], groupsA.isDisjoint(with: groupsB) else { continue }
            let root = pieces.union(rootA, rootB)
            members[root] = groupsA.count >= groupsB.count ? groupsA.union(groupsB) : groupsB.union(groupsA)
            members[rootA == root ? rootB : rootA] = nil
        }
        for point in 0..<count where isCore[point] && conflicted.contains(keys[point]) { keys[point] = pieces.find(point) }
    }

    /// Border points in point order, each to the first cluster (lowest key) that reaches it and
    /// holds no point of its group; the cluster then holds its group too.
    private static func assignBorders(_ borders: [(point: Int, key: Int)], to keys: [Int], groups: [Int]) -> [Int] {
        var keys = keys
        var clusterGroups: [Int: Set<Int>] = [:]
        for (point, key) in keys.enumerated() where key >= 0 { clusterGroups[key, default: []].insert(groups[point]) }
        for candidate in borders.sorted(by: { ($0.point, $0.key) < ($1.point, $1.key) }) {
            guard keys[candidate.point] < 0, clusterGroups[candidate.key]?.contains(groups[candidate.point]) == false else { continue }
            keys[candidate.point] = candidate.key
            clusterGroups[candidate.key]?.insert(groups[candidate.point])
        }
        return keys
    }

    private static func forEachPair(_ pairs: [UInt32], _ body: (Int, Int) -> Void) {
        pairs.withUnsafeBufferPointer { pairs in
            var index = 0
            while index < pairs.count {
                body(Int(pairs[index]), Int(pairs[index + 1]))
                index += 2
            }
        }
    }
}

/// Union–find whose root is always the lowest point of its set, so the roots do not depend on
/// the order of the unions.
struct UnionFind {
    private var parent: [Int]

    init(count: Int) {
        parent = Array(0..<count)
    }

    /// The lowest point of the set of `point`.
    mutating func find(_ point: Int) -> Int {
        var point = point
        while parent[point] != point {
            parent[point] = parent[parent[point]]
            point = parent[point]
        }
        return point
    }

    /// Joins the sets of `a` and `b`; returns the root of the union.
    @discardableResult
    mutating func union(_ a: Int, _ b: Int) -> Int {
        let rootA = find(a), rootB = find(b)
        let root = min(rootA, rootB)
        parent[max(rootA, rootB)] = root
        return root
    }
}
