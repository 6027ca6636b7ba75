/// Where a photo was taken, in a person's words, when the scene model's ImageNet place classes say
/// so: "by the sea", "in the mountains", "in a bookshop" (Docs/Vision.md, "Saying where").
///
/// The classes that share a phrase have their probabilities summed over the model's top labels; a
/// place is said only when that sum reaches ``minimumProbability``, measured on the caption and
/// scene samples: below it the place named is too often wrong to be said.
public enum ScenePlaces {
    /// The summed probability a place needs to be said (Docs/Vision.md gives the curve it was chosen from).
    public static let minimumProbability: Float = 0.3

    /// Each place class (its index in the model's output, ImageNet's order) and its phrase.
    static let phrases: [Int: String] = [
        978: "by the sea", 977: "by the sea", 976: "by the sea", 975: "by a lake", 970: "in the mountains", 979: "in a valley",
        972: "by a cliff", 980: "by a volcano", 973: "on a coral reef",
        624: "in a library", 454: "in a bookshop", 762: "in a restaurant", 582: "in a grocery store", 424: "in a barbershop",
        415: "in a bakery", 467: "in a butcher's shop", 788: "in a shoe shop", 865: "in a toyshop", 509: "in a sweet shop",
        497: "at a church", 706: "on a patio", 580: "in a greenhouse", 536: "at a dock", 718: "on a pier", 819: "on a stage",
        483: "at a castle", 698: "at a palace", 663: "at a monastery", 668: "at a mosque", 425: "by a barn",
    ]

    /// The place the `labels` (class index and probability) name, with its summed probability, when it
    /// reaches `minimum`; nil otherwise. A place whose classes are the `subject`'s own (a photo of a
    /// beach is not "a beach by the sea") is not said.
    public static func place(of labels: [(classIndex: Int, probability: Float)], subject: SceneSubject? = nil,
                             minimum: Float = minimumProbability) -> (phrase: String, probability: Float)? {
        var mass: [String: Float] = [:]
        for label in labels {
            guard let phrase = phrases[label.classIndex] else { continue }
            if let subject, SceneNouns.noun(ofClass: label.classIndex) == subject.noun { continue }
            mass[phrase, default: 0] += label.probability
        }
        guard let best = mass.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }), best.value >= minimum else { return nil }
        return (best.key, best.value)
    }
}
