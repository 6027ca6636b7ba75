/// Theme words for ImageNet classes (the seeds' "beaches, mountains, food"): the documented
/// mapping that names a photo's theme, and a cluster of photos after the theme most of them show.
/// Classes are given by their index in the 1000 ImageNet classes (torchvision's order, the order of
/// `scene/imagenet-labels.txt`); a class not listed has no theme.
public enum SceneThemes {
    /// The theme words, in the order `memora index stats` lists them.
    public static let all = ["beach", "mountains", "snow", "food", "dogs", "cats", "birds", "flowers", "buildings", "cars", "boats"]

    /// The theme of ImageNet class `index`, if it has one.
    public static func theme(ofClass index: Int) -> String? {
        for (theme, ranges) in classes where ranges.contains(where: { $0.contains(index) }) { return theme }
        return nil
    }

    /// The theme with the most probability among `labels` (their class indices and probabilities),
    /// when it holds at least `minimum` of it.
    public static func theme(of labels: [(classIndex: Int, probability: Float)], minimum: Float = 0.2) -> String? {
        var mass: [String: Float] = [:]
        for label in labels { if let theme = theme(ofClass: label.classIndex) { mass[theme, default: 0] += label.probability } }
        guard let best = mass.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }), best.value >= minimum else { return nil }
        return best.key
    }

    /// Each theme's classes (ImageNet indices, inclusive ranges).
    static let classes: [(String, [ClosedRange<Int>])] = [
        // seashore, sandbar, promontory, lakeside, coral reef; breakwater, pier; swimming trunks, bikini, sarong.
        ("beach", [978...978, 977...977, 976...976, 975...975, 973...973, 460...460, 718...718, 842...842, 445...445, 775...775]),
        // alp, cliff, valley, volcano; mountain tent, ibex, bighorn, dam.
        ("mountains", [970...970, 972...972, 979...979, 980...980, 672...672, 350...350, 349...349, 525...525]),
        // ski, snowmobile, snowplow, dogsled; ice bear, white wolf, Arctic fox.
        ("snow", [795...795, 802...802, 803...803, 537...537, 296...296, 270...270, 279...279]),
        // plate to eggnog (dishes, fruit, vegetables, drinks), and the bakery, butcher shop, grocery store.
        ("food", [923...969, 415...415, 467...467, 582...582]),
        ("dogs", [151...268]),
        ("cats", [281...285]),
        ("birds", [7...24, 80...100, 127...146]),
        // daisy, yellow lady's slipper; greenhouse, pot (flowerpot), vase, picket fence, rapeseed.
        ("flowers", [985...985, 986...986, 580...580, 738...738, 883...883, 716...716, 984...984]),
        // bell cote, boathouse, castle, church, dome, monastery, mosque, palace, stupa, triumphal arch, library, cinema.
        ("buildings", [442...442, 449...449, 483...483, 497...497, 538...538, 663...663, 668...668, 698...698, 832...832, 873...873, 624...624, 498...498]),
        // ambulance, beach wagon, cab, convertible, jeep, limousine, minivan, Model T, pickup, racer, sports car, grille.
        ("cars", [407...407, 436...436, 468...468, 511...511, 609...609, 627...627, 656...656, 661...661, 717...717, 751...751, 817...817, 581...581]),
        // canoe, catamaran, fireboat, gondola, lifeboat, liner, paddle, schooner, speedboat, trimaran, yawl.
        ("boats", [472...472, 484...484, 554...554, 576...576, 625...625, 628...628, 693...693, 780...780, 814...814, 871...871, 914...914]),
    ]
}
