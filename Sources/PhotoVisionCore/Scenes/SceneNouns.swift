/// Plain English nouns for the scene model's ImageNet classes, the words a person uses to name a
/// photo's main subject ("dog", not "Border collie"; "horse", not "sorrel"). The tables are
/// generated into `SceneNouns+Table.swift` by `scripts/vision/make-scene-nouns.py` from WordNet 3.0's
/// hypernyms and a reviewed list of overrides.
///
/// A subject is named only when the classes that share its noun hold at least
/// ``minimumProbability`` together: below it the model is as often wrong as right, and saying
/// nothing is better than saying something wrong (Docs/Vision.md, "Naming the subject").
public enum SceneNouns {
    /// The summed probability a noun needs to be named: 0.30, measured on 89 labelled photos
    /// (`scripts/vision/measure-scene-gate.py`): 94% of the nouns named are right, and 87% of the
    /// photos get one; below 0.25 most of what is named on photos of people is wrong.
    public static let minimumProbability: Float = 0.30

    /// The summed probability at which a named noun is said plainly: 0.60. Below it the noun is
    /// said as a possibility ("Possibly a typewriter."), so that a listener knows to doubt it. On
    /// the same 89 photos, 63 of the 65 nouns at 0.60 or more are right (97%), but only 9 of the 12
    /// between 0.30 and 0.60 (75%); on the 11 photos scikit-image installs, 3 of 4 and none of 3.
    public static let sureProbability: Float = 0.60

    /// The noun of class `index` ("" when the class is never a subject, nil outside the table).
    public static func noun(ofClass index: Int) -> String? {
        table.indices.contains(index) ? table[index] : nil
    }

    /// The most likely subject of a photo from the model's probabilities over all its classes (in
    /// the table's order): the noun whose classes hold the most probability together, when that is
    /// at least `minimum`; nil otherwise, or when the probabilities are not one per class.
    public static func subject(probabilities: [Float], minimum: Float = minimumProbability) -> SceneSubject? {
        guard probabilities.count == table.count else { return nil }
        var mass: [String: Float] = [:]
        var firstClass: [String: Int] = [:]
        for (index, probability) in probabilities.enumerated() where !table[index].isEmpty {
            mass[table[index], default: 0] += probability
            if firstClass[table[index]] == nil { firstClass[table[index]] = index }
        }
        guard let best = mass.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }), best.value >= minimum,
              let index = firstClass[best.key] else { return nil }
        return SceneSubject(noun: best.key, probability: best.value, isMassNoun: massNoun[index], group: groups[index].isEmpty ? nil : groups[index])
    }
}

/// The main subject a scene model names: a plain noun and how sure it is.
public struct SceneSubject: Sendable, Hashable, Codable {
    /// The noun, singular, as it follows "a" or "an" ("dog", "carved pumpkin"), or a mass noun ("hay").
    public var noun: String
    /// The summed probability of the classes that share the noun, 0...1.
    public var probability: Float
    /// True when the noun takes no article ("hay", "bubbles").
    public var isMassNoun: Bool
    /// A coarser word for the kind of subject ("dog", "bird", "food"), when there is one.
    public var group: String?

    /// A subject.
    public init(noun: String, probability: Float, isMassNoun: Bool = false, group: String? = nil) {
        self.noun = noun
        self.probability = probability
        self.isMassNoun = isMassNoun
        self.group = group
    }

    /// Whether the model is sure enough for the noun to be said plainly (``SceneNouns/sureProbability``),
    /// not as a possibility.
    public var isSure: Bool { probability >= SceneNouns.sureProbability }

    /// The noun with its article: "a dog", "an owl", "an hourglass", "a unicycle", "hay".
    public var withArticle: String {
        if isMassNoun { return noun }
        let lower = noun.lowercased()
        let exceptionsAn = ["hour", "honest", "heir"], exceptionsA = ["uni", "use", "usu", "uten", "euro", "one", "ewe", "u-"]
        if exceptionsAn.contains(where: lower.hasPrefix) { return "an " + noun }
        if exceptionsA.contains(where: lower.hasPrefix) { return "a " + noun }
        return (["a", "e", "i", "o", "u"].contains(where: lower.hasPrefix) ? "an " : "a ") + noun
    }
}
