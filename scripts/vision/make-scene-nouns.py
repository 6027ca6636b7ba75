#!/usr/bin/env python3
"""Generate Sources/PhotoVisionCore/Scenes/SceneNouns+Table.swift: a plain English noun for each of the
1000 ImageNet classes of the scene model, the words a person uses to name a photo's main subject.

  scripts/vision/make-scene-nouns.py [--wordnet DIR] [--labels FILE] [--review FILE] [--check]

How a class gets its noun:
  1. The classes are WordNet 3.0 noun synsets (wnid = "n" + the 8-digit offset in data.noun). Their
     order, torchvision's (logit n is line n), is read from `timm/data/_info/imagenet_synsets.txt`
     inside a pinned wheel of PyPI's timm (downloaded with `pip download --no-deps` into
     ~/.cache/memora/pip-wn and checked against its SHA-256; timm is not installed, nothing of it runs).
  2. WordNet comes from Debian's `wordnet-base` (`apt-get install -y wordnet-base`): data.noun for the
     synsets and their hypernyms (@ and @i), index.noun to resolve the sense names used below.
  3. NOUN_RULES name "basic-level" synsets (dog.n.01 -> "dog"): a class takes the noun of the nearest
     rule synset among itself and its hypernyms (all paths; ties go to the earlier rule). A class
     that no rule reaches keeps its own first WordNet lemma.
  4. scripts/vision/scene-nouns-overrides.tsv replaces the noun (and optionally the group) of single
     classes, by wnid, where the rule or the lemma is not what a person would say, or marks a class
     that is never a photo's subject ("-").
  GROUP_RULES give each class a coarser group ("dog", "bird", "food", ...): the first rule, in the
  list's order, that is among the class's hypernyms.

A noun with a leading "~" (in the rules or the overrides) is a mass noun: it takes no article
("hay", "guacamole"). The Swift file carries it as `massNoun[i] == true` and the noun without "~".

--review writes a TSV for reading by a person: index, wnid, torchvision label, WordNet lemma,
noun, group, and the rule that chose the noun. --check only compares the generated Swift with the
committed file (exit 1 when they differ).
"""
import argparse, hashlib, os, subprocess, sys, zipfile
from collections import deque

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SWIFT_OUT = os.path.join(ROOT, "Sources/PhotoVisionCore/Scenes/SceneNouns+Table.swift")
OVERRIDES = os.path.join(HERE, "scene-nouns-overrides.tsv")

TIMM_VERSION = "1.0.31"
TIMM_WHEEL = f"timm-{TIMM_VERSION}-py3-none-any.whl"
TIMM_SHA256 = "5bd50f7d0fe6d09bf9285ac2523234a1b7e6bf075c0be3e7aed09139fcb617c7"
TIMM_MEMBER = "timm/data/_info/imagenet_synsets.txt"

# (sense, noun): the nearest of these among a class and its hypernyms names the class.
NOUN_RULES = [
    # Mammals.
    ("dog.n.01", "dog"), ("domestic_cat.n.01", "cat"), ("wolf.n.01", "wolf"), ("fox.n.01", "fox"),
    ("wild_dog.n.01", "wild dog"), ("bear.n.01", "bear"), ("monkey.n.01", "monkey"),
    ("rabbit.n.01", "rabbit"), ("squirrel.n.01", "squirrel"), ("horse.n.01", "horse"),
    ("swine.n.01", "pig"), ("cattle.n.01", "cow"), ("sheep.n.01", "sheep"), ("wild_sheep.n.01", "sheep"),
    ("antelope.n.01", "antelope"), ("camel.n.01", "camel"), ("elephant.n.01", "elephant"),
    ("whale.n.02", "whale"), ("seal.n.09", "seal"), ("kangaroo.n.01", "kangaroo"),
    ("gibbon.n.02", "gibbon"), ("lesser_ape.n.01", "gibbon"), ("lemur.n.01", "lemur"),
    # Birds: "bird", except the ones a person names.
    ("bird.n.01", "bird"), ("game_bird.n.01", "bird"), ("parrot.n.01", "parrot"), ("owl.n.01", "owl"),
    ("eagle.n.01", "eagle"), ("vulture.n.01", "vulture"), ("penguin.n.01", "penguin"),
    ("duck.n.01", "duck"), ("goose.n.01", "goose"), ("swan.n.01", "swan"), ("flamingo.n.01", "flamingo"),
    ("pelican.n.01", "pelican"), ("peafowl.n.01", "peacock"), ("hummingbird.n.01", "hummingbird"),
    ("toucan.n.01", "toucan"), ("stork.n.01", "stork"), ("heron.n.02", "heron"), ("ostrich.n.02", "ostrich"),
    # Fish and other water animals.
    ("fish.n.01", "fish"), ("shark.n.01", "shark"), ("ray.n.07", "ray"), ("goldfish.n.01", "goldfish"),
    ("crab.n.01", "crab"), ("lobster.n.02", "lobster"), ("jellyfish.n.02", "jellyfish"),
    # Reptiles, amphibians.
    ("snake.n.01", "snake"), ("lizard.n.01", "lizard"), ("chameleon.n.03", "chameleon"),
    ("gecko.n.01", "gecko"), ("turtle.n.02", "turtle"), ("crocodile.n.01", "crocodile"),
    ("alligator.n.02", "alligator"), ("dinosaur.n.01", "dinosaur"), ("frog.n.01", "frog"),
    ("salamander.n.01", "salamander"), ("newt.n.01", "newt"),
    # Invertebrates.
    ("spider.n.01", "spider"), ("beetle.n.01", "beetle"), ("butterfly.n.01", "butterfly"),
    ("odonate.n.01", "dragonfly"), ("worm.n.01", "worm"),
    # Vehicles and craft.
    ("car.n.01", "car"), ("bicycle.n.01", "bicycle"), ("locomotive.n.01", "train"), ("train.n.01", "train"),
    ("sailing_vessel.n.01", "sailing boat"), ("bus.n.01", "bus"),
    # Things with many kinds in ImageNet.
    ("clock.n.01", "clock"), ("guitar.n.01", "guitar"), ("piano.n.01", "piano"), ("camera.n.01", "camera"),
    ("bottle.n.01", "bottle"), ("jug.n.01", "jug"), ("bridge.n.01", "bridge"), ("fence.n.01", "fence"),
    ("shop.n.01", "shop"), ("chair.n.01", "chair"), ("portable_computer.n.01", "laptop"),
    ("fungus.n.01", "mushroom"), ("squash.n.02", "squash"), ("shoe.n.01", "shoe"),
    ("mountain.n.01", "mountain"),
]

# (sense, group): a coarser word for gathering photos into themes; "" where none helps. The first
# rule in this order whose synset is among a class's hypernyms wins (not the nearest: a whippet is
# also a "racer", an animal, two steps up, and is still a dog).
GROUP_RULES = [
    ("dog.n.01", "dog"), ("domestic_cat.n.01", "cat"), ("bird.n.01", "bird"), ("game_bird.n.01", "bird"),
    ("fish.n.01", "fish"), ("reptile.n.01", "reptile"), ("amphibian.n.03", "amphibian"),
    ("insect.n.01", "insect"), ("animal.n.01", "animal"),
    ("car.n.01", "car"), ("boat.n.01", "boat"), ("ship.n.01", "boat"), ("sailing_vessel.n.01", "boat"),
    ("aircraft.n.01", "aircraft"), ("train.n.01", "train"), ("locomotive.n.01", "train"),
    ("motor_vehicle.n.01", "vehicle"), ("public_transport.n.01", "vehicle"),
    ("self-propelled_vehicle.n.01", "vehicle"), ("bicycle.n.01", "bicycle"),
    ("musical_instrument.n.01", "musical instrument"), ("ball.n.01", "ball"),
    ("beverage.n.01", "drink"), ("food.n.01", "food"), ("food.n.02", "food"),
    ("flower.n.01", "flower"), ("fungus.n.01", "mushroom"),
    ("building.n.01", "building"), ("shop.n.01", "shop"),
    ("bridge.n.01", "bridge"), ("geological_formation.n.01", "landscape"),
]


def die(message):
    sys.exit(f"make-scene-nouns: {message}")


def read_wnids(cache):
    """The 1000 wnids in torchvision's order, from the pinned timm wheel."""
    wheel = os.path.join(cache, TIMM_WHEEL)
    if not os.path.exists(wheel):
        os.makedirs(cache, exist_ok=True)
        print(f"make-scene-nouns: downloading timm=={TIMM_VERSION} with pip into {cache}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "--disable-pip-version-check", "-q", "-d", cache, f"timm=={TIMM_VERSION}"], check=True)
    digest = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
    if digest != TIMM_SHA256:
        die(f"{wheel} has SHA-256 {digest}, expected {TIMM_SHA256}; delete it and run again")
    wnids = zipfile.ZipFile(wheel).read(TIMM_MEMBER).decode("ascii").split()
    if len(wnids) != 1000 or len(set(wnids)) != 1000 or not all(w.startswith("n") and len(w) == 9 for w in wnids):
        die(f"{TIMM_MEMBER} is not 1000 distinct wnids")
    return wnids


def read_wordnet(folder):
    """Noun synsets {offset: (lemmas, hypernym offsets)} and senses {"dog.n.01": offset}."""
    data = os.path.join(folder, "data.noun")
    if not os.path.exists(data):
        die(f"no {data}: apt-get install -y wordnet-base (or pass --wordnet)")
    synsets, version_ok = {}, False
    with open(data, encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                if "WordNet 3.0 Copyright" in line:
                    version_ok = True
                continue
            fields = line.split(" | ")[0].split()
            count = int(fields[3], 16)
            lemmas = [fields[4 + 2 * i] for i in range(count)]
            i = 4 + 2 * count
            pointers = int(fields[i]); i += 1
            hypernyms = []
            for _ in range(pointers):
                symbol, offset, pos = fields[i:i + 3]; i += 4
                if symbol in ("@", "@i") and pos == "n":
                    hypernyms.append(offset)
            synsets[fields[0]] = (lemmas, hypernyms)
    if not version_ok:
        die(f"{data} is not WordNet 3.0")
    senses = {}
    with open(os.path.join(folder, "index.noun"), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            fields = line.split()
            count = int(fields[2])
            for n, offset in enumerate(fields[-count:], 1):
                senses[f"{fields[0]}.n.{n:02d}"] = offset
    return synsets, senses


def ancestors(synsets, offset):
    """{offset: distance} over every hypernym path, the synset itself at 0."""
    seen = {offset: 0}
    queue = deque([offset])
    while queue:
        current = queue.popleft()
        for parent in synsets[current][1]:
            if parent not in seen:
                seen[parent] = seen[current] + 1
                queue.append(parent)
    return seen


def first(rules, senses, chain):
    """(value, sense) of the first rule whose synset is in chain."""
    for sense, value in rules:
        if senses[sense] in chain:
            return value, sense
    return None, None


def nearest(rules, senses, chain):
    """(value, sense) of the rule whose synset is nearest in chain; ties go to the earlier rule."""
    best = None
    for order, (sense, value) in enumerate(rules):
        distance = chain.get(senses[sense])
        if distance is not None and (best is None or (distance, order) < best[0]):
            best = ((distance, order), value, sense)
    return (best[1], best[2]) if best else (None, None)


def read_overrides(path, wnids):
    overrides = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) < 3:
                die(f"{path}:{number}: expected wnid, label, noun[, group][, note]")
            wnid, noun = fields[0], fields[2]
            group = fields[3] if len(fields) > 3 and fields[3] != "" else None
            if wnid not in wnids:
                die(f"{path}:{number}: {wnid} is not one of the 1000 classes")
            if wnid in overrides:
                die(f"{path}:{number}: {wnid} is given twice")
            overrides[wnid] = (noun, group, fields[1])
    return overrides


def swift_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def swift_source(rows):
    out = []
    out.append("// GENERATED by scripts/vision/make-scene-nouns.py from WordNet 3.0 (Debian's wordnet-base:")
    out.append("// hypernyms in data.noun), the class order of timm " + TIMM_VERSION + "'s imagenet_synsets.txt and")
    out.append("// scripts/vision/scene-nouns-overrides.tsv. Do not edit: change the rules or the overrides and run")
    out.append("// the script again.")
    out.append("//")
    out.append("// Index i is logit i of the scene model (torchvision's ImageNet order, `scene/imagenet-labels.txt`).")
    out.append("// `table[i]`: the plain English noun a person uses for class i, singular, written to follow \"a\"/\"an\"")
    out.append("//   (\"dog\", \"owl\", \"carved pumpkin\"); \"\" when the class is never a photo's subject (clothing worn")
    out.append("//   in portraits, textures). Choose \"an\" by sound: besides the vowels, \"an hourglass\"; \"a unicycle\".")
    out.append("// `massNoun[i]`: true when the noun takes no article (\"hay\", \"guacamole\", \"bubbles\"): write")
    out.append("//   \"a photo of hay\", not \"a hay\". Classes sharing a noun are meant to have their probabilities summed.")
    out.append("// `groups[i]`: a coarser word for themes (\"dog\", \"bird\", \"car\", \"boat\", \"food\", \"flower\", ...), \"\" for none.")
    out.append("extension SceneNouns {")
    for name, values, per_line in (("table", [r["noun"] for r in rows], 8), ("groups", [r["group"] for r in rows], 10)):
        out.append(f"    static let {name}: [String] = [")
        for start in range(0, len(values), per_line):
            chunk = ", ".join(swift_string(v) for v in values[start:start + per_line])
            out.append(f"        {chunk}, // {start}")
        out.append("    ]")
    out.append("    static let massNoun: [Bool] = [")
    flags = [r["mass"] for r in rows]
    for start in range(0, len(flags), 20):
        chunk = ", ".join("true" if v else "false" for v in flags[start:start + 20])
        out.append(f"        {chunk}, // {start}")
    out.append("    ]")
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", default="/usr/share/wordnet")
    parser.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "memora", "pip-wn"))
    models = os.environ.get("MEMORA_MODELS") or os.path.join(os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share")), "memora", "models")
    parser.add_argument("--labels", default=os.path.join(models, "scene", "imagenet-labels.txt"),
                        help="torchvision's labels, for the review TSV only")
    parser.add_argument("--review", help="write the review TSV here")
    parser.add_argument("--out", default=SWIFT_OUT)
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args()

    wnids = read_wnids(args.cache)
    synsets, senses = read_wordnet(args.wordnet)
    for sense, _ in NOUN_RULES + GROUP_RULES:
        if sense not in senses:
            die(f"rule sense {sense} is not in WordNet")
    overrides = read_overrides(OVERRIDES, set(wnids))
    labels = open(args.labels, encoding="utf-8").read().splitlines() if os.path.exists(args.labels) else [""] * 1000

    rows, used = [], set()
    for index, wnid in enumerate(wnids):
        offset = wnid[1:]
        if offset not in synsets:
            die(f"{wnid} is not a WordNet 3.0 noun synset")
        chain = ancestors(synsets, offset)
        lemma = synsets[offset][0][0]
        noun, rule = nearest(NOUN_RULES, senses, chain)
        if noun is None:
            noun, rule = lemma.replace("_", " "), "lemma"
        else:
            used.add(rule)
            rule = "rule " + rule
        group, group_rule = first(GROUP_RULES, senses, chain)
        group = group or ""
        if group_rule:
            used.add(group_rule)
        if wnid in overrides:
            o_noun, o_group, _ = overrides[wnid]
            noun, rule = ("" if o_noun == "-" else o_noun), "override"
            if o_group is not None:
                group = "" if o_group == "-" else o_group
        if noun == "":
            group = ""  # nothing is named, nothing is gathered
        mass = noun.startswith("~")
        noun = noun.lstrip("~")
        rows.append(dict(index=index, wnid=wnid, label=labels[index], lemma=lemma, noun=noun, mass=mass, group=group, rule=rule))
    unused = [s for s, _ in NOUN_RULES + GROUP_RULES if s not in used]
    if unused:
        print(f"make-scene-nouns: warning: rules that no class reaches: {', '.join(unused)}", file=sys.stderr)

    source = swift_source(rows)
    if args.check:
        same = os.path.exists(args.out) and open(args.out, encoding="utf-8").read() == source
        print(f"make-scene-nouns: {args.out} is {'up to date' if same else 'OUT OF DATE'}", file=sys.stderr)
        sys.exit(0 if same else 1)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(source)
    if args.review:
        with open(args.review, "w", encoding="utf-8") as f:
            f.write("index\twnid\tlabel\tlemma\tnoun\tmass\tgroup\trule\n")
            for r in rows:
                f.write(f"{r['index']}\t{r['wnid']}\t{r['label']}\t{r['lemma']}\t{r['noun']}\t{'mass' if r['mass'] else ''}\t{r['group']}\t{r['rule']}\n")
    named = sum(1 for r in rows if r["noun"])
    print(f"make-scene-nouns: {named} classes named ({len(set(r['noun'] for r in rows if r['noun']))} distinct nouns), "
          f"{1000 - named} never a subject, {sum(r['mass'] for r in rows)} mass nouns; wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
