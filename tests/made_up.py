"""A made-up language in Ethiopic script, written as a user's files (no spec of it anywhere):
``amh.trn``, ``amh.dev``, ``amh.tst`` in the SIGMORPHON 2023 layout (``lemma<TAB>tags<TAB>form``)
or the 2018 one, with the layered UniMorph 4 features of the 2023 data (``NOM(3,SG,MASC)``).

Rules (a toy, not Amharic's grammar): a verb's perfective adds a subject suffix, its imperfective
a subject prefix (and ``ሉ`` in the plural of the 2nd and 3rd persons); a noun's plural adds
``ኦች``. Every verb lemma is attested with every subject in the training file, so the paradigm
cells are known in advance: :data:`VERB_CELLS`, :data:`NOUN_CELLS`.
"""

from __future__ import annotations

import random
from pathlib import Path

SYLLABLES = "ሰበረለመነተከገደ"
#: subject -> perfective suffix
PERFECTIVE = {
    "1,SG": "ሁ",
    "2,SG,MASC": "ህ",
    "2,SG,FEM": "ሽ",
    "3,SG,MASC": "",
    "3,SG,FEM": "ች",
    "1,PL": "ን",
    "2,PL": "ቹ",
    "3,PL": "ሉ",
}
#: subject -> imperfective prefix (and suffix)
IMPERFECTIVE = {
    "1,SG": ("እ", ""),
    "2,SG,MASC": ("ት", ""),
    "2,SG,FEM": ("ት", "ኢ"),
    "3,SG,MASC": ("ይ", ""),
    "3,SG,FEM": ("ት", ""),
    "1,PL": ("እን", ""),
    "2,PL": ("ት", "ሉ"),
    "3,PL": ("ይ", "ሉ"),
}
VERB_CELLS = frozenset(f"V;{aspect};NOM({s})" for aspect in ("PFV", "IPFV") for s in PERFECTIVE)
NOUN_CELLS = frozenset({"N;SG", "N;PL"})
#: A verb of the README's example (the test data always hold it).
EXAMPLE_VERB = "ሰበረ"


def form_of(lemma: str, tags: str) -> str:
    """The form of ``lemma`` for the bundle ``tags`` (one of the cells above)."""
    if tags.startswith("N;"):
        return lemma + "ኦች" if tags == "N;PL" else lemma
    aspect, subject = tags.split(";")[1], tags.split("(")[1].rstrip(")")
    if aspect == "PFV":
        return lemma + PERFECTIVE[subject]
    before, after = IMPERFECTIVE[subject]
    return before + lemma + after


def rows(lemmas: list[str], nouns: list[str]) -> list[tuple[str, str, str]]:
    """Every cell of every lemma: ``(lemma, tags, form)``."""
    out = [(v, t, form_of(v, t)) for v in lemmas for t in sorted(VERB_CELLS)]
    return out + [(n, t, form_of(n, t)) for n in nouns for t in sorted(NOUN_CELLS)]


def write_language(folder: Path, layout: str = "2023", seed: int = 0) -> dict[str, Path]:
    """Write ``amh.trn`` (24 verbs and 10 nouns, every cell), ``amh.dev`` and ``amh.tst`` (6
    verbs and 4 nouns each, unseen lemmas) into ``folder``; returns the paths by split."""
    rng = random.Random(seed)
    words: list[str] = []
    while len(words) < 54:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
        if word not in words and word != EXAMPLE_VERB:
            words.append(word)
    splits = {
        "trn": ([EXAMPLE_VERB, *words[:23]], words[23:33]),
        "dev": (words[33:39], words[39:43]),
        "tst": (words[43:49], words[49:53]),
    }
    paths = {}
    for split, (verbs, nouns) in splits.items():
        path = folder / f"amh.{split}"
        lines = [
            (f"{a}\t{t}\t{f}" if layout == "2023" else f"{a}\t{f}\t{t}")
            for a, t, f in rows(verbs, nouns)
        ]
        rng.shuffle(lines)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[split] = path
    return paths
