import Foundation
import MemoraSystem
import PhotoIndex

/// Scenario 18 (`--only people`): 50,000 faces clustered into people through the index, as
/// `memora people cluster --rebuild` does it (``PeopleClustering/rebuild()``: read the faces, DBSCAN
/// with one person per photo, write the people and their names): time and peak memory in a child
/// process, and the people found checked against the people planted. Then the incremental path
/// `memora index` takes for new photos (``PeopleClustering/update()``), with 2% more faces.
enum PeopleBench {
    static func run(_ settings: Bench.Settings) throws {
        let count = settings.facePoints, rounds = max(1, min(settings.rounds, 3))
        var maker = FaceMaker(people: 2000, seed: 18)
        let planted = maker.photos(faces: count, prefix: "p")
        let folder = NSTemporaryDirectory() + "memora-bench-people-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/index.sqlite"
        let database = try PhotoIndexDatabase(path: path)
        let saving = try Bench.seconds {
            for start in stride(from: 0, to: planted.photos.count, by: 1000) {
                try database.save(Array(planted.photos[start..<min(start + 1000, planted.photos.count)]))
            }
            try database.checkpoint()
        }
        let sizes = Dictionary(grouping: planted.truth.values.joined(), by: { $0 }).mapValues(\.count)
        let findable = sizes.count { $0.key < maker.people && $0.value >= 3 }
        print(String(format: "18. people: `memora people cluster --rebuild` (PeopleClustering, eps 0.5, 3 faces, one person per photo) of %d faces in %d photos "
                     + "(%d planted people, sizes falling off as 1/rank, %d of them with 3+ faces; %d strangers seen once), in a child process, %d rounds",
                     count, planted.photos.count, maker.people, findable, maker.strangers, rounds))
        print(String(format: "   index of the faces written through PhotoIndexDatabase.save in %.1f s", saving))

        var times: [Double] = [], growth: [Double] = [], line = ""
        for _ in 0..<rounds {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--people-cluster", path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let fields = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard process.terminationStatus == 0, fields.count == 6 else { throw BenchError("the people clustering child failed (exit \(process.terminationStatus))") }
            times.append(fields[0])
            growth.append(fields[2] - fields[1])
            line = String(format: "%d people, %d faces of no one; memory %.0f MiB with the index open, peak %.0f MiB%@",
                          Int(fields[3]), Int(fields[4]), fields[1], fields[2], fields[5] == 1 ? "" : " (peak not reset)")
        }
        print(String(format: "   rebuild %6.2f s median (%.2f–%.2f), peak +%.0f MiB (%.0f–%.0f): %@", Bench.median(times), times.min() ?? 0,
                     times.max() ?? 0, Bench.median(growth), growth.min() ?? 0, growth.max() ?? 0, line))

        let clustering = PeopleClustering(database: database)
        let check = Check(truth: planted.truth, found: try clustering.personOfEachFace(), people: maker.people)
        print(String(format: "   check: %d people found for %d planted with 3+ faces; %d planted found whole as one person, %d spread over several, %d merged with another; "
                     + "purity %.4f (faces in their person's main planted person); %d faces of no one, %d of them strangers or people with under 3 faces",
                     check.found, findable, check.whole, check.spread, check.merged, check.purity, check.unassigned, check.hopeless(sizes)))

        // New photos: their faces join the people found, or stay with no one.
        let added = maker.photos(faces: count / 50, prefix: "n")
        try database.save(added.photos)
        var summary: PeopleClustering.Summary?
        let known = Set(try database.people(includingHidden: true).map(\.id))
        let seconds = try Bench.seconds { summary = try clustering.update() }
        let after = try clustering.personOfEachFace()
        var right = 0, wrong = 0, inNewPeople = 0, nobody = 0
        for (photo, truth) in added.truth {
            for (person, found) in zip(truth, after[photo] ?? []) {
                guard let found else { nobody += 1; continue }
                if !known.contains(found) { inNewPeople += 1 } else if check.mainPerson[person] == found { right += 1 } else { wrong += 1 }
            }
        }
        print(String(format: "   update with %d new faces in %d photos: %.2f s (the %d faces of no one tried again with them); of the new faces %d joined "
                     + "the person their planted person was found as, %d another person, %d are in %d new people, %d of no one\n",
                     count / 50, added.photos.count, seconds, check.unassigned, right, wrong, inNewPeople, summary?.newPeople ?? 0, nobody))
    }

    /// The child of scenario 18: opens the index, resets its peak memory, clusters every face again,
    /// and prints seconds, RSS before and peak (MiB), people, faces of no one, and whether the peak was reset.
    static func clusterChild(path: String) throws {
        let database = try PhotoIndexDatabase(path: path, creatingIfMissing: false)
        _ = try database.photoCount()
        let resetPeak = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let before = DBSCANBench.memory("VmRSS")
        var summary: PeopleClustering.Summary?
        let seconds = try Bench.seconds { summary = try PeopleClustering(database: database).rebuild() }
        let peak = DBSCANBench.memory("VmHWM")
        print(seconds, before, peak, summary?.people ?? 0, summary?.unassigned ?? 0, resetPeak ? 1 : 0)
    }

    /// The people found against the people planted: found whole (all their faces in one person
    /// that holds no one else's), spread over several people, or merged (their main person is
    /// another planted person's main person too).
    struct Check {
        var found = 0, whole = 0, spread = 0, merged = 0, unassigned = 0
        var purity = 0.0
        /// The person found that holds most of each planted person's faces.
        var mainPerson: [Int: Int64] = [:]

        init(truth: [String: [Int]], found people: [String: [Int64?]], people planted: Int) {
            var table: [Int64: [Int: Int]] = [:], byPlanted: [Int: [Int64: Int]] = [:]
            for (photo, persons) in truth {
                for (person, found) in zip(persons, people[photo] ?? []) {
                    guard let found else { unassigned += 1; continue }
                    table[found, default: [:]][person, default: 0] += 1
                    byPlanted[person, default: [:]][found, default: 0] += 1
                }
            }
            found = table.count
            let assigned = table.values.reduce(0) { $0 + $1.values.reduce(0, +) }
            purity = assigned == 0 ? 0 : Double(table.values.reduce(0) { $0 + ($1.values.max() ?? 0) }) / Double(assigned)
            for (person, counts) in byPlanted where person < planted {
                mainPerson[person] = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
                if counts.count > 1 { spread += 1 }
                if counts.count == 1, let only = counts.keys.first, table[only]?.count == 1 { whole += 1 }
            }
            let sharing = Dictionary(grouping: mainPerson.values, by: { $0 }).mapValues(\.count)
            merged = mainPerson.values.count { (sharing[$0] ?? 0) > 1 }
        }

        /// Faces that could not make a person: strangers, and people planted with fewer than 3 faces.
        func hopeless(_ sizes: [Int: Int]) -> Int { sizes.reduce(0) { $0 + ($1.value < 3 ? $1.value : 0) } }
    }

    /// Faces as dlib's embeddings place them: unit vectors, a person's centre about 0.9 from
    /// another's (a shared direction plus each person's own), each face at 0.22 to 0.32 from its
    /// centre in a random direction, so two faces of one person are 0.3 to 0.45 apart and faces of
    /// two people about 1.0; 10% strangers, each seen once. Photos hold 1 to 5 faces of different people.
    struct FaceMaker {
        static let dimension = 128
        let people: Int
        var random: SeededRandom
        let shared: [Double]
        var centres: [[Double]] = []
        let weights: [Double]
        var strangers = 0
        var photoCount = 0

        init(people: Int, seed: UInt64) {
            self.people = people
            var random = SeededRandom(seed: seed)
            shared = Self.unit((0..<Self.dimension).map { _ in DBSCANBench.gaussian(&random) })
            self.random = random
            weights = (0..<people).map { 1 / Double($0 + 1) }
            for _ in 0..<people { centres.append(centre()) }
        }

        static func unit(_ vector: [Double]) -> [Double] {
            let length = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return vector.map { $0 / length }
        }

        /// A person's centre: cos 0.6 with the shared direction's mix, so centres are about 0.9 apart.
        mutating func centre() -> [Double] {
            let root = Double(Self.dimension).squareRoot()
            var own: [Double] = []
            for column in 0..<Self.dimension { own.append(0.6.squareRoot() * shared[column] + 0.4.squareRoot() * DBSCANBench.gaussian(&random) / root) }
            return Self.unit(own)
        }

        /// A face of the person at `centre`.
        mutating func face(_ centre: [Double]) -> [Float] {
            let spread = (0.22 + 0.1 * DBSCANBench.uniform(&random)) / Double(Self.dimension).squareRoot()
            var face: [Double] = []
            for column in 0..<Self.dimension { face.append(centre[column] + DBSCANBench.gaussian(&random) * spread) }
            return Self.unit(face).map(Float.init)
        }

        /// `count` faces in photos `prefix0`, `prefix1`...: the photos, and each face's planted person
        /// by photo id (strangers numbered from `people` on).
        mutating func photos(faces count: Int, prefix: String) -> (photos: [IndexedPhoto], truth: [String: [Int]]) {
            var photos: [IndexedPhoto] = [], truth: [String: [Int]] = [:]
            var faces: [(Int, [Float])] = []
            var size = 1 + Int(random.next(below: 5))
            func flush() {
                guard !faces.isEmpty else { return }
                let id = prefix + String(photoCount)
                photoCount += 1
                let boxes = faces.enumerated().map { number, face in
                    FaceBox(name: nil, x: 0.02 + 0.19 * Double(number), y: 0.3, width: 0.15, height: 0.2, confidence: 0.9, embedding: face.1)
                }
                photos.append(IndexedPhoto(
                    id: id, path: "/bench/people/\(id).jpg", size: 1, modified: Date(timeIntervalSince1970: 1_700_000_000), imageHash: id,
                    kind: .jpeg, takenAt: nil, utcOffset: nil, dateTrusted: false, latitude: nil, longitude: nil, place: nil, width: 4000,
                    height: 3000, orientation: 1, keywords: [], people: [], faces: boxes, quality: 0.5, perceptualHash: nil, rating: nil,
                    favorite: false, embedding: nil, error: nil))
                truth[id] = faces.map(\.0)
                faces = []
                size = 1 + Int(random.next(below: 5))
            }
            for _ in 0..<count {
                let person: Int
                let face: [Float]
                if DBSCANBench.uniform(&random) < 0.1 {
                    person = people + strangers
                    strangers += 1
                    let own = centre()
                    face = self.face(own)
                } else {
                    person = DBSCANBench.pick(weights, &random)
                    face = self.face(centres[person])
                }
                if faces.count == size || faces.contains(where: { $0.0 == person }) { flush() }
                faces.append((person, face))
            }
            flush()
            return (photos, truth)
        }
    }
}
