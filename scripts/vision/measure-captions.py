#!/usr/bin/env python3
"""Scores photo descriptions (captions, alt text, recognised text) against hand-checked facts.

  scripts/vision/measure-captions.py FACTS.tsv DESCRIPTIONS.json [--missed]
  scripts/vision/measure-captions.py FACTS.tsv --ocr-peer PEER [--write JSON] [--missed]

FACTS.tsv is the facts file of a sample folder such as ../shared/caption-samples (not part of the
project; its README.md defines the columns and the scoring rules implemented here).
DESCRIPTIONS.json is an object that maps a photo's file name to its description; a photo that is
missing counts as described by "". The report has one line per photo and the totals: main subject
named, text strings found (of all strings listed) and the mean share found over the photos that
have text, people counted right, and photos without faces where the description invents people.

--ocr-peer makes the descriptions with another OCR program, as a reference figure, from the photos
beside FACTS.tsv (the description of a photo is all the text found, joined with spaces):
  rapidocr        RapidOCR's Python pipeline with its default settings (rapidocr 3.10.0 must be
                  importable: run this script with the Python of the environment it is installed in)
  tesseract-psm3  Tesseract's command line, page segmentation mode 3 (automatic page layout)
  tesseract-psm11 Tesseract's command line, mode 11 (sparse text, as much as it finds, in no order)
The wall time per photo and in all goes to stderr; --write keeps the descriptions as JSON.

The rules (README.md of caption-samples), all on a normalised form of both texts (accents dropped,
lower case, every run of punctuation, underscores and white space made one space):
  subject  any of the |-separated subject words or phrases appears as whole words;
  text     a listed string appears as whole words, where a space may or may not stand between any
           two of its characters ("4.00pm" matches "4:00 PM", "Game Ball" matches "GAME-BALL");
  people   the largest "<number> [word] people|persons|faces|men|women|children|kids|boys|girls"
           (number as digits or no/one/.../ten); without one, the number of different nouns in
           "a|an|one [word] person|man|woman|boy|girl|child|baby".
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import unicodedata

NUMBER_WORDS = {w: n for n, w in enumerate("no one two three four five six seven eight nine ten".split())}
GROUP_NOUNS = "people|persons|faces|men|women|children|kids|boys|girls"
SINGLE_NOUNS = "person|man|woman|boy|girl|child|baby"


def normalise(text):
    """Accents dropped, lower case, runs of non-word characters (and _) as one space, trimmed."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
    return " ".join(re.sub(r"[\W_]+", " ", plain).split())


def names_subject(description, subject_words):
    padded = f" {normalise(description)} "
    return any(f" {normalise(word)} " in padded for word in subject_words.split("|"))


def contains_text(description, string):
    letters = normalise(string).replace(" ", "")
    if not letters:
        return False
    pattern = " ?".join(re.escape(ch) for ch in letters)
    return re.search(rf"(?<!\w){pattern}(?!\w)", normalise(description)) is not None


def people_count(description):
    text = normalise(description)
    numbers = "|".join(NUMBER_WORDS)
    counted = re.findall(rf"\b(\d+|{numbers}) (?:\w+ )?(?:{GROUP_NOUNS})\b", text)
    if counted:
        return max(int(n) if n.isdigit() else NUMBER_WORDS[n] for n in counted)
    return len(set(re.findall(rf"\b(?:a|an|one) (?:\w+ )?({SINGLE_NOUNS})\b", text)))


def read_facts(path):
    rows = []
    header = None
    with open(path, encoding="utf-8") as facts:
        for line in facts:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            fields += [""] * (len(header) - len(fields))
            rows.append(dict(zip(header, fields)))
    for column in ("file", "subject_words", "text", "people"):
        if header is None or column not in header:
            sys.exit(f"{path}: no '{column}' column")
    return rows


def score(rows, descriptions, show_missed=False):
    subjects = people_right = invented = found_total = listed_total = 0
    shares = []
    for row in rows:
        description = descriptions.get(row["file"], "")
        strings = [s for s in row["text"].split("|") if s]
        found = [s for s in strings if contains_text(description, s)]
        named = names_subject(description, row["subject_words"])
        people, truth = people_count(description), int(row["people"] or 0)
        subjects += named
        people_right += people == truth
        invented += truth == 0 and people > 0
        found_total += len(found)
        listed_total += len(strings)
        if strings:
            shares.append(len(found) / len(strings))
        line = f"{row['file']}\tsubject {'yes' if named else 'NO'}\ttext {len(found)}/{len(strings)}\tpeople {people}/{truth}"
        if show_missed and len(found) < len(strings):
            line += "\tmissed: " + " | ".join(s for s in strings if s not in found)
        print(line)
    mean_share = sum(shares) / len(shares) if shares else 0.0
    print(f"subject named {subjects}/{len(rows)}, text strings found {found_total} of {listed_total} "
          f"(mean share {mean_share:.0%} over {len(shares)} photos with text), people right "
          f"{people_right}/{len(rows)}, people invented on {invented} photos without faces")


def rapidocr_reader():
    try:
        from rapidocr import RapidOCR
    except ImportError:
        sys.exit("rapidocr (3.10.0) is not importable by this Python; run the script with the Python of "
                 "the environment it is installed in")
    started = time.perf_counter()
    engine = RapidOCR()
    print(f"rapidocr: engine created in {time.perf_counter() - started:.2f} s", file=sys.stderr)

    def read(path):
        return " ".join(engine(path).txts or ())
    return read


def tesseract_reader(psm):
    def read(path):
        done = subprocess.run(["tesseract", path, "stdout", "--psm", str(psm)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"tesseract failed on {path}: {done.stderr.strip()}")
        return " ".join(done.stdout.split())
    return read


def run_peer(peer, rows, folder):
    if peer == "rapidocr":
        read = rapidocr_reader()
    else:
        read = tesseract_reader(int(peer.rsplit("psm", 1)[1]))
    descriptions = {}
    total = 0.0
    for row in rows:
        path = os.path.join(folder, row["file"])
        started = time.perf_counter()
        descriptions[row["file"]] = read(path)
        seconds = time.perf_counter() - started
        total += seconds
        print(f"{peer}: {row['file']}\t{seconds:.2f} s\t{descriptions[row['file']][:100]}", file=sys.stderr)
    print(f"{peer}: {len(rows)} photos in {total:.1f} s ({total / max(1, len(rows)):.2f} s a photo)", file=sys.stderr)
    return descriptions


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("facts", help="FACTS.tsv")
    parser.add_argument("descriptions", nargs="?", help="descriptions JSON keyed by file name")
    parser.add_argument("--ocr-peer", choices=("rapidocr", "tesseract-psm3", "tesseract-psm11"))
    parser.add_argument("--write", metavar="JSON", help="with --ocr-peer: also write the descriptions here")
    parser.add_argument("--missed", action="store_true", help="list the text strings not found")
    args = parser.parse_args()
    if (args.descriptions is None) == (args.ocr_peer is None):
        parser.error("give either DESCRIPTIONS.json or --ocr-peer")
    rows = read_facts(args.facts)
    if args.ocr_peer:
        descriptions = run_peer(args.ocr_peer, rows, os.path.dirname(os.path.abspath(args.facts)))
        if args.write:
            with open(args.write, "w", encoding="utf-8") as out:
                json.dump(descriptions, out, ensure_ascii=False, indent=1)
                out.write("\n")
    else:
        with open(args.descriptions, encoding="utf-8") as source:
            descriptions = json.load(source)
        if not isinstance(descriptions, dict):
            sys.exit(f"{args.descriptions}: expected a JSON object keyed by file name")
    score(rows, descriptions, args.missed)


if __name__ == "__main__":
    main()
