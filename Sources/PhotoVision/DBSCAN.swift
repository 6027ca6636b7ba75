internal import Foundation

/// Density-based clustering (DBSCAN: Ester, Kriegel, Sander and Xu, 1996) of embedding
/// vectors, with scikit-learn's semantics and labels, on every core.
///
/// A point is a *core* point when at least ``minimumPoints`` points (itself included, as
/// scikit-learn's `min_samples`) lie within ``epsilon`` of it. Core points within epsilon of
/// each other are in the same cluster; a point that is not core but lies within epsilon of a
/// core point is a *border* point of the first cluster (in the order below) that has such a
/// core point, which is the cluster scikit-learn gives it; every other point is noise (-1).
///
/// Labels are numbered in order of first appearance: the lowest-numbered point that is not
/// noise has label 0, the next point with another label has label 1, and so on. Clusters
/// are ordered, for the border rule, by their lowest core point (scikit-learn's order). The
/// result depends only on the input and the settings, never on the number of threads.
///
/// See Docs/Vision.md ("Clustering") for the algorithm and its speed.
public struct DBSCAN: Sendable, Hashable {
    /// How the distance between two vectors is measured.
    public enum Metric: String, Sendable, Hashable, CaseIterable {
        /// `1 - cos(angle)`, from 0 (same direction) to 2 (opposite): rows are divided by their
        /// length once, and the distance is `1 - dot`. A zero row is refused.
        case cosine
        /// The straight-line distance.
        case euclidean
    }

    /// The largest distance at which two points are neighbours (inclusive, as scikit-learn's `eps`).
    public var epsilon: Double
    /// The neighbours, the point itself included, that make a point a core point (scikit-learn's `min_samples`).
    public var minimumPoints: Int
    /// How distances are measured.
    public var metric: Metric
    /// The most threads the distance computation uses (at least 1). The result does not depend on it.
    public var maximumThreads: Int
    /// The dot-product kernel: the fastest this CPU runs, unless a test picks another.
    var kernel: DotKernel = .best

    /// The processors this process may use: the default ``maximumThreads``.
    public static var activeProcessorCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// A clustering with these settings.
    public init(
        epsilon: Double, minimumPoints: Int, metric: Metric = .cosine,
        maximumThreads: Int = DBSCAN.activeProcessorCount
    ) {
        self.epsilon = epsilon
        self.minimumPoints = minimumPoints
        self.metric = metric
        self.maximumThreads = maximumThreads
    }

    /// Clusters `vectors`.
    ///
    /// `groups`, when given, holds one group for each point (the photo a face is in, say): two
    /// points of the same group are never in the same cluster. The rule, exactly:
    ///
    /// 1. Two points of the same group are not neighbours: they do not count towards each
    ///    other's `minimumPoints`, and never connect.
    /// 2. Clusters are grown from the pairs of core neighbours in order of distance (shortest
    ///    first; ties by the lower point, then the higher), joining two clusters only when
    ///    they have no group in common: a cluster that plain DBSCAN would form with two points
    ///    of one group is split where the links are longest.
    /// 3. Border points, in point order, join the first cluster (by lowest core point) that
    ///    has one of their core neighbours and no point of their group; with none, they are noise.
    ///
    /// With every point in a group of its own, the result is plain DBSCAN's.
    public func cluster(_ vectors: EmbeddingMatrix, groups: [Int]? = nil) throws(VisionError) -> DBSCANResult {
        try validateSettings()
        if let groups, groups.count != vectors.count {
            throw .invalidArgument("there are \(groups.count) groups for \(vectors.count) vectors; give one group per vector")
        }
        guard vectors.count > 0 else { return DBSCANResult(labels: [], clusterCount: 0, isCore: []) }
        guard vectors.count < Int(UInt32.max) else {
            throw .invalidArgument("\(vectors.count) vectors are too many to cluster at once (at most \(UInt32.max - 1))")
        }
        let rows = try PaddedRows(vectors, metric: metric, centre: metric == .euclidean ? PaddedRows.columnMeans(of: vectors) : nil)
        let pairs = NeighbourPairs.find(
            in: rows, epsilon: epsilon, groups: groups, recordsDistances: groups != nil, kernel: kernel, threads: maximumThreads)
        let isCore = pairs.degrees.map { Int($0) + 1 >= minimumPoints }
        let keys: [Int] = if let groups {
            Self.constrainedClusters(pairs: pairs, isCore: isCore, groups: groups)
        } else {
            Self.clusters(pairs: pairs, isCore: isCore)
        }
        return DBSCANResult(keys: keys, isCore: isCore)
    }

    /// Adds `newVectors` to an existing clustering without clustering everything again.
    ///
    /// Each new point, in order, joins the existing cluster of the nearest existing *core*
    /// point within ``epsilon`` of it (ties: the lower cluster), skipping clusters that already
    /// hold a point of its group when groups are given (`existingGroups` for the existing points,
    /// `groups` for the new ones; a new point that joins a cluster brings its group to it). New
    /// points that join no existing cluster are clustered among themselves with ``cluster(_:groups:)``
    /// and numbered after the existing clusters, in order of first appearance.
    ///
    /// The result covers the new points only: a label below `clustering.clusterCount` is an
    /// existing cluster, the others are new; its ``DBSCANResult/clusterCount`` counts both. A new
    /// point that joined an existing cluster is not a core point (existing points are not
    /// recounted; clustering everything again may promote it, and may merge clusters).
    public func assign(
        _ newVectors: EmbeddingMatrix, groups: [Int]? = nil,
        to existingVectors: EmbeddingMatrix, clustering existing: DBSCANResult, existingGroups: [Int]? = nil
    ) throws(VisionError) -> DBSCANResult {
        try validateSettings()
        guard existing.labels.count == existingVectors.count, existing.isCore.count == existingVectors.count else {
            throw .invalidArgument("the clustering has \(existing.labels.count) labels for \(existingVectors.count) existing vectors")
        }
        if let groups, groups.count != newVectors.count {
            throw .invalidArgument("there are \(groups.count) groups for \(newVectors.count) new vectors; give one group per vector")
        }
        if let existingGroups, existingGroups.count != existingVectors.count {
            throw .invalidArgument("there are \(existingGroups.count) groups for \(existingVectors.count) existing vectors")
        }
        guard newVectors.count > 0 else { return DBSCANResult(labels: [], clusterCount: existing.clusterCount, isCore: []) }
        let cores = (0..<existingVectors.count).filter { existing.isCore[$0] && existing.labels[$0] >= 0 }
        if !cores.isEmpty && existingVectors.dimension != newVectors.dimension {
            throw .invalidEmbedding("the new vectors have \(newVectors.dimension) values where the existing ones have \(existingVectors.dimension)")
        }

        // The nearest core point of each existing cluster within epsilon, per new point.
        var candidates = [[(distance: Float, cluster: Int)]](repeating: [], count: newVectors.count)
        if !cores.isEmpty {
            let centre = metric == .euclidean ? PaddedRows.columnMeans(of: newVectors) : nil
            let newRows = try PaddedRows(newVectors, metric: metric, centre: centre)
            let coreRows = try PaddedRows(existingVectors.rows(cores), metric: metric, centre: centre)
            let pairs = NeighbourPairs.find(
                between: newRows, and: coreRows, epsilon: epsilon, recordsDistances: true, kernel: kernel, threads: maximumThreads)
            pairs.forEachWithDistance { point, core, distance in
                let cluster = existing.labels[cores[core]]
                if let index = candidates[point].firstIndex(where: { $0.cluster == cluster }) {
                    candidates[point][index].distance = min(candidates[point][index].distance, distance)
                } else {
                    candidates[point].append((distance, cluster))
                }
            }
        }

        // Groups already in each existing cluster.
        var clusterGroups: [Set<Int>] = []
        if groups != nil {
            clusterGroups = [Set<Int>](repeating: [], count: existing.clusterCount)
            if let existingGroups {
                for (point, label) in existing.labels.enumerated() where label >= 0 { clusterGroups[label].insert(existingGroups[point]) }
            }
        }
        var labels = [Int](repeating: DBSCANResult.noise, count: newVectors.count)
        var leftovers: [Int] = []
        for point in 0..<newVectors.count {
            let ordered = candidates[point].sorted { ($0.distance, $0.cluster) < ($1.distance, $1.cluster) }
            let choice = ordered.first { candidate in
                guard let groups else { return true }
                return !clusterGroups[candidate.cluster].contains(groups[point])
            }
            if let choice {
                labels[point] = choice.cluster
                if let groups { clusterGroups[choice.cluster].insert(groups[point]) }
            } else {
                leftovers.append(point)
            }
        }

        var isCore = [Bool](repeating: false, count: newVectors.count)
        var clusterCount = existing.clusterCount
        if !leftovers.isEmpty {
            let own = try cluster(newVectors.rows(leftovers), groups: groups.map { groups in leftovers.map { groups[$0] } })
            for (index, point) in leftovers.enumerated() {
                isCore[point] = own.isCore[index]
                if own.labels[index] >= 0 { labels[point] = existing.clusterCount + own.labels[index] }
            }
            clusterCount += own.clusterCount
        }
        return DBSCANResult(labels: labels, clusterCount: clusterCount, isCore: isCore)
    }

    private func validateSettings() throws(VisionError) {
        guard epsilon.isFinite && epsilon > 0 else {
            throw .invalidArgument("epsilon must be a positive distance, not \(epsilon)")
        }
        guard minimumPoints >= 1 else {
            throw .invalidArgument("minimumPoints must be at least 1 (the point itself), not \(minimumPoints)")
        }
        guard maximumThreads >= 1 else {
            throw .invalidArgument("maximumThreads must be at least 1, not \(maximumThreads)")
        }
    }

    /// Plain DBSCAN: each point's cluster key (its cluster's lowest core point), or -1 for noise.
    ///
    /// The clusters are the connected components of the core points over their neighbour
    /// pairs (union–find, the root always the lower point, so the root is the lowest core
    /// point whatever the order of the pairs); a border point takes the lowest key among its
    /// core neighbours, which is the first cluster that reaches it in scikit-learn's expansion.
    static func clusters(pairs: NeighbourPairs, isCore: [Bool]) -> [Int] {
        let count = isCore.count
        var parent = Array(0..<count)
        var keys = [Int](repeating: -1, count: count)
        parent.withUnsafeMutableBufferPointer { parent in
            isCore.withUnsafeBufferPointer { isCore in
                pairs.forEach { i, j in
                    guard isCore[i] && isCore[j] else { return }
                    let rootI = find(i, in: parent), rootJ = find(j, in: parent)
                    if rootI < rootJ { parent[rootJ] = rootI } else if rootJ < rootI { parent[rootI] = rootJ }
                }
                keys.withUnsafeMutableBufferPointer { keys in
                    for point in 0..<count where isCore[point] { keys[point] = find(point, in: parent) }
                    pairs.forEach { i, j in
                        if isCore[i] && !isCore[j] {
                            if keys[j] < 0 || keys[i] < keys[j] { keys[j] = keys[i] }
                        } else if isCore[j] && !isCore[i] {
                            if keys[i] < 0 || keys[j] < keys[i] { keys[i] = keys[j] }
                        }
                    }
                }
            }
        }
        return keys
    }

    /// DBSCAN under the group rule of ``cluster(_:groups:)``: cluster keys as ``clusters(pairs:isCore:)``.
    static func constrainedClusters(pairs: NeighbourPairs, isCore: [Bool], groups: [Int]) -> [Int] {
        let count = isCore.count
        struct Link: Comparable {
            var distance: Float
            var low: UInt32
            var high: UInt32
            static func < (a: Link, b: Link) -> Bool { (a.distance, a.low, a.high) < (b.distance, b.low, b.high) }
        }
        var links: [Link] = []
        var borders: [(point: Int, core: Int)] = []
        pairs.forEachWithDistance { i, j, distance in
            switch (isCore[i], isCore[j]) {
            case (true, true): links.append(Link(distance: distance, low: UInt32(min(i, j)), high: UInt32(max(i, j))))
            case (true, false): borders.append((j, i))
            case (false, true): borders.append((i, j))
            case (false, false): break
            }
        }
        links.sort()

        var parent = Array(0..<count)
        // The groups of each cluster, kept at its root; empty means the root's own group alone.
        var members = [Set<Int>](repeating: [], count: count)
        func groupSet(_ root: Int) -> Set<Int> { members[root].isEmpty ? [groups[root]] : members[root] }
        parent.withUnsafeMutableBufferPointer { parent in
            for link in links {
                let rootA = find(Int(link.low), in: parent), rootB = find(Int(link.high), in: parent)
                guard rootA != rootB else { continue }
                var setA = groupSet(rootA), setB = groupSet(rootB)
                guard setA.isDisjoint(with: setB) else { continue }
                let (root, other) = rootA < rootB ? (rootA, rootB) : (rootB, rootA)
                parent[other] = root
                members[rootA] = []
                members[rootB] = []
                if setA.count >= setB.count {
                    setA.formUnion(setB)
                    members[root] = setA
                } else {
                    setB.formUnion(setA)
                    members[root] = setB
                }
            }
        }

        var keys = [Int](repeating: -1, count: count)
        parent.withUnsafeMutableBufferPointer { parent in
            for point in 0..<count where isCore[point] { keys[point] = find(point, in: parent) }
        }
        // Border points in order, each to its first cluster without its group.
        let candidates = borders.map { (point: $0.point, key: keys[$0.core]) }.sorted { ($0.point, $0.key) < ($1.point, $1.key) }
        var index = 0
        while index < candidates.count {
            let point = candidates[index].point
            while index < candidates.count && candidates[index].point == point {
                let key = candidates[index].key
                index += 1
                guard keys[point] < 0, !groupSet(key).contains(groups[point]) else { continue }
                keys[point] = key
                var set = groupSet(key)
                set.insert(groups[point])
                members[key] = set
            }
        }
        return keys
    }

    /// The root of `point`, halving the path on the way.
    @inline(__always)
    private static func find(_ point: Int, in parent: UnsafeMutableBufferPointer<Int>) -> Int {
        var point = point
        while parent[point] != point {
            parent[point] = parent[parent[point]]
            point = parent[point]
        }
        return point
    }
}

/// The outcome of a ``DBSCAN`` clustering.
public struct DBSCANResult: Sendable, Hashable {
    /// The label of noise points.
    public static let noise = -1

    /// Each point's cluster (`0..<clusterCount`, numbered in order of first appearance), or ``noise``.
    public var labels: [Int]
    /// The number of clusters.
    public var clusterCount: Int
    /// Whether each point is a core point.
    public var isCore: [Bool]

    /// A result with these fields.
    public init(labels: [Int], clusterCount: Int, isCore: [Bool]) {
        self.labels = labels
        self.clusterCount = clusterCount
        self.isCore = isCore
    }

    /// Labels from cluster keys (any distinct non-negative value per cluster, -1 for noise),
    /// numbered in order of first appearance.
    init(keys: [Int], isCore: [Bool]) {
        var numbers: [Int: Int] = [:]
        labels = keys.map { key in
            guard key >= 0 else { return Self.noise }
            if let number = numbers[key] { return number }
            numbers[key] = numbers.count
            return numbers.count - 1
        }
        clusterCount = numbers.count
        self.isCore = isCore
    }

    /// The number of noise points.
    public var noiseCount: Int { labels.count(where: { $0 == Self.noise }) }

    /// The points of each cluster, in point order.
    public var clusters: [[Int]] {
        var clusters = [[Int]](repeating: [], count: clusterCount)
        for (point, label) in labels.enumerated() where label >= 0 && label < clusterCount { clusters[label].append(point) }
        return clusters
    }

    /// The points of `cluster`, in point order.
    public func members(of cluster: Int) -> [Int] {
        labels.indices.filter { labels[$0] == cluster }
    }
}
