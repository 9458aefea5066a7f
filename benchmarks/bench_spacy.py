"""The spaCy component against ``inflect predict --input``: the same UD-tagged tokens, one
``token._.inflect(features)`` call each, against one batch command (the target: at most
1.5x the command's time).

Inputs: the first ``--n`` (1,000) german-dev lines, each 2018 bundle written as the UD tags of the
same cell (``N;DAT;PL`` -> ``NOUN|Case=Dat|Number=Plur``, ``V;IND;PRS;3;SG`` ->
``VERB|Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin``; the table below, from the UD v2
guidelines). Both sides run in fresh processes with ``--threads`` CPU threads, interleaved
(A B A B ...), the best of ``--repeat`` (2) kept:

- reference: ``inflect predict --lang german --input FILE --format 2018`` (lemma<TAB>UD tags);
- component: ``spacy.blank("de")`` with ``nlp.add_pipe("inflect")``, then per input a one-token
  ``Doc`` (lemma, UPOS) and ``doc[0]._.inflect(FEATS)``.

Printed: wall and CPU time (user + system of the child) of each, the component's ratio to the
command, and how often the two give the same form. ``--no-lexicon`` times the model alone on both
sides (the component then searches every input; with the lexicons it returns an attested form
without a search where a lexicon holds the input, as the command's first form is that form).

Usage::

    python benchmarks/bench_spacy.py --data-dir ../shared/data/conll2018-task1 --threads 2 \\
        [--n 1000] [--repeat 2] [--no-lexicon]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

#: The German 2018 features -> UD (Name, Value) (UD v2 guidelines, universaldependencies.org/u/feat)
UD_OF = {
    "NOM": ("Case", "Nom"), "ACC": ("Case", "Acc"), "DAT": ("Case", "Dat"), "GEN": ("Case", "Gen"),
    "SG": ("Number", "Sing"), "PL": ("Number", "Plur"), "1": ("Person", "1"),
    "2": ("Person", "2"), "3": ("Person", "3"), "IND": ("Mood", "Ind"), "SBJV": ("Mood", "Sub"),
    "IMP": ("Mood", "Imp"), "PRS": ("Tense", "Pres"), "PST": ("Tense", "Past"),
    "NFIN": ("VerbForm", "Inf"),
}

_COMPONENT = r"""
import json, sys, time
start = time.perf_counter()
import spacy
from spacy.tokens import Doc
import inflect.integrations.spacy  # the entry point's module, for a checkout not installed
nlp = spacy.blank("de")
nlp.add_pipe("inflect", config={{"no_lexicon": {no_lexicon}}})
inputs = json.load(open({inputs!r}, encoding="utf-8"))
loaded = time.perf_counter()
forms = []
for lemma, upos, feats in inputs:
    doc = nlp(Doc(nlp.vocab, words=[lemma], pos=[upos], lemmas=[lemma]))
    forms.append(doc[0]._.inflect(feats))
json.dump({{"forms": forms, "setup": loaded - start}}, open({out!r}, "w", encoding="utf-8"))
"""


def ud_tags(tags: str) -> tuple[str, str]:
    """A German 2018 bundle as UD: (UPOS, FEATS)."""
    features = tags.split(";")
    upos = "NOUN" if features[0] == "N" else "VERB"
    pairs = dict(UD_OF[f] for f in features if f in UD_OF)
    if "V.PTCP" in features:
        pairs["VerbForm"] = "Part"
    elif upos == "VERB" and "VerbForm" not in pairs:
        pairs["VerbForm"] = "Fin"
    return upos, "|".join(f"{k}={v}" for k, v in sorted(pairs.items()))


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run ``cmd`` in a fresh process: (wall seconds, the child's user + system CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed:\n{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--no-lexicon", action="store_true")
    args = parser.parse_args()
    lines = (args.data_dir / "german-dev").read_text(encoding="utf-8").splitlines()[: args.n]
    inputs = [(lemma, *ud_tags(tags)) for lemma, _, tags in (line.split("\t") for line in lines)]
    work = Path(tempfile.mkdtemp(prefix="bench-spacy-"))
    (work / "inputs.tsv").write_text(
        "".join(f"{lemma}\t{upos}|{feats}\n" for lemma, upos, feats in inputs), encoding="utf-8")
    (work / "inputs.json").write_text(json.dumps(inputs, ensure_ascii=False), encoding="utf-8")
    env = os.environ | {"PYTHONPATH": str(HERE), "INFLECT_THREADS": str(args.threads)}
    predict = [sys.executable, "-m", "inflect", "predict", "--lang", "german", "--input",
               str(work / "inputs.tsv"), "--format", "2018", "--threads", str(args.threads)]
    predict += ["--no-lexicon"] if args.no_lexicon else []
    component = [sys.executable, "-c", _COMPONENT.format(
        no_lexicon=args.no_lexicon, inputs=str(work / "inputs.json"), out=str(work / "out.json"))]
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):  # interleaved: A B A B
        for name, cmd in (("inflect predict --input", predict), ("token._.inflect", component)):
            wall, cpu = timed(cmd, env)
            best[name] = min(best.get(name, (wall, cpu)), (wall, cpu))
    got = json.loads((work / "out.json").read_text(encoding="utf-8"))["forms"]
    reference = subprocess.run(predict, env=env, capture_output=True, text=True, check=True)
    expected = [line.split("\t")[1] for line in reference.stdout.splitlines()]
    same = sum(a == b for a, b in zip(got, expected, strict=True))
    base_wall, base_cpu = best["inflect predict --input"]
    mode = "the model alone (--no-lexicon)" if args.no_lexicon else "with the lexicons"
    print(f"{len(inputs):,} german-dev inputs as UD tags, {args.threads} thread(s), {mode}, "
          f"best of {args.repeat}")
    print(f"{'':26}{'wall s':>9}{'cpu s':>9}{'wall ratio':>12}{'cpu ratio':>11}")
    for name, (wall, cpu) in best.items():
        print(f"{name:26}{wall:9.2f}{cpu:9.2f}{wall / base_wall:11.2f}x{cpu / base_cpu:10.2f}x")
    print(f"same form: {same:,} of {len(inputs):,}; target: token._.inflect at most 1.5x "
          "the command's time")


if __name__ == "__main__":
    main()
