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

    /// The dot-product kernel this CPU runs: "AVX-512", "AVX2" (x86-64, in C) or "Swift SIMD".
    public static var kernelName: String { DotKernel.best.description }

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
    /// 2. A cluster of core points (as plain DBSCAN forms it under rule 1) whose core points
    ///    include two of one group is split: its core points are linked again through each
    ///    one's 16 nearest neighbours within epsilon (ties by the lower point), shortest link
    ///    first (ties by the lower point, then the higher), two pieces joining only when they
    ///    have no group in common; so the cluster is cut where the links are longest. A cluster
    ///    without such a pair stays whole.
    /// 3. Border points, in point order, join the first cluster (by lowest core point) that
    ///    has one of their core neighbours and no point of their group; with none, they are noise.
    ///
    /// With every point in a group of its own, the result is plain DBSCAN's. Linking through
    /// nearest neighbours only keeps memory proportional to the points: a dense cluster of
    /// m faces has about m²/2 pairs within epsilon.
    public func cluster(_ vectors: EmbeddingMatrix, groups: [Int]? = nil) throws(VisionError) -> DBSCANResult {
        try validateSettings()
        if let groups, groups.count != vectors.count {
            throw .invalidArgument("there are \(groups.count) groups for \(vectors.count) vectors; give one group per vector")
        }
        guard vectors.count > 0 else { return DBSCANResult(labels: [], clusterCount: 0, isCore: []) }
        guard vectors.count < Int(Int32.max) else {
            throw .invalidArgument("\(vectors.count) vectors are too many to cluster at once (at most \(Int32.max - 1))")
        }
        let rows = try PaddedRows(vectors, metric: metric, centre: metric == .euclidean ? PaddedRows.columnMeans(of: vectors) : nil)
        let search = NeighbourSearch(among: rows, epsilon: epsilon, groups: groups, kernel: kernel)
        let count = vectors.count, minimumPoints = minimumPoints, keepsNearest = groups != nil
        let sinks = search.run(threads: maximumThreads) {
            DensitySink(count: count, minimumPoints: minimumPoints, keepsNearest: keepsNearest)
        }
        let (keys, isCore) = DensityLabelling.keys(from: sinks, count: count, minimumPoints: minimumPoints, groups: groups)
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
        guard existing.clusterCount >= 0, existing.labels.allSatisfy({ $0 >= -1 && $0 < existing.clusterCount }) else {
            throw .invalidArgument("the clustering has labels outside -1..<\(existing.clusterCount)")
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
            let search = NeighbourSearch(between: newRows, and: coreRows, epsilon: epsilon, kernel: kernel)
            let coreClusters = cores.map { existing.labels[$0] }, count = newVectors.count
            for sink in search.run(threads: maximumThreads, makeSink: { NearestClusterSink(count: count, clusters: coreClusters) }) {
                for (point, found) in sink.nearest.enumerated() {
                    for candidate in found {
                        if let index = candidates[point].firstIndex(where: { $0.cluster == candidate.cluster }) {
                            candidates[point][index].distance = min(candidates[point][index].distance, candidate.distance)
                        } else {
                            candidates[point].append(candidate)
                        }
                    }
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
}

/// Per new point, the distance to the nearest core point of each existing cluster within epsilon.
private struct NearestClusterSink: PairSink, Sendable {
    let clusters: [Int]
    var nearest: [[(distance: Float, cluster: Int)]]

    init(count: Int, clusters: [Int]) {
        self.clusters = clusters
        nearest = [[(distance: Float, cluster: Int)]](repeating: [], count: count)
    }

    mutating func add(_ i: Int, _ j: Int, distance: Float) {
        let cluster = clusters[j]
        if let index = nearest[i].firstIndex(where: { $0.cluster == cluster }) {
            nearest[i][index].distance = min(nearest[i][index].distance, distance)
        } else {
            nearest[i].append((distance, cluster))
        }
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
