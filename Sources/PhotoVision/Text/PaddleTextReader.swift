public import ImageKit
public import PhotoVisionCore
internal import MemoraSystem

/// Reads text with PaddleOCR's PP-OCRv6 small models (installed by `scripts/install-models.sh` from
/// PyPI's `rapidocr` 3.10.0 wheel, Apache-2.0) on ONNX Runtime, the pipeline of RapidOCR and
/// PaddleOCR (Docs/Vision.md, "Text"); the PP-OCRv4 models of earlier releases read the same way:
///
/// 1. the DB detector marks where text is on the photo, its shorter side at least 736 pixels and its
///    longer side at most 2000 ([`TextRegionFinder`] turns the map into rotated boxes);
/// 2. each line is cut out upright along its box (turned a quarter when it stands taller than wide)
///    and the direction classifier turns it half a turn when it is upside down;
/// 3. the recogniser reads each line at 48 pixels high (CTC, greedy), with the mean probability of
///    the characters it kept as the line's confidence; a line read with less than
///    ``Options/sureConfidence`` is read again turned half a turn when the classifier gave it even
///    odds or more of being upside down, and the surer reading wins (the classifier turns some
///    upright lines, and is unsure of others).
///
/// Lines under ``Options/minConfidence``, with fewer than ``Options/minCharacters`` letters or
/// digits, or read twice are dropped. One reader may be used from several threads.
public final class PaddleTextReader: TextReading, Sendable {
    /// How the reader works.
    public struct Options: Sendable, Hashable {
        /// A photo's longer side is scaled down to this first (2000, as RapidOCR).
        public var maxSide = 2000
        /// The detector sees the photo with its shorter side scaled up to at least this (736).
        public var detectorMinSide = 736
        /// The detector sees the photo with its longer side at most this (2000, as RapidOCR; the
        /// description uses 1280, where a 12 MP photo's detection costs 2.4 times less). Lines are
        /// still cut from the photo at ``maxSide``.
        public var detectorMaxSide = 2000
        /// Lines read with less confidence are dropped (0.5, as RapidOCR).
        public var minConfidence: Float = 0.5
        /// Lines with fewer letters or digits are dropped.
        public var minCharacters = 2
        /// A line read with less confidence, which the direction classifier gave even odds or more of
        /// being upside down, is read again turned half a turn, and the surer reading kept.
        public var sureConfidence: Float = 0.9
        /// A line under 48 pixels high with a character read with less probability than this is read
        /// again from a crop with a margin, both ways up (``rereadsDoubtfulLines``).
        public var sureCharacter: Float = 0.9
        /// Whether doubtful lines are read again (see ``sureCharacter``).
        public var rereadsDoubtfulLines = true
        /// The margin added around a doubtful line's box when it is read again, as a share of the box's height.
        public var rereadMargin = 0.15
        /// Threads: the detector's operators share them, and as many batches of lines are read at once.
        public var threads = 1
        /// When set and the detector is sure of no line, the regions whose mean probability reaches
        /// this are returned as unread lines (empty text, confidence 0), so that a caller can tell a
        /// page of writing the reader cannot read from a blank picture (nil, the default: none). The
        /// description sets 0.3: PP-OCRv6's detector gives handwriting 0.3 to 0.5.
        public var faintLineThreshold: Float?

        /// The defaults.
        public init() {}
    }

    static let lineHeight = 48
    static let classifierWidth = 192
    static let minRecognizerWidth = 320
    static let batchSize = 6

    private let detector: ONNXRuntime.Session
    private let classifier: ONNXRuntime.Session
    private let recognizer: ONNXRuntime.Session
    /// Class `k` of the recogniser is `characters[k]`; class 0 is the CTC blank (an empty string).
    private let characters: [String]
    /// How the reader works.
    public let options: Options
    private let regions = TextRegionFinder()

    /// Loads the three models, their characters and ONNX Runtime from `models`.
    public init(models: VisionModels = .installed, options: Options = Options()) throws(VisionError) {
        let runtime = try ONNXRuntime.load(try models.require(.onnxRuntime))
        // The detector sees one large image: its operators share the threads, and its working
        // memory stays in ONNX Runtime's arena between photos (a quarter faster than freeing it:
        // the photo is at most maxSide, so the arena is bounded). The line models see small
        // batches, which split badly across threads: each batch runs on one thread, `threads`
        // batches at once.
        detector = try ONNXRuntime.Session(runtime: runtime, modelPath: try models.require(.textDetector), threads: max(1, options.threads))
        classifier = try ONNXRuntime.Session(runtime: runtime, modelPath: try models.require(.textClassifier), threads: 1)
        recognizer = try ONNXRuntime.Session(runtime: runtime, modelPath: try models.require(.textRecognizer), threads: 1, keepsArena: false)
        let dictionaryPath = try models.require(.textDictionary)
        let text: [UInt8]
        do { text = try SystemFile(dictionaryPath).readAll() } catch { throw .modelUnreadable(dictionaryPath, reason: error.reason) }
        // One character a line, ended by LF or CR LF (Swift reads CR LF as one character).
        var lines = String(decoding: text, as: UTF8.self).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.count > 100 else { throw .modelUnreadable(dictionaryPath, reason: "it has \(lines.count) characters") }
        characters = [""] + lines + [" "]
        self.options = options
        for session in [detector, classifier, recognizer] where session.inputNames.count != 1 || session.outputNames.count != 1 {
            throw .modelUnreadable(session.path, reason: "it has inputs \(session.inputNames) and outputs \(session.outputNames), not one of each")
        }
    }

    public func readText(in image: Image) throws(VisionError) -> [TextLine] {
        guard image.width > 0, image.height > 0 else { return [] }
        let photo = scaledPhoto(image)
        let (quads, faint) = try detect(photo)
        guard !quads.isEmpty else { return faint.map { Self.unreadLine(at: $0.bounds, in: photo) } }
        var crops = quads.map { photo.crop(along: $0) }
        let upsideDown = try turnUpsideDownLines(&crops)
        // Both ways up where the classifier had doubts: it turns some upright lines and is unsure of
        // others (a ball's printing, a photo held the wrong way); the reading the recogniser is surer
        // of wins. On the caption samples, a line it gave less than even odds of being upside down
        // was never read better turned; reading only the others again saves three fifths of the rereads.
        var best = try recognize(crops)
        let unsure = best.indices.filter { best[$0].confidence < options.sureConfidence && upsideDown[$0] >= 0.5 }
        if !unsure.isEmpty {
            let turned = try recognize(unsure.map { crops[$0].rotated180() })
            for (index, read) in zip(unsure, turned) where read.isBetter(than: best[index]) { best[index] = read }
        }
        // A small line with a character the recogniser was not sure of is read again from a crop with a
        // margin around its box (the detector's box can cut a letter's edge), both ways up, and the
        // best of the readings is kept.
        if options.rereadsDoubtfulLines {
            // Not a line the recogniser could not read at all (a mean under 0.5): no margin makes it legible.
            // Only small print (under the recogniser's 48 pixels, which it enlarges): a tall line
            // already gives it every pixel it can use, and a 12 MP page's lines would cost it twice.
            let doubtful = best.indices.filter {
                best[$0].weakest < options.sureCharacter && best[$0].confidence >= max(0.5, options.minConfidence) && crops[$0].height < Self.lineHeight
            }
            if !doubtful.isEmpty {
                var again: [RGBPixels] = []
                for index in doubtful {
                    let wider = photo.crop(along: quads[index].expanded(by: options.rereadMargin))
                    let upright = upsideDown[index] > 0.9 ? wider.rotated180() : wider
                    again += [upright, upright.rotated180()]
                }
                let read = try recognize(again)
                for (number, index) in doubtful.enumerated() {
                    for candidate in read[(number * 2)..<(number * 2 + 2)] where candidate.isBetter(than: best[index]) { best[index] = candidate }
                }
            }
        }
        var kept: [(bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), read: Reading)] = []
        var seen = Set<String>()
        for (quad, read) in zip(quads, best) {
            var read = read
            read.respaced(WordSpacing.spaced(read.text.trimmingSpaces))
            guard read.confidence >= options.minConfidence,
                  read.text.unicodeScalars.filter({ $0.properties.isAlphabetic || $0.properties.numericType != nil }).count >= options.minCharacters,
                  seen.insert(read.text).inserted else { continue }
            kept.append((quad.bounds, read))
        }
        return Self.joiningWords(kept).map { bounds, read in
            var line = Self.unreadLine(at: bounds, in: photo)
            (line.text, line.confidence, line.weakestCharacter) = (read.text, read.confidence, read.weakest)
            line.characterProbabilities = read.probabilities.count == read.text.count ? read.probabilities : []
            return line
        }
    }

    /// A line with nothing read yet, at `bounds` in the pixels of `photo`, in normalised coordinates.
    private static func unreadLine(at bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), in photo: RGBPixels) -> TextLine {
        let width = Double(photo.width), height = Double(photo.height)
        let left = max(0, bounds.minX) / width, top = max(0, bounds.minY) / height
        return TextLine(text: "", confidence: 0, x: left, y: top, width: min(1, bounds.maxX / width) - left, height: min(1, bounds.maxY / height) - top)
    }

    /// Boxes the detector split on one line of print ("HENRY" and "BECK" of "HENRY BECK"), joined
    /// left to right with a space: each read with a mean confidence of 0.9 or more (a box of noise
    /// beside a word would spoil it), of a similar height (within 1.4x), overlapping by 60% of the
    /// smaller height, and at most that height apart. Reading order is kept otherwise.
    static func joiningWords(_ lines: [(bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), read: Reading)])
        -> [(bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), read: Reading)] {
        var lines = lines
        var joined = true
        while joined {
            joined = false
            search: for a in lines.indices {
                for b in lines.indices where b != a {
                    let left = lines[a].bounds, right = lines[b].bounds
                    let leftHeight = left.maxY - left.minY, rightHeight = right.maxY - right.minY
                    let smaller = min(leftHeight, rightHeight), larger = max(leftHeight, rightHeight)
                    guard lines[a].read.confidence >= 0.9, lines[b].read.confidence >= 0.9,
                          smaller > 0, larger <= smaller * 1.4, left.minX < right.minX,
                          min(left.maxY, right.maxY) - max(left.minY, right.minY) >= 0.6 * smaller,
                          right.minX - left.maxX <= smaller, right.minX - left.maxX >= -0.3 * smaller else { continue }
                    let first = lines[a].read, second = lines[b].read
                    let characters = Float(max(1, first.text.count)), more = Float(max(1, second.text.count))
                    let read = Reading(text: first.text + " " + second.text,
                                       confidence: (first.confidence * characters + second.confidence * more) / (characters + more),
                                       weakest: min(first.weakest, second.weakest), probabilities: first.probabilities + [1] + second.probabilities)
                    let bounds = (min(left.minX, right.minX), min(left.minY, right.minY), max(left.maxX, right.maxX), max(left.maxY, right.maxY))
                    lines[min(a, b)] = (bounds, read)
                    lines.remove(at: max(a, b))
                    joined = true
                    break search
                }
            }
        }
        return lines
    }

    /// How many lines of text the detector finds in `image`, without reading them (the first of the
    /// reader's two costs; `memora-bench` splits a description's time with it).
    public func lineCount(in image: Image) throws(VisionError) -> Int {
        guard image.width > 0, image.height > 0 else { return 0 }
        return try detect(scaledPhoto(image)).lines.count
    }

    /// The photo the boxes refer to and the lines are cut from: at most ``Options/maxSide`` on its longer side.
    private func scaledPhoto(_ image: Image) -> RGBPixels {
        let photo = RGBPixels(image)
        let longer = max(photo.width, photo.height)
        guard longer > options.maxSide else { return photo }
        let scale = Double(options.maxSide) / Double(longer)
        return photo.resized(width: max(1, Int((Double(photo.width) * scale).rounded())), height: max(1, Int((Double(photo.height) * scale).rounded())))
    }

    /// The text boxes of `photo`, in its pixels, and when there is none and
    /// ``Options/faintLineThreshold`` is set, the boxes the detector is only that sure of.
    private func detect(_ photo: RGBPixels) throws(VisionError) -> (lines: [TextQuad], faint: [TextQuad]) {
        let shorter = min(photo.width, photo.height), longer = max(photo.width, photo.height)
        // Scaled up to detectorMinSide on the shorter side, but never past maxSide x 2 on the longer
        // one (a long thin strip would otherwise ask for gigabytes).
        let scale = min(shorter < options.detectorMinSide ? Double(options.detectorMinSide) / Double(shorter) : 1,
                        max(1, Double(options.maxSide * 2) / Double(longer)),
                        longer > options.detectorMaxSide ? Double(options.detectorMaxSide) / Double(longer) : .infinity)
        func multipleOf32(_ value: Double) -> Int { max(32, Int((value / 32).rounded(.toNearestOrEven)) * 32) }
        let width = multipleOf32(Double(photo.width) * scale), height = multipleOf32(Double(photo.height) * scale)
        let input = photo.tensor(width: width, height: height, paddedWidth: width)
        let map = try detector.run(input, shape: [1, 3, Int64(height), Int64(width)], inputName: detector.inputNames[0], outputNames: detector.outputNames)
        guard let probabilities = map.first, probabilities.count == width * height else {
            throw .inferenceFailed("\(detector.path) gave \(map.first?.count ?? 0) values for a \(width)x\(height) image")
        }
        let sx = Double(photo.width) / Double(width), sy = Double(photo.height) / Double(height)
        func inPhoto(_ quads: [TextQuad]) -> [TextQuad] {
            quads.compactMap { quad in
                let corners = quad.corners.map { corner in
                    SIMD2(min(max((corner.x * sx).rounded(), 0), Double(photo.width - 1)), min(max((corner.y * sy).rounded(), 0), Double(photo.height - 1)))
                }
                func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
                guard distance(corners[0], corners[1]) > 3, distance(corners[0], corners[3]) > 3 else { return nil }
                return TextQuad(corners: corners)
            }
        }
        let lines = inPhoto(regions.regions(in: probabilities, width: width, height: height))
        guard lines.isEmpty, let faint = options.faintLineThreshold else { return (lines, []) }
        return (lines, inPhoto(regions.regions(in: probabilities, width: width, height: height, boxThreshold: faint)))
    }

    /// Turns half a turn every line the classifier is sure (> 0.9) is upside down; returns, for
    /// each line, the classifier's probability that it was.
    private func turnUpsideDownLines(_ crops: inout [RGBPixels]) throws(VisionError) -> [Float] {
        let lines = crops
        let batches = batches(of: Array(lines.indices))
        let upsideDown = try ParallelWork.map(batches.count, workers: options.threads) { (number: Int) throws(VisionError) -> [Float] in
            let batch = batches[number]
            var input: [Float] = []
            input.reserveCapacity(batch.count * 3 * Self.lineHeight * Self.classifierWidth)
            for index in batch { input += lines[index].lineTensor(maxWidth: Self.classifierWidth, paddedWidth: Self.classifierWidth) }
            let output = try classifier.run(input, shape: [Int64(batch.count), 3, Int64(Self.lineHeight), Int64(Self.classifierWidth)],
                                            inputName: classifier.inputNames[0], outputNames: classifier.outputNames)
            guard let scores = output.first, scores.count == batch.count * 2 else { throw .inferenceFailed("\(classifier.path) gave an unexpected output") }
            return (0..<batch.count).map { scores[$0 * 2 + 1] }
        }.flatMap { $0 }
        for (index, probability) in upsideDown.enumerated() where probability > 0.9 { crops[index] = crops[index].rotated180() }
        return upsideDown
    }

    /// `indices` in batches of at most ``batchSize``, as many as there are threads when there are
    /// fewer lines than that (a photo with five lines is read as three and two, one on each core).
    private func batches(of indices: [Int]) -> [[Int]] {
        let workers = max(1, options.threads)
        let size = max(1, min(Self.batchSize, (indices.count + workers - 1) / workers))
        return stride(from: 0, to: indices.count, by: size).map { Array(indices[$0..<min(indices.count, $0 + size)]) }
    }

    /// Each crop's text and confidence, in the crops' order. Lines are read in batches of similar
    /// widths (sorted by their width over height), each batch padded to its widest line.
    private func recognize(_ crops: [RGBPixels]) throws(VisionError) -> [Reading] {
        let order = crops.indices.sorted { crops[$0].aspect < crops[$1].aspect }
        let batches = batches(of: order)
        let classes = characters.count
        let read = try ParallelWork.map(batches.count, workers: options.threads) { (number: Int) throws(VisionError) -> [Reading] in
            let batch = batches[number]
            let widest = max(Double(Self.minRecognizerWidth) / Double(Self.lineHeight), batch.map { crops[$0].aspect }.max() ?? 0)
            let width = Int(Double(Self.lineHeight) * widest)
            var input: [Float] = []
            input.reserveCapacity(batch.count * 3 * Self.lineHeight * width)
            for index in batch { input += crops[index].lineTensor(maxWidth: width, paddedWidth: width) }
            let output = try recognizer.run(input, shape: [Int64(batch.count), 3, Int64(Self.lineHeight), Int64(width)],
                                            inputName: recognizer.inputNames[0], outputNames: recognizer.outputNames)
            guard let probabilities = output.first, probabilities.count % (batch.count * classes) == 0 else {
                throw .inferenceFailed("\(recognizer.path) gave \(output.first?.count ?? 0) values, not a multiple of \(classes) classes")
            }
            let steps = probabilities.count / (batch.count * classes)
            return batch.indices.map { CTCDecoder.decode(probabilities, offset: $0 * steps * classes, steps: steps, characters: characters) }
        }
        var results = [Reading](repeating: Reading(text: "", confidence: 0, weakest: 0, probabilities: []), count: crops.count)
        for (batch, texts) in zip(batches, read) {
            for (index, text) in zip(batch, texts) { results[index] = text }
        }
        return results
    }
}

/// Greedy CTC decoding: the most likely class at each step, repeats merged, blanks (class 0) dropped.
enum CTCDecoder {
    /// The text, the mean probability of the kept characters, the probability of the least sure
    /// one and each one's (a character held over several steps counts with its surest step); 0 and
    /// 0 when nothing is kept.
    static func decode(_ probabilities: [Float], offset: Int, steps: Int, characters: [String]) -> Reading {
        let classes = characters.count
        var text = "", kept: [Float] = [], lengths: [Int] = [], previous = -1
        for step in 0..<steps {
            let base = offset + step * classes
            var best = 0, bestValue = -Float.infinity
            for index in 0..<classes where probabilities[base + index] > bestValue {
                best = index
                bestValue = probabilities[base + index]
            }
            defer { previous = best }
            if best == previous, best != 0, !kept.isEmpty {
                kept[kept.count - 1] = max(kept[kept.count - 1], bestValue)
                continue
            }
            guard best != 0 else { continue }
            text += characters[best]
            kept.append(bestValue)
            lengths.append(characters[best].count)
        }
        guard !kept.isEmpty else { return Reading(text: text, confidence: 0, weakest: 0, probabilities: []) }
        // A class is one character of the dictionary; should one hold more, each of them takes its probability.
        let each = zip(kept, lengths).flatMap { Array(repeating: $0, count: $1) }
        return Reading(text: text, confidence: kept.reduce(0, +) / Float(kept.count), weakest: kept.min() ?? 0, probabilities: each)
    }
}

/// What the recogniser made of one line.
struct Reading: Sendable {
    /// The characters read.
    var text: String
    /// Their mean probability.
    var confidence: Float
    /// The least sure character's probability.
    var weakest: Float
    /// Each character's probability, one for each `Character` of ``text`` (a space put in after
    /// reading counts 1: nothing was read there; empty when not known).
    var probabilities: [Float] = []

    /// Whether this reading is better than `other`: its least sure character is surer (a reading
    /// with one guessed letter loses to one without), the mean deciding a near tie.
    func isBetter(than other: Reading) -> Bool {
        abs(weakest - other.weakest) > 0.02 ? weakest > other.weakest : confidence > other.confidence + 0.02
    }

    /// The text replaced by `spaced`: the same characters with spaces trimmed at the ends or put
    /// in between; each kept character keeps its probability, a space put in counts 1.
    mutating func respaced(_ spaced: String) {
        let old = Array(text)
        guard old.count == probabilities.count else {
            text = spaced
            probabilities = []
            return
        }
        var aligned: [Float] = []
        aligned.reserveCapacity(spaced.count)
        var index = 0
        for character in spaced {
            while index < old.count, old[index] != character, old[index].isWhitespace { index += 1 }
            if index < old.count, old[index] == character {
                aligned.append(probabilities[index])
                index += 1
            } else {
                aligned.append(1)
            }
        }
        text = spaced
        probabilities = aligned
    }
}

extension TextQuad {
    /// The quad pushed out by `share` of its thickness (its shorter side) on every side, along its own sides.
    func expanded(by share: Double) -> TextQuad {
        let p = corners
        func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
        let acrossVector = p[1] - p[0], downVector = p[3] - p[0]
        let across = acrossVector / max(1e-9, length(acrossVector)), down = downVector / max(1e-9, length(downVector))
        let margin = share * min(length(acrossVector), length(downVector))
        let a = across * margin, d = down * margin
        return TextQuad(corners: [p[0] - a - d, p[1] + a - d, p[2] + a + d, p[3] - a + d])
    }
}

/// Upright RGB pixels the reader cuts and scales (bilinear, pixel centres as OpenCV's).
struct RGBPixels: Sendable {
    var width: Int
    var height: Int
    var bytes: [UInt8]

    init(width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    init(_ image: Image) {
        let rgb = image.pixelFormat == .rgb8 ? image : image.converted(to: .rgb8)
        self.init(width: rgb.width, height: rgb.height, bytes: rgb.pixels)
    }

    var aspect: Double { Double(width) / Double(max(1, height)) }

    /// The colour at `(x, y)` (pixel centres at integers), bilinear, edges repeated.
    @inline(__always)
    func sample(_ x: Double, _ y: Double) -> SIMD3<Float> {
        let cx = min(max(x, 0), Double(width - 1)), cy = min(max(y, 0), Double(height - 1))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        func pixel(_ px: Int, _ py: Int) -> SIMD3<Float> {
            let at = (py * width + px) * 3
            return SIMD3(Float(bytes[at]), Float(bytes[at + 1]), Float(bytes[at + 2]))
        }
        let top = pixel(x0, y0) * (1 - fx) + pixel(x1, y0) * fx
        let bottom = pixel(x0, y1) * (1 - fx) + pixel(x1, y1) * fx
        return top * (1 - fy) + bottom * fy
    }

    func resized(width newWidth: Int, height newHeight: Int) -> RGBPixels {
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        out.withUnsafeMutableBufferPointer { out in
            scaled(width: newWidth, height: newHeight) { x, y, value in
                let at = (y * newWidth + x) * 3
                out[at] = UInt8(min(255, max(0, value.x.rounded())))
                out[at + 1] = UInt8(min(255, max(0, value.y.rounded())))
                out[at + 2] = UInt8(min(255, max(0, value.z.rounded())))
            }
        }
        return RGBPixels(width: newWidth, height: newHeight, bytes: out)
    }

    /// Every pixel of the image scaled to `newWidth` x `newHeight`, as ``sample(_:_:)`` gives it, with
    /// each row's and column's source pixels and weights worked out once (the detector's input is a
    /// million pixels).
    @inline(__always)
    private func scaled(width newWidth: Int, height newHeight: Int, _ body: (Int, Int, SIMD3<Float>) -> Void) {
        func taps(_ count: Int, from source: Int) -> [(Int, Int, Float)] {
            let scale = Double(source) / Double(count)
            return (0..<count).map { index in
                let at = min(max((Double(index) + 0.5) * scale - 0.5, 0), Double(source - 1))
                let first = Int(at)
                return (first, min(first + 1, source - 1), Float(at - Double(first)))
            }
        }
        let columns = taps(newWidth, from: width), rows = taps(newHeight, from: height)
        bytes.withUnsafeBufferPointer { bytes in
            func pixel(_ row: Int, _ column: Int) -> SIMD3<Float> {
                let at = row + column * 3
                return SIMD3(Float(bytes[at]), Float(bytes[at + 1]), Float(bytes[at + 2]))
            }
            for (y, (top, bottom, fy)) in rows.enumerated() {
                let upper = top * width * 3, lower = bottom * width * 3
                for (x, (left, right, fx)) in columns.enumerated() {
                    let above = pixel(upper, left) * (1 - fx) + pixel(upper, right) * fx
                    let below = pixel(lower, left) * (1 - fx) + pixel(lower, right) * fx
                    body(x, y, above * (1 - fy) + below * fy)
                }
            }
        }
    }

    /// The pixels scaled to `width` x `height` as the models take them: blue, green and red planes
    /// (PaddleOCR's models were trained on OpenCV's BGR order), `(v / 255 - 0.5) / 0.5`, each row
    /// padded with zeros to `paddedWidth`.
    func tensor(width targetWidth: Int, height targetHeight: Int, paddedWidth: Int) -> [Float] {
        let plane = targetHeight * paddedWidth
        var tensor = [Float](repeating: 0, count: 3 * plane)
        tensor.withUnsafeMutableBufferPointer { tensor in
            scaled(width: targetWidth, height: targetHeight) { x, y, colour in
                let value = colour / 127.5 - 1
                let at = y * paddedWidth + x
                tensor[at] = value.z
                tensor[plane + at] = value.y
                tensor[2 * plane + at] = value.x
            }
        }
        return tensor
    }

    /// The line at 48 pixels high, its width in proportion up to `maxWidth`, padded to `paddedWidth`.
    func lineTensor(maxWidth: Int, paddedWidth: Int) -> [Float] {
        let height = PaddleTextReader.lineHeight
        let width = min(maxWidth, max(1, Int((Double(height) * aspect).rounded(.up))))
        return tensor(width: width, height: height, paddedWidth: paddedWidth)
    }

    /// The pixels inside `quad`, straightened: `quad`'s first side becomes the top row.
    /// A line standing taller than wide (1.5x) is turned a quarter counter-clockwise.
    func crop(along quad: TextQuad) -> RGBPixels {
        let p = quad.corners
        func length(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        let w = max(1, Int(max(length(p[0], p[1]), length(p[2], p[3])))), h = max(1, Int(max(length(p[0], p[3]), length(p[1], p[2]))))
        let across = (p[1] - p[0]) / Double(w), down = (p[3] - p[0]) / Double(h)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for v in 0..<h {
            for u in 0..<w {
                let source = p[0] + across * Double(u) + down * Double(v)
                let value = sample(source.x, source.y)
                let at = (v * w + u) * 3
                out[at] = UInt8(min(255, max(0, value.x.rounded())))
                out[at + 1] = UInt8(min(255, max(0, value.y.rounded())))
                out[at + 2] = UInt8(min(255, max(0, value.z.rounded())))
            }
        }
        let line = RGBPixels(width: w, height: h, bytes: out)
        return Double(h) / Double(w) >= 1.5 ? line.rotatedQuarterCounterClockwise() : line
    }

    func rotated180() -> RGBPixels {
        var out = bytes
        let count = width * height
        for index in 0..<count {
            let from = index * 3, to = (count - 1 - index) * 3
            out[to] = bytes[from]
            out[to + 1] = bytes[from + 1]
            out[to + 2] = bytes[from + 2]
        }
        return RGBPixels(width: width, height: height, bytes: out)
    }

    func rotatedQuarterCounterClockwise() -> RGBPixels {
        var out = [UInt8](repeating: 0, count: bytes.count)
        // The new image is height wide and width high; source (x, y) goes to (y, width - 1 - x).
        for y in 0..<height {
            for x in 0..<width {
                let from = (y * width + x) * 3, to = ((width - 1 - x) * height + y) * 3
                out[to] = bytes[from]
                out[to + 1] = bytes[from + 1]
                out[to + 2] = bytes[from + 2]
            }
        }
        return RGBPixels(width: height, height: width, bytes: out)
    }
}

extension String {
    /// The string without spaces at either end.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
