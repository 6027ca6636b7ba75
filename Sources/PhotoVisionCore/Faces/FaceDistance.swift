/// How far apart two faces' embeddings are (dlib's 128 floats, Euclidean), and how far apart two
/// faces of one person may be.
///
/// Measured on 75 labelled photos of 18 people (Docs/PhotoIndex.md, "Choosing the distance"):
/// one person's faces were 0.26–0.61 apart (median 0.39), different people's 0.51–1.12 (median
/// 0.89). Within 0.5: 93.5% of same-person pairs and none of 2,621 different-person pairs; within
/// 0.6 (what dlib documents for this network): 99.4%, and 7 different-person pairs, enough for a
/// chain of faces to merge two people.
public enum FaceDistance {
    /// The largest distance at which two faces are put in one person without asking: no
    /// different-person pair of the measurement was this close.
    public static let samePerson = 0.5
    /// The largest distance at which faces no person has are offered as one person for a person to
    /// accept (dlib's documented threshold): it finds nearly every pair, and a person decides.
    public static let likelySamePerson = 0.6

    /// The Euclidean distance between two embeddings (of one length; extra values of the longer are ignored).
    public static func between(_ a: [Float], _ b: [Float]) -> Float {
        var sum: Float = 0
        for index in 0..<min(a.count, b.count) {
            let difference = a[index] - b[index]
            sum += difference * difference
        }
        return sum.squareRoot()
    }
}
