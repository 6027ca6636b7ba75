import Foundation
import MemoraSystem
import PhotoIndex
import PhotoVision
import PhotoVisionCore

/// Scenario 14: PhotoVision's DBSCAN on 20,000 x 512 half floats (scene embeddings: themes)
/// against scikit-learn's `DBSCAN(metric="cosine")` on the same file, in the same run, with the
/// labels compared. Scenario 15: 50,000 faces of 128 values (people), with and without the rule
/// that two faces of one photo are never one person: time and peak memory, in a child process.
enum DBSCANBench {
    static func run(_ settings: Bench.Settings) throws {
        try themes(settings)
        try faces(settings)
    }

    // MARK: Scenario 14

    static func themes(_ settings: Bench.Settings) throws {
        let count = settings.dbscanPoints, dimension = 512, epsilon = 0.25, minimumPoints = 10
        let data = plantedThemes(count: count, dimension: dimension, seed: 14)
        let folder = NSTemporaryDirectory() + "memora-bench-dbscan-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let dataPath = folder + "/embeddings.npy", labelsPath = folder + "/labels.i32"
        try Data(npyHalfFloats(data.halves, rows: count, columns: dimension)).write(to: URL(fileURLWithPath: dataPath))
        let megabytes = Double(count * dimension * 2) / 1_048_576
        print(String(format: "14. DBSCAN (cosine, eps %.2f, min_samples %d) of %d x %d half floats (%.1f MB, %d planted themes, %.0f%% noise), %d rounds, median",
                     epsilon, minimumPoints, count, dimension, megabytes, data.planted, data.noiseShare * 100, settings.rounds))

        let dbscan = DBSCAN(epsilon: epsilon, minimumPoints: minimumPoints, metric: .cosine)
        var ours: [Double] = [], peer: [Double] = []
        var result: DBSCANResult?
        for _ in 0..<settings.rounds {
            ours.append(try Bench.seconds {
                result = try dbscan.cluster(EmbeddingMatrix(halfFloats: data.halves, dimension: dimension))
            })
            peer.append(try runScikitLearn(dataPath, epsilon: epsilon, minimumPoints: minimumPoints, labels: labelsPath, settings: settings))
        }
        guard let result else { throw BenchError("no clustering ran (--rounds 0?)") }
        let theirs = try readLabels(labelsPath, count: count)
        let (ourLabels, theirLabels) = (firstAppearance(result.labels), firstAppearance(theirs))
        let differing = zip(ourLabels, theirLabels).count { $0 != $1 }
        let ratio = Bench.median(peer) / Bench.median(ours)
        print(String(format: "   ours  %7.3f s  PhotoVision DBSCAN from half floats, %@ kernel, %d threads: %d clusters, %d noise, %d core",
                     Bench.median(ours), DBSCAN.kernelName, DBSCAN.activeProcessorCount, result.clusterCount, result.noiseCount,
                     result.isCore.count { $0 }))
        print(String(format: "   peer  %7.3f s  scikit-learn %@ DBSCAN(metric=\"cosine\").fit on float32: %d clusters, %d noise",
                     Bench.median(peer), scikitLearnVersion(settings), Set(theirs.filter { $0 >= 0 }).count, theirs.count { $0 < 0 }))
        print(String(format: "   labels: %@ (adjusted Rand index %.6f, %d of %d points differ)",
                     differing == 0 ? "identical up to renumbering" : "differ", adjustedRandIndex(result.labels, theirs), differing, count))
        print(String(format: "   speed-up (scikit-learn time / ours): %.2fx  (target >= 2: %@)\n", ratio, ratio >= 2 ? "met" : "NOT met"))
    }

    /// Themes: 30 directions with sizes falling off as 1/rank, each point at a random multiple
    /// (0.5 to 2) of its theme's spread (so themes have outskirts: border points and noise), and 10% noise in random directions; rounded to half floats.
    static func plantedThemes(count: Int, dimension: Int, seed: UInt64) -> (halves: [UInt16], planted: Int, noiseShare: Double) {
        var random = SeededRandom(seed: seed)
        let planted = 30, noiseShare = 0.1
        let root = Double(dimension).squareRoot()
        let centres = (0..<planted).map { _ in (0..<dimension).map { _ in gaussian(&random) / root } }
        let spreads = (0..<planted).map { _ in 0.38 + 0.12 * uniform(&random) }
        let weights = (0..<planted).map { 1 / Double($0 + 1) }
        var values: [Float] = []
        values.reserveCapacity(count * dimension)
        for _ in 0..<count {
            if uniform(&random) < noiseShare {
                for _ in 0..<dimension { values.append(Float(gaussian(&random) / root)) }
                continue
            }
            let theme = pick(weights, &random)
            let scale = spreads[theme] * (0.5 + 1.5 * uniform(&random)) / root
            for column in 0..<dimension { values.append(Float(centres[theme][column] + gaussian(&random) * scale)) }
        }
        return (halfFloatBits(values), planted, noiseShare)
    }

    static func runScikitLearn(_ dataPath: String, epsilon: Double, minimumPoints: Int, labels: String, settings: Bench.Settings) throws -> Double {
        try Bench.runPython("scripts/bench-dbscan.py", [dataPath, String(epsilon), String(minimumPoints), labels], settings: settings,
                            missing: "is scikit-learn installed? (pip install scikit-learn)")
    }

    static func scikitLearnVersion(_ settings: Bench.Settings) -> String {
        ((try? Bench.python(["-c", "import sklearn; print(sklearn.__version__)"], settings: settings, quiet: true)) ?? nil)?.first ?? "?"
    }

    // MARK: Scenario 15

    static func faces(_ settings: Bench.Settings) throws {
        let count = settings.facePoints
        print(String(format: "15. people: DBSCAN (euclidean, eps 0.5, min_samples 3) of %d faces of 128 values (1,500 planted people, sizes falling off as 1/rank, 10%% strangers), in a child process", count))
        for withGroups in [false, true] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--dbscan-faces", String(count), withGroups ? "groups" : "plain"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("the face clustering child failed (exit \(process.terminationStatus))") }
            print("   " + String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        print("")
    }

    /// The child of scenario 15: makes the faces, resets its peak memory, clusters, and prints one line.
    static func facesChild(count: Int, withGroups: Bool) throws {
        let dimension = 128
        let data = plantedFaces(count: count, dimension: dimension, seed: 15)
        let vectors = try EmbeddingMatrix(halfFloats: data.halves, dimension: dimension)
        let resetPeak = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let before = memory("VmRSS")
        let dbscan = DBSCAN(epsilon: 0.5, minimumPoints: 3, metric: .euclidean)
        var result: DBSCANResult?
        let seconds = try Bench.seconds { result = try dbscan.cluster(vectors, groups: withGroups ? data.photos : nil) }
        let peak = memory("VmHWM")
        guard let result else { return }
        let mixed = result.clusters.count { members in Set(members.map { data.photos[$0] }).count < members.count }
        print(String(format: "%@ %6.2f s, %d threads: %d people, %d faces of no one (%d planted strangers), %d with two faces of one photo; memory %.0f MiB with the faces, peak %.0f MiB while clustering (%@+%.0f MiB)",
                     withGroups ? "one person per photo:" : "plain:               ", seconds, DBSCAN.activeProcessorCount, result.clusterCount,
                     result.noiseCount, data.strangers, mixed, before, peak, resetPeak ? "" : "peak not reset, includes the set-up; ", peak - before))
    }

    /// Faces: 1,500 people (centres about 0.96 apart, as dlib's different people are) with sizes
    /// falling off as 1/rank, faces at 0.5 to 1.6 times a spread that puts same-person faces about
    /// 0.4 apart; the 20 most photographed are 10 pairs of look-alike siblings (centres about 0.34
    /// apart, so plain DBSCAN chains each pair into one cluster); 10% strangers seen once. Photos
    /// hold 1 to 5 faces of different people.
    static func plantedFaces(count: Int, dimension: Int, seed: UInt64) -> (halves: [UInt16], photos: [Int], strangers: Int) {
        var random = SeededRandom(seed: seed)
        let people = 1500
        var centres = (0..<people).map { _ in (0..<dimension).map { _ in gaussian(&random) * 0.06 } }
        for sibling in stride(from: 1, to: 20, by: 2) {
            centres[sibling] = centres[sibling - 1].map { $0 + gaussian(&random) * 0.03 }
        }
        let weights = (0..<people).map { 1 / Double($0 + 1) }
        var values: [Float] = [], persons: [Int] = []
        values.reserveCapacity(count * dimension)
        var strangers = 0
        for _ in 0..<count {
            if uniform(&random) < 0.1 {
                for _ in 0..<dimension { values.append(Float(gaussian(&random) * 0.06)) }
                persons.append(people + strangers)
                strangers += 1
                continue
            }
            let person = pick(weights, &random)
            let scale = 0.025 * (0.5 + 1.1 * uniform(&random))
            for column in 0..<dimension { values.append(Float(centres[person][column] + gaussian(&random) * scale)) }
            persons.append(person)
        }
        // Photos: consecutive faces, 1 to 5 to a photo, a new photo whenever a person would appear twice.
        var photos: [Int] = [], photo = 0, inPhoto: Set<Int> = [], size = 1 + Int(random.next(below: 5))
        for person in persons {
            if inPhoto.count == size || inPhoto.contains(person) {
                photo += 1
                inPhoto = []
                size = 1 + Int(random.next(below: 5))
            }
            inPhoto.insert(person)
            photos.append(photo)
        }
        return (halfFloatBits(values), photos, strangers)
    }

    // MARK: Helpers

    static func uniform(_ random: inout SeededRandom) -> Double { Double(random.next() >> 11) * 0x1p-53 }

    static func gaussian(_ random: inout SeededRandom) -> Double {
        (-2 * log(1 - uniform(&random))).squareRoot() * cos(2 * .pi * uniform(&random))
    }

    /// An index drawn with probability proportional to its weight.
    static func pick(_ weights: [Double], _ random: inout SeededRandom) -> Int {
        var remaining = uniform(&random) * weights.reduce(0, +)
        for (index, weight) in weights.enumerated() {
            if remaining < weight { return index }
            remaining -= weight
        }
        return weights.count - 1
    }

    /// Half-float bit patterns of `values` (PhotoIndex's rounding, as the index stores embeddings).
    static func halfFloatBits(_ values: [Float]) -> [UInt16] {
        let bytes = HalfFloat.encode(values)
        return (0..<values.count).map { UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8 }
    }

    /// A NumPy `.npy` file (format 1.0) of a little-endian float16 matrix.
    static func npyHalfFloats(_ halves: [UInt16], rows: Int, columns: Int) -> [UInt8] {
        var header = "{'descr': '<f2', 'fortran_order': False, 'shape': (\(rows), \(columns)), }"
        while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
        header += "\n"
        var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)]
        bytes += Array(header.utf8)
        bytes.reserveCapacity(bytes.count + 2 * halves.count)
        for half in halves {
            bytes.append(UInt8(half & 0xFF))
            bytes.append(UInt8(half >> 8))
        }
        return bytes
    }

    static func readLabels(_ path: String, count: Int) throws -> [Int] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count == 4 * count else { throw BenchError("the peer wrote \(data.count) bytes of labels for \(count) points") }
        return data.withUnsafeBytes { raw in
            (0..<count).map { Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: Int32.self))) }
        }
    }

    /// Labels renumbered in order of first appearance (noise stays -1).
    static func firstAppearance(_ labels: [Int]) -> [Int] {
        var numbers: [Int: Int] = [:]
        return labels.map { label in
            guard label >= 0 else { return -1 }
            if let number = numbers[label] { return number }
            numbers[label] = numbers.count
            return numbers.count - 1
        }
    }

    /// The adjusted Rand index of two labellings (noise counted as one more label, as scikit-learn's `adjusted_rand_score` does).
    static func adjustedRandIndex(_ a: [Int], _ b: [Int]) -> Double {
        func pairs(_ n: Int) -> Double { Double(n) * Double(n - 1) / 2 }
        var table: [[Int]: Int] = [:], rows: [Int: Int] = [:], columns: [Int: Int] = [:]
        for (x, y) in zip(a, b) {
            table[[x, y], default: 0] += 1
            rows[x, default: 0] += 1
            columns[y, default: 0] += 1
        }
        let index = table.values.reduce(0) { $0 + pairs($1) }
        let rowSum = rows.values.reduce(0) { $0 + pairs($1) }, columnSum = columns.values.reduce(0) { $0 + pairs($1) }
        let expected = rowSum * columnSum / pairs(a.count), maximum = (rowSum + columnSum) / 2
        return maximum == expected ? 1 : (index - expected) / (maximum - expected)
    }

    /// A field of /proc/self/status, in MiB.
    /// A memory figure of `/proc/PROCESS/status` (VmRSS, VmHWM) in MiB: this process's by default.
    static func memory(_ field: String, of process: String = "self") -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? 0) / 1024
    }
}
