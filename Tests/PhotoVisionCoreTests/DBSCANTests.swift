import Foundation
import Testing
@testable import PhotoVisionCore
import MemoraSystem

@Suite("DBSCAN")
struct DBSCANTests {
    // MARK: Small cases worked out by hand

    @Test("a chain of five points one apart: the inner three are core, the ends are border points of the same cluster; a far point is noise")
    func chain() throws {
        // Integers centred on 0 keep every distance exact, so the pairs exactly epsilon apart count.
        let points = try EmbeddingMatrix([[-2], [-1], [0], [1], [2], [10], [-10]])
        let result = try DBSCAN(epsilon: 1, minimumPoints: 3, metric: .euclidean).cluster(points)
        #expect(result.labels == [0, 0, 0, 0, 0, -1, -1])
        #expect(result.isCore == [false, true, true, true, false, false, false])
        #expect(result.clusterCount == 1)
        #expect(result.noiseCount == 2)
        #expect(result.clusters == [[0, 1, 2, 3, 4]])
    }

    @Test("two points exactly epsilon apart are neighbours (the distance is compared with <=, as scikit-learn does)")
    func inclusiveEpsilon() throws {
        // Centred on 0 (their mean), these values and their squared distances are exact in single precision.
        let points = try EmbeddingMatrix([[-0.25], [0.25], [3], [-3]])
        #expect(try DBSCAN(epsilon: 0.5, minimumPoints: 2, metric: .euclidean).cluster(points).labels == [0, 0, -1, -1])
        #expect(try DBSCAN(epsilon: 0.499, minimumPoints: 2, metric: .euclidean).cluster(points).labels == [-1, -1, -1, -1])
    }

    @Test("a border point between two clusters joins the one whose lowest core point comes first, as scikit-learn's expansion does; labels follow first appearance")
    func borderPointGoesToFirstCluster() throws {
        // b = 1.2 is within 1 of 0.3 (in A) and of 2.1 (in C), but has only 3 points within 1: a border point.
        let a: [[Float]] = [[0], [0.1], [0.15], [0.3]], c: [[Float]] = [[2.1], [2.25], [2.3], [2.4]], b: [[Float]] = [[1.2]]
        let dbscan = DBSCAN(epsilon: 1, minimumPoints: 4, metric: .euclidean)

        let aFirst = try dbscan.cluster(EmbeddingMatrix(b + a + c))
        #expect(aFirst.labels == [0, 0, 0, 0, 0, 1, 1, 1, 1])
        #expect(aFirst.isCore == [false] + Array(repeating: true, count: 8))

        let cFirst = try dbscan.cluster(EmbeddingMatrix(b + c + a))
        #expect(cFirst.labels == [0, 0, 0, 0, 0, 1, 1, 1, 1])  // b is with C now: C's cores come first

        // A border point before both clusters' cores, reached by the second cluster only, gives that cluster label 0.
        let lateCluster = try dbscan.cluster(EmbeddingMatrix([[3.35]] + a + c))
        #expect(lateCluster.labels == [0, 1, 1, 1, 1, 0, 0, 0, 0])
    }

    @Test("minimumPoints 1 makes every point core: lone points are clusters of one and nothing is noise")
    func minimumPointsOne() throws {
        let points = try EmbeddingMatrix([[0], [5], [5.5], [20]])
        let result = try DBSCAN(epsilon: 1, minimumPoints: 1, metric: .euclidean).cluster(points)
        #expect(result.labels == [0, 1, 1, 2])
        #expect(result.isCore == [true, true, true, true])
    }

    @Test("cosine distance compares directions only: a chain of directions 10 degrees apart, lengths ignored, and a perpendicular one is noise")
    func cosineChain() throws {
        func direction(_ degrees: Double, length: Double) -> [Float] {
            [Float(length * cos(degrees * .pi / 180)), Float(length * sin(degrees * .pi / 180))]
        }
        let points = try EmbeddingMatrix([
            direction(0, length: 1), direction(10, length: 5), direction(20, length: 0.1), direction(30, length: 2),
            direction(40, length: 3), direction(130, length: 1),
        ])
        // 1 - cos 10° = 0.0152, 1 - cos 20° = 0.0603.
        let result = try DBSCAN(epsilon: 0.02, minimumPoints: 3, metric: .cosine).cluster(points)
        #expect(result.labels == [0, 0, 0, 0, 0, -1])
        #expect(result.isCore == [false, true, true, true, false, false])
    }

    @Test("no vectors: no clusters")
    func empty() throws {
        let result = try DBSCAN(epsilon: 0.5, minimumPoints: 3).cluster(EmbeddingMatrix([[Float]]()))
        #expect(result.labels.isEmpty && result.clusterCount == 0 && result.isCore.isEmpty)
    }

    // MARK: Agreement with a brute-force reference

    @Test(
        "labels and core points equal a brute-force DBSCAN (scikit-learn's algorithm, in doubles) on planted clusters with noise",
        arguments: [
            // metric, seed, dimension, minimum points, epsilon as a share of the nominal one, crowding
            (DBSCAN.Metric.cosine, 1, 64, 4, 1.0, 1.0), (.cosine, 2, 130, 4, 1.0, 1.0), (.cosine, 3, 16, 4, 1.0, 1.0),
            (.euclidean, 4, 3, 4, 1.0, 1.0), (.euclidean, 5, 40, 4, 1.0, 1.0), (.euclidean, 6, 128, 4, 1.0, 1.0),
            (.euclidean, 7, 2, 12, 0.3, 4.0), (.cosine, 9, 3, 6, 0.1, 2.0),
        ])
    func matchesReference(metric: DBSCAN.Metric, seed: UInt64, dimension: Int, minimumPoints: Int, share: Double, crowding: Double) throws {
        let data = PlantedData(count: 603, dimension: dimension, clusters: 9, metric: metric, seed: seed, crowding: crowding)
        let epsilon = data.clearEpsilon(near: data.nominalEpsilon * share)
        let reference = ReferenceDBSCAN(data, epsilon: epsilon, minimumPoints: minimumPoints)
        // The data must exercise every rule: several clusters, noise, border points; in few dimensions,
        // border points within reach of two clusters.
        #expect(reference.clusterCount >= 3)
        #expect(reference.labels.contains(-1))
        #expect(zip(reference.labels, reference.isCore).contains { $0 >= 0 && !$1 })
        if dimension <= 3 && minimumPoints > 4 {
            let contested = (0..<data.rows.count).filter { point in
                !reference.isCore[point] && Set((0..<data.rows.count).filter { reference.isCore[$0] && data.distance[point, $0] <= epsilon }
                    .map { reference.labels[$0] }).count > 1
            }
            #expect(!contested.isEmpty, "no border point is within reach of two clusters")
        }
        for kernel in DotKernel.available {
            var dbscan = DBSCAN(epsilon: epsilon, minimumPoints: minimumPoints, metric: metric)
            dbscan.kernel = kernel
            let result = try dbscan.cluster(data.matrix)
            #expect(result.labels == reference.labels, "kernel \(kernel)")
            #expect(result.isCore == reference.isCore, "kernel \(kernel)")
            #expect(result.clusterCount == reference.clusterCount, "kernel \(kernel)")
        }
    }

    @Test("every kernel's dot products match doubles, for row counts and dimensions that are not multiples of the tile's")
    func kernelsMatchDoubles() throws {
        var random = SeededRandom(seed: 99)
        for (rowsA, rowsB, dimension) in [(5, 7, 3), (13, 9, 17), (40, 33, 128), (8, 12, 512)] {
            let a = try EmbeddingMatrix((0..<rowsA).map { _ in (0..<dimension).map { _ in Float(random.uniform() * 2 - 1) } })
            let b = try EmbeddingMatrix((0..<rowsB).map { _ in (0..<dimension).map { _ in Float(random.uniform() * 2 - 1) } })
            let paddedA = try PaddedRows(a, metric: .euclidean, centre: [Double](repeating: 0, count: dimension))
            let paddedB = try PaddedRows(b, metric: .euclidean, centre: [Double](repeating: 0, count: dimension))
            for kernel in DotKernel.available {
                let stride = (paddedB.paddedCount + 3) / 4 * 4
                var out = [Float](repeating: .nan, count: paddedA.paddedCount * stride)
                out.withUnsafeMutableBufferPointer { out in
                    kernel.tile(paddedA.row(0), rows: paddedA.paddedCount, paddedB.row(0), rows: paddedB.paddedCount,
                                width: paddedA.width, into: out.baseAddress!, stride: stride)
                }
                for i in 0..<rowsA {
                    for j in 0..<rowsB {
                        let exact = zip(a[i], b[j]).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
                        #expect(abs(Double(out[i * stride + j]) - exact) < 1e-4 * Double(dimension).squareRoot(), "\(kernel) \(i) \(j)")
                    }
                }
            }
        }
    }

    @Test("the same input gives the same labels whatever the number of threads, run after run")
    func deterministic() throws {
        let data = PlantedData(count: 1100, dimension: 48, clusters: 12, metric: .cosine, seed: 7)
        let epsilon = data.clearEpsilon(near: data.nominalEpsilon)
        let first = try DBSCAN(epsilon: epsilon, minimumPoints: 4, maximumThreads: 1).cluster(data.matrix)
        #expect(first.clusterCount >= 3)
        for threads in [2, 3, 8, 8] {
            #expect(try DBSCAN(epsilon: epsilon, minimumPoints: 4, maximumThreads: threads).cluster(data.matrix) == first)
        }
        let groups = (0..<data.rows.count).map { $0 / 3 }
        let constrained = try DBSCAN(epsilon: epsilon, minimumPoints: 3, maximumThreads: 1).cluster(data.matrix, groups: groups)
        for threads in [2, 5] {
            #expect(try DBSCAN(epsilon: epsilon, minimumPoints: 3, maximumThreads: threads).cluster(data.matrix, groups: groups) == constrained)
        }
    }

    @Test("a dense cluster keeps memory proportional to its points: pairs of two certain core points are not kept")
    func boundedPairs() throws {
        // 1,500 points within epsilon of each other: 1.1 million pairs.
        var random = SeededRandom(seed: 3)
        let rows = (0..<1500).map { _ in (0..<8).map { _ in Float(1 + random.uniform() * 0.01) } }
        let points = try EmbeddingMatrix(rows)
        let padded = try PaddedRows(points, metric: .euclidean, centre: PaddedRows.columnMeans(of: points))
        let search = NeighbourSearch(among: padded, epsilon: 1, groups: nil, kernel: .best)
        let sinks = search.run(threads: 2) { DensitySink(count: 1500, minimumPoints: 5, keepsNearest: true) }
        let degrees = (0..<1500).map { point in sinks.reduce(0) { $0 + Int($1.degrees[point]) } }
        #expect(degrees.allSatisfy { $0 == 1499 })
        let kept = sinks.reduce(0) { $0 + $1.pairs.count / 2 }, forest = sinks.reduce(0) { $0 + $1.forest.count / 2 }
        #expect(kept <= sinks.count * 1500 * 4, "\(kept) pairs kept")
        #expect(forest < sinks.count * 1500)
        #expect(try DBSCAN(epsilon: 1, minimumPoints: 5, metric: .euclidean).cluster(points).labels == Array(repeating: 0, count: 1500))
        #expect(try DBSCAN(epsilon: 1, minimumPoints: 5, metric: .euclidean).cluster(points, groups: Array(0..<1500)).labels
                == Array(repeating: 0, count: 1500))
    }

    // MARK: Groups (two faces of one photo are never one person)

    @Test("two close points of the same group are not neighbours: without other support both are noise")
    func sameGroupIsNotANeighbour() throws {
        let points = try EmbeddingMatrix([[0], [0.1], [5]])
        let dbscan = DBSCAN(epsilon: 0.5, minimumPoints: 2, metric: .euclidean)
        #expect(try dbscan.cluster(points).labels == [0, 0, -1])
        #expect(try dbscan.cluster(points, groups: [7, 7, 8]).labels == [-1, -1, -1])
        #expect(try dbscan.cluster(points, groups: [7, 8, 9]).labels == [0, 0, -1])
    }

    @Test("a chain that would put two points of one group in one cluster is split at its longest link")
    func chainSplitAtLongestLink() throws {
        // a = 0 and b = 1.9 are in the same photo; x = 1 links both: |a x| = 1, |x b| = 0.9.
        let points = try EmbeddingMatrix([[0], [1], [1.9]])
        let dbscan = DBSCAN(epsilon: 1.05, minimumPoints: 2, metric: .euclidean)
        #expect(try dbscan.cluster(points).labels == [0, 0, 0])
        let split = try dbscan.cluster(points, groups: [1, 2, 1])
        #expect(split.labels == [0, 1, 1])  // x stays with b, its nearer neighbour; a is a cluster of its own
        #expect(split.isCore == [true, true, true])
        // Mirrored, the split follows the distances, not the order.
        #expect(try dbscan.cluster(EmbeddingMatrix([[0], [0.9], [1.9]]), groups: [1, 2, 1]).labels == [0, 0, 1])
    }

    @Test("a border point skips a cluster that holds its group and joins the next one that reaches it, or becomes noise")
    func borderPointSkipsItsGroup() throws {
        let a: [[Float]] = [[0], [0.1], [0.15], [0.3]], c: [[Float]] = [[2.1], [2.25], [2.3], [2.4]], b: [[Float]] = [[1.2]]
        let dbscan = DBSCAN(epsilon: 1, minimumPoints: 4, metric: .euclidean)
        let points = try EmbeddingMatrix(a + c + b)
        // b shares a group with a point of A (the first cluster that reaches it): it joins C.
        #expect(try dbscan.cluster(points, groups: [100, 1, 2, 3, 4, 5, 6, 7, 100]).labels == [0, 0, 0, 0, 1, 1, 1, 1, 1])
        // ... and with points of both: noise.
        #expect(try dbscan.cluster(points, groups: [100, 1, 2, 3, 100, 5, 6, 7, 100]).labels == [0, 0, 0, 0, 1, 1, 1, 1, -1])
        // Two border points of one group cannot both join A: the first does, the second goes to C.
        let twoBorders = try EmbeddingMatrix(a + c + [[1.2], [1.2]])
        #expect(try dbscan.cluster(twoBorders, groups: [0, 1, 2, 3, 4, 5, 6, 7, 50, 50]).labels == [0, 0, 0, 0, 1, 1, 1, 1, 0, 1])
    }

    @Test(
        "on planted data with groups, no cluster holds two points of one group; with a group per point the result is plain DBSCAN's",
        arguments: [DBSCAN.Metric.cosine, .euclidean])
    func groupsOnPlantedData(metric: DBSCAN.Metric) throws {
        let data = PlantedData(count: 700, dimension: 32, clusters: 8, metric: metric, seed: 21)
        let epsilon = data.clearEpsilon(near: data.nominalEpsilon)
        let dbscan = DBSCAN(epsilon: epsilon, minimumPoints: 3, metric: metric)
        let plain = try dbscan.cluster(data.matrix)
        #expect(try dbscan.cluster(data.matrix, groups: Array(0..<700)) == plain)

        // "Photos" of 1 to 4 points drawn at random: many share a planted cluster.
        var random = SeededRandom(seed: 5)
        var groups: [Int] = [], photo = 0
        while groups.count < 700 {
            groups += Array(repeating: photo, count: min(700 - groups.count, 1 + Int(random.uniform() * 4)))
            photo += 1
        }
        let shuffled = groups.shuffled(using: &random)
        let constrained = try dbscan.cluster(data.matrix, groups: shuffled)
        for members in constrained.clusters {
            #expect(Set(members.map { shuffled[$0] }).count == members.count, "a cluster holds two points of one group")
        }
        #expect(constrained.clusterCount > 0)
        // Every border point has a core neighbour (of another group) in its cluster; in a cluster of two or more core points,
        // every core point has one too; every cluster has a core point.
        for members in constrained.clusters {
            let cores = members.filter { constrained.isCore[$0] }
            #expect(!cores.isEmpty)
            for point in members where cores.count > 1 || !constrained.isCore[point] {
                let reached = cores.contains { other in
                    other != point && shuffled[other] != shuffled[point] && data.distance[point, other] <= epsilon
                }
                #expect(reached, "point \(point) is not within epsilon of a core point of its cluster")
            }
        }
        // Only a cluster with two points of one group is split: give two core points of the largest cluster one group,
        // and the core points of every other cluster stay together as they were.
        let largest = plain.clusters.max { $0.count < $1.count }!
        let twoCores = largest.filter { plain.isCore[$0] }.prefix(2)
        var oneConflict = Array(0..<700)
        oneConflict[twoCores.last!] = oneConflict[twoCores.first!]
        let oneSplit = try dbscan.cluster(data.matrix, groups: oneConflict)
        func coreSets(_ result: DBSCANResult) -> Set<[Int]> { Set(result.clusters.map { $0.filter { result.isCore[$0] } }) }
        let others = coreSets(plain).filter { $0 != largest.filter { plain.isCore[$0] } }
        #expect(others.isSubset(of: coreSets(oneSplit)))
        #expect(oneSplit.labels[twoCores.first!] != oneSplit.labels[twoCores.last!])
    }

    // MARK: Incremental assignment

    @Test("new points join the cluster of the nearest core point within epsilon; the rest are clustered among themselves after the existing clusters")
    func assignByHand() throws {
        let existing = try EmbeddingMatrix([[0], [0.1], [0.2], [5], [5.1], [5.2], [9]])
        let dbscan = DBSCAN(epsilon: 0.5, minimumPoints: 3, metric: .euclidean)
        let clustering = try dbscan.cluster(existing)
        #expect(clustering.labels == [0, 0, 0, 1, 1, 1, -1])

        let new = try EmbeddingMatrix([[0.6], [4.75], [10], [10.1], [10.2], [20], [9.4]])
        let result = try dbscan.assign(new, to: existing, clustering: clustering)
        // 0.6 is within 0.5 of core 0.2; 4.75 within 0.5 of core 5; 10..10.2 form a new cluster (label 2);
        // 20 is noise; 9.4 is near the noise point 9 only, which is not core, and near no new core point.
        #expect(result.labels == [0, 1, 2, 2, 2, -1, -1])
        #expect(result.isCore == [false, false, true, true, true, false, false])
        #expect(result.clusterCount == 3)

        // The nearest cluster wins: 2.55 is within 2.5 of A's core 0.2 (2.35) and of C's core 5 (2.45); 2.75 of C's only.
        let wide = DBSCAN(epsilon: 2.5, minimumPoints: 3, metric: .euclidean)
        let wideClustering = try wide.cluster(existing)
        #expect(wideClustering.labels == clustering.labels)
        #expect(try wide.assign(EmbeddingMatrix([[2.55], [2.75]]), to: existing, clustering: wideClustering).labels == [0, 1])

        // Nothing new: nothing to do.
        let none = try dbscan.assign(EmbeddingMatrix(values: [], dimension: 1), to: existing, clustering: clustering)
        #expect(none.labels.isEmpty && none.clusterCount == 2)
    }

    @Test("a new point never joins a cluster that holds its group (an existing point, or a new point that joined first)")
    func assignRespectsGroups() throws {
        let existing = try EmbeddingMatrix([[0], [0.1], [0.2], [1.5], [1.6], [1.7]])
        let dbscan = DBSCAN(epsilon: 0.5, minimumPoints: 3, metric: .euclidean)
        let clustering = try dbscan.cluster(existing, groups: [1, 2, 3, 4, 5, 6])
        #expect(clustering.labels == [0, 0, 0, 1, 1, 1])
        // 0.3 is nearest to A, 1.05 within 0.5 of B's core 1.5 only... and of A's core? |1.05 - 0.2| = 0.85: no.
        let new = try EmbeddingMatrix([[0.3], [0.35], [1.05], [0.25]])
        let result = try dbscan.assign(new, groups: [3, 9, 4, 9], to: existing, clustering: clustering, existingGroups: [1, 2, 3, 4, 5, 6])
        // 0.3 has group 3, already in A: A is the only cluster within reach, so it is left over (and alone: noise).
        // 0.35 (group 9) joins A; 1.05 (group 4, in B) is left over; 0.25 (group 9, now in A) is left over.
        #expect(result.labels == [-1, 0, -1, -1])
        let leftover = try dbscan.assign(new, groups: [3, 9, 4, 9], to: existing, clustering: clustering)
        // Without the existing points' groups, only the new points' own groups count.
        #expect(leftover.labels == [0, 0, 1, -1])
    }

    @Test("points drawn from the planted clusters of an existing clustering join those clusters")
    func assignPlanted() throws {
        let data = PlantedData(count: 900, dimension: 24, clusters: 6, metric: .cosine, seed: 11, noise: 0)
        let epsilon = data.clearEpsilon(near: data.nominalEpsilon)
        let dbscan = DBSCAN(epsilon: epsilon, minimumPoints: 4)
        let existing = data.matrix.rows(0..<700), new = data.matrix.rows(700..<900)
        let clustering = try dbscan.cluster(existing)
        let result = try dbscan.assign(new, to: existing, clustering: clustering)
        let whole = try dbscan.cluster(data.matrix)
        // Each new point ends in the existing cluster its planted neighbours are in, as clustering all 900 puts it.
        var agree = 0
        for point in 0..<200 {
            let label = result.labels[point], together = whole.labels[700 + point]
            let oldMate = (0..<700).first { whole.labels[$0] == together && together >= 0 }
            if let oldMate, label == clustering.labels[oldMate] { agree += 1 }
        }
        #expect(agree >= 190, "\(agree) of 200 new points joined the cluster their neighbours are in")
    }

    // MARK: Input

    @Test("ragged rows, empty rows, values that are not finite and zero rows under the cosine metric are typed errors that name the row")
    func invalidInput() throws {
        func code(_ body: () throws -> Void) -> (VisionError.Code, String)? {
            do {
                try body()
                return nil
            } catch let error as VisionError {
                return (error.code, error.message)
            } catch {
                return (VisionError.Code(rawValue: "untyped \(error)"), "")
            }
        }
        let ragged = code { _ = try EmbeddingMatrix([[1, 2], [3, 4], [5]]) }
        #expect(ragged?.0 == .invalidEmbedding && ragged?.1.contains("row 2") == true)
        let empty = code { _ = try EmbeddingMatrix([[], []]) }
        #expect(empty?.0 == .invalidEmbedding && empty?.1.contains("row 0 is empty") == true)
        let nan = code { _ = try EmbeddingMatrix([[1, 2], [3, .nan]]) }
        #expect(nan?.0 == .invalidEmbedding && nan?.1.contains("row 1") == true)
        let infinity = code { _ = try EmbeddingMatrix(halfFloatRows: [[0x3C00, 0x3C00], [0x3C00, 0x3C00], [0x7C00, 0]]) }
        #expect(infinity?.0 == .invalidEmbedding && infinity?.1.contains("row 2") == true)
        let notWhole = code { _ = try EmbeddingMatrix(values: [1, 2, 3], dimension: 2) }
        #expect(notWhole?.0 == .invalidEmbedding)
        let noDimension = code { _ = try EmbeddingMatrix(values: [], dimension: 0) }
        #expect(noDimension?.0 == .invalidEmbedding)

        let zeroRow = try EmbeddingMatrix([[1, 0], [0, 0], [0, 1]])
        let zero = code { _ = try DBSCAN(epsilon: 0.1, minimumPoints: 2).cluster(zeroRow) }
        #expect(zero?.0 == .invalidEmbedding && zero?.1.contains("row 1 is all zeros") == true)
        #expect(try DBSCAN(epsilon: 0.1, minimumPoints: 2, metric: .euclidean).cluster(zeroRow).labels == [-1, -1, -1])

        let points = try EmbeddingMatrix([[1, 0], [0, 1]])
        for settings in [DBSCAN(epsilon: 0, minimumPoints: 2), DBSCAN(epsilon: -1, minimumPoints: 2), DBSCAN(epsilon: .nan, minimumPoints: 2),
                         DBSCAN(epsilon: .infinity, minimumPoints: 2), DBSCAN(epsilon: 0.5, minimumPoints: 0),
                         DBSCAN(epsilon: 0.5, minimumPoints: 2, maximumThreads: 0)] {
            #expect(code { _ = try settings.cluster(points) }?.0 == .invalidArgument)
        }
        #expect(code { _ = try DBSCAN(epsilon: 0.5, minimumPoints: 2).cluster(points, groups: [1]) }?.0 == .invalidArgument)

        let clustering = try DBSCAN(epsilon: 0.5, minimumPoints: 1).cluster(points)
        let other = try EmbeddingMatrix([[1, 0, 0]])
        #expect(code { _ = try DBSCAN(epsilon: 0.5, minimumPoints: 1).assign(other, to: points, clustering: clustering) }?.0 == .invalidEmbedding)
        #expect(code { _ = try DBSCAN(epsilon: 0.5, minimumPoints: 1).assign(points, to: other, clustering: clustering) }?.0 == .invalidArgument)
        #expect(code { _ = try DBSCAN(epsilon: 0.5, minimumPoints: 1).assign(points, groups: [1], to: points, clustering: clustering) }?.0
                == .invalidArgument)
        let inconsistent = DBSCANResult(labels: [0, 2], clusterCount: 2, isCore: [true, true])
        #expect(code { _ = try DBSCAN(epsilon: 0.5, minimumPoints: 1).assign(points, to: points, clustering: inconsistent) }?.0
                == .invalidArgument)
    }

    @Test("half floats widen exactly: normal, subnormal, signed zero, the largest finite value")
    func halfFloats() throws {
        let matrix = try EmbeddingMatrix(halfFloats: [0x3C00, 0xC000, 0x3555, 0x0001, 0x03FF, 0x8000, 0x7BFF, 0x0400], dimension: 4)
        #expect(matrix.count == 2 && matrix.dimension == 4)
        #expect(Array(matrix[0]) == [1, -2, 0x1.554p-2, 0x1p-24])
        #expect(Array(matrix[1]) == [0x3FFp-24, -0.0, 65504, 0x1p-14])
        #expect(matrix[1][matrix[1].startIndex + 1].sign == .minus)
        #expect(try EmbeddingMatrix(halfFloatRows: [[0x3C00, 0xC000], [0x3555, 0x0001]]).values == [1, -2, 0x1.554p-2, 0x1p-24])
        #expect(matrix.rows([1, 0]).values == Array(matrix[1]) + Array(matrix[0]))
    }
}

// MARK: - Test data and the reference

/// The tests' draws from MemoraSystem's seeded generator (SplitMix64, the same on every platform).
extension SeededRandom {
    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double { (-2 * log(1 - uniform())).squareRoot() * cos(2 * .pi * uniform()) }
}

/// Points around `clusters` random centres, each point at a random multiple (0.3 to 1.8) of its
/// cluster's spread, so that clusters have dense cores, border points and stragglers; plus
/// uniform noise points; in random order.
struct PlantedData {
    var rows: [[Float]]
    var matrix: EmbeddingMatrix
    let metric: DBSCAN.Metric
    /// An epsilon of the order of the distances within the clusters.
    let nominalEpsilon: Double
    /// Every distance, in doubles.
    let distance: DistanceTable

    /// `crowding` above 1 brings the centres closer together (clusters that touch, in few dimensions).
    init(count: Int, dimension: Int, clusters: Int, metric: DBSCAN.Metric, seed: UInt64, noise: Double = 0.08, crowding: Double = 1) {
        var random = SeededRandom(seed: seed)
        self.metric = metric
        let root = Double(dimension).squareRoot()
        // Cosine: centres of length about 1, spreads 0.25-0.45 (distances about 0.06-0.2 between points at 1 spread).
        // Euclidean: centres of length about 30, spreads 2.5-4.5 (distances about 3.5-6.4).
        let (centreLength, spreadLow, spreadHigh) = metric == .cosine ? (1.0, 0.25, 0.45) : (30.0, 2.5, 4.5)
        nominalEpsilon = metric == .cosine ? 0.2 : 6
        let centres = (0..<clusters).map { _ in (0..<dimension).map { _ in random.gaussian() * centreLength / root / crowding } }
        let spreads = (0..<clusters).map { _ in (spreadLow + (spreadHigh - spreadLow) * random.uniform()) / root }
        let weights = (0..<clusters).map { Double($0 % 3 == 0 ? 1 : 6) + random.uniform() }
        let total = weights.reduce(0, +)
        var rows: [[Float]] = []
        while rows.count < count {
            if random.uniform() < noise {
                rows.append((0..<dimension).map { _ in Float((random.uniform() * 2 - 1) * centreLength * 1.5 / root * 3) })
                continue
            }
            var pick = random.uniform() * total, cluster = 0
            while cluster < clusters - 1 && pick >= weights[cluster] {
                pick -= weights[cluster]
                cluster += 1
            }
            let radius = 0.3 + 1.5 * random.uniform()
            rows.append((0..<dimension).map { Float(centres[cluster][$0] + random.gaussian() * spreads[cluster] * radius) })
        }
        self.rows = rows
        matrix = try! EmbeddingMatrix(rows)
        distance = ReferenceDBSCAN.distances(rows, metric: metric)
    }

    /// An epsilon near `nominal` in the middle of the widest gap between pair distances there,
    /// so that rounding in single precision cannot move a pair across it.
    func clearEpsilon(near nominal: Double) -> Double {
        let nearby = distance.values.filter { $0 > nominal * 0.8 && $0 < nominal * 1.2 }.sorted()
        var best = (gap: 0.0, middle: nominal)
        for (low, high) in zip(nearby, nearby.dropFirst()) where high - low > best.gap {
            best = (high - low, (low + high) / 2)
        }
        return best.middle
    }
}

/// DBSCAN as scikit-learn runs it (`sklearn/cluster/_dbscan_inner.pyx`: neighbourhoods with the
/// point itself, core points with at least `min_samples`, expansion with a stack from each
/// unlabelled core point in order), on doubles, then relabelled in order of first appearance.
struct ReferenceDBSCAN {
    var labels: [Int]
    var isCore: [Bool]
    var clusterCount: Int

    init(_ data: PlantedData, epsilon: Double, minimumPoints: Int) {
        let count = data.rows.count
        let neighbourhoods = (0..<count).map { i in (0..<count).filter { j in data.distance[i, j] <= epsilon } }
        isCore = neighbourhoods.map { $0.count >= minimumPoints }
        var seedLabels = [Int](repeating: -1, count: count)
        var label = 0
        for start in 0..<count where seedLabels[start] == -1 && isCore[start] {
            var stack: [Int] = []
            var point = start
            while true {
                if seedLabels[point] == -1 {
                    seedLabels[point] = label
                    if isCore[point] {
                        for neighbour in neighbourhoods[point] where seedLabels[neighbour] == -1 { stack.append(neighbour) }
                    }
                }
                guard let next = stack.popLast() else { break }
                point = next
            }
            label += 1
        }
        var numbers: [Int: Int] = [:]
        labels = seedLabels.map { seed in
            guard seed >= 0 else { return -1 }
            if let number = numbers[seed] { return number }
            numbers[seed] = numbers.count
            return numbers.count - 1
        }
        clusterCount = label
    }

    /// Distances in doubles: cosine `1 - a.b / (|a| |b|)`, or euclidean.
    static func distances(_ points: [[Float]], metric: DBSCAN.Metric) -> DistanceTable {
        let count = points.count, dimension = points.first?.count ?? 0
        var rows = points.flatMap { $0.map(Double.init) }
        if metric == .cosine {
            for row in 0..<count {
                var squares = 0.0
                for column in 0..<dimension { squares += rows[row * dimension + column] * rows[row * dimension + column] }
                for column in 0..<dimension { rows[row * dimension + column] /= squares.squareRoot() }
            }
        }
        var table = [Double](repeating: 0, count: count * count)
        rows.withUnsafeBufferPointer { rows in
            table.withUnsafeMutableBufferPointer { table in
                for i in 0..<count {
                    for j in (i + 1)..<max(i + 1, count) {
                        var sum = 0.0
                        for column in 0..<dimension {
                            let a = rows[i * dimension + column], b = rows[j * dimension + column]
                            sum += metric == .cosine ? a * b : (a - b) * (a - b)
                        }
                        let distance = metric == .cosine ? 1 - sum : sum.squareRoot()
                        table[i * count + j] = distance
                        table[j * count + i] = distance
                    }
                }
            }
        }
        return DistanceTable(count: count, table: table)
    }
}

/// Every pairwise distance of a data set.
struct DistanceTable {
    let count: Int
    let table: [Double]
    subscript(i: Int, j: Int) -> Double { table[i * count + j] }
    /// The distance of each pair `i < j`.
    var values: [Double] {
        var values: [Double] = []
        for i in 0..<count {
            for j in (i + 1)..<max(i + 1, count) { values.append(table[i * count + j]) }
        }
        return values
    }
}
