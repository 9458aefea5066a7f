"""A cold query with the field dictionaries installed against the same query without them.

Each run is a new Python process that answers one query (``inflect predict``, the shipped model,
every lexicon); "without" hides the installed dictionaries (the process's
``inflect.lexicon.dictionaries.installed_dictionaries`` returns none), so both runs share everything
else. Runs alternate, and the medians of ``--runs`` each are printed with their difference.

    python recipes/dictionaries/cold_query.py --runs 7
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

QUERIES = [
    ("english", "go", "V;PST"),
    ("russian", "человек", "N;GEN;PL"),
    ("german", "Haus", "N;NOM;PL"),
    ("french", "être", "V;IND;PRS;1;SG"),
    ("italian", "essere", "V;IND;PRS;1;SG"),
    ("german", "gehen", "V;IND;PST;1;SG"),
    ("portuguese", "ser", "V;IND;PRS;1;SG"),
    ("polish", "pies", "N;GEN;SG"),
]

CODE = """
import sys
if sys.argv[1] == "without":
    import inflect.lexicon.dictionaries as dictionaries
    dictionaries.installed_dictionaries = lambda: []
from inflect.cli import main
try:
    main(["predict", "--lang", *sys.argv[2:], "--format", "2018"])
except SystemExit:
    pass
"""

FIRST_LOOKUP = """
import sys, time
from inflect.lexicon.dictionaries import field_dictionaries
from inflect.text.records import TagBundle
language, lemma, tags = sys.argv[1:4]
bundle = TagBundle.parse(tags)
pos = {f.split(".")[0] for f in bundle.multiset}
dictionary = next(d for d in field_dictionaries()
                  if language in d.languages() and pos & d.parts_of_speech)
cpu, wall = time.process_time(), time.perf_counter()
found = dictionary.lookup(language, lemma, bundle)
print(time.process_time() - cpu, time.perf_counter() - wall, dictionary.name,
      found[0].form if found else "-")
"""


def first_lookups(runs: int, languages: list[str] | None) -> None:
    """Each query's first lookup in its dictionary alone (import, load, lookup), in a new
    process: medians of CPU and wall-clock seconds."""
    print("| query | dictionary | answer | first lookup, CPU (s) | first lookup, wall (s) |")
    print("|---|---|---|---:|---:|")
    for query in QUERIES:
        if languages and query[0] not in languages:
            continue
        cpu, wall = [], []
        for _ in range(runs):
            out = subprocess.run([sys.executable, "-c", FIRST_LOOKUP, *query],
                                 capture_output=True, text=True, check=True).stdout.split()
            cpu.append(float(out[0]))
            wall.append(float(out[1]))
        print(f"| {' '.join(query)} | {out[2]} | {out[3]} | {statistics.median(cpu):.3f} | "
              f"{statistics.median(wall):.3f} |", flush=True)


def run(variant: str, query: tuple[str, str, str]) -> tuple[float, float, str]:
    """One cold query in a new process: its wall-clock seconds, its CPU seconds (user and
    system: less disturbed than the wall clock by other work on the machine) and its answer."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CODE, variant, *query], capture_output=True,
                         text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout.split("\t")[1] if "\t" in out.stdout else "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lang", action="append", default=None, help="only these languages")
    parser.add_argument("--first-lookup", action="store_true",
                        help="time each query's first dictionary lookup alone (no model)")
    args = parser.parse_args(argv)
    if args.first_lookup:
        first_lookups(args.runs, args.lang)
        return 0
    print("| query | answer with / without | cold with (s) | cold without (s) | difference (s) "
          "| CPU with (s) | CPU without (s) | CPU difference (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for query in QUERIES:
        if args.lang and query[0] not in args.lang:
            continue
        times: dict[str, list[float]] = {"with": [], "without": []}
        cpus: dict[str, list[float]] = {"with": [], "without": []}
        answers = {}
        for _ in range(args.runs):
            for variant in ("with", "without"):
                seconds, cpu, answers[variant] = run(variant, query)
                times[variant].append(seconds)
                cpus[variant].append(cpu)
        a, b = statistics.median(times["with"]), statistics.median(times["without"])
        c, d = statistics.median(cpus["with"]), statistics.median(cpus["without"])
        print(f"| {' '.join(query)} | {answers['with']} / {answers['without']} | {a:.2f} | "
              f"{b:.2f} | {a - b:+.2f} | {c:.2f} | {d:.2f} | {c - d:+.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
