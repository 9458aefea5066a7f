"""Made-up compounds: accuracy by length of the shipped models (or given checkpoints).

Builds the made-up-compound test of :mod:`inflect.evaluation.compounds` (joined lemmas of a
language's train-high file, asked in cells of the head, the gold form the modifiers followed by
the head's form) from the data at run time, asks the model alone (no lexicon, beam 5 by default)
each compound and its head, and prints per language the accuracy per length band (Markdown).
``--diagnose`` adds, for the compounds answered wrong, whether the search or the model is at
fault (the gold form's probability under the model, by teacher forcing, against the best form
found) and where the attention went at the first step that gives the gold's symbol less than
half the probability (cells whose form is the lemma: the gold step t should look at lemma
symbol t).

Usage::

    python recipes/sigmorphon2018/compounds.py --data-dir ../shared/data/conll2018-task1
    python recipes/sigmorphon2018/compounds.py --lang dutch --model runs/dutch/model.safetensors \\
        --diagnose --out /tmp/compounds
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

LANGUAGES = ("german", "dutch", "swedish", "finnish")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", required=True, help="The conll2018-task1 folder (or parent).")
    p.add_argument(
        "--lang",
        action="append",
        default=None,
        help=f"A language (repeatable; default: {', '.join(LANGUAGES)}).",
    )
    p.add_argument(
        "--model",
        action="append",
        default=None,
        help="Checkpoint(s) instead of the shipped model (one --lang).",
    )
    p.add_argument("--setting", default="high", help="The shipped model's setting (default high).")
    p.add_argument("--per-band", type=int, default=60, help="Compounds per length band.")
    p.add_argument("--seed", type=int, default=0, help="Seed of the compounds.")
    p.add_argument("--beam", type=int, default=5, help="Beam size k.")
    p.add_argument(
        "--support",
        default="auto",
        choices=("auto", "always", "never"),
        help="As inflect predict --support.",
    )
    p.add_argument("--chunk-size", type=int, default=None, help="Inputs searched together.")
    p.add_argument("--diagnose", action="store_true", help="Search or model, and attention.")
    p.add_argument("--out", type=Path, default=None, help="Write each language's items (TSV).")
    args = p.parse_args(argv)
    args.lang = args.lang or list(LANGUAGES)
    if args.model and len(args.lang) != 1:
        p.error("--model needs exactly one --lang")
    return args


def gold_paths(predictor, prepared, strings):
    """Teacher-force each of ``strings`` (texts) after its prepared input: the probability of
    each step's symbol (EOS last) and the attention argmax (source index) of each step."""
    import torch

    from inflect.decoding.protocol import encode

    model, vocab = predictor.decodable, predictor.members[0].target_vocab
    outs = [
        vocab.encode(p.codec.encode(s), warn=False) for p, s in zip(prepared, strings, strict=True)
    ]
    state = encode(model, predictor.batch(prepared)).state
    prev = torch.full((len(outs),), model.bos_id, dtype=torch.long)
    probs_of = [[] for _ in outs]
    looks = [[] for _ in outs]
    with torch.inference_mode():
        for t in range(max(len(o) for o in outs) + 1):
            probs, attention, state = model.step(state, prev)
            for i, o in enumerate(outs):
                if t <= len(o):
                    probs_of[i].append(float(probs[i, o[t] if t < len(o) else model.eos_id]))
                    looks[i].append(int(attention[i].argmax()))
            prev = torch.tensor([o[t] if t < len(o) else model.eos_id for o in outs])
    return probs_of, looks


def diagnose(predictor, scored, language: str) -> list[str]:
    """Lines on the wrong answers: search or model, and the attention at the first bad step."""
    from inflect.inference.queries import make_query

    wrong = scored[~scored["correct"]].reset_index(drop=True)
    if wrong.empty:
        return ["no wrong answer"]
    prepared = [
        predictor.prepare(make_query(x, t, language))
        for x, t in zip(wrong["lemma"], wrong["tags"], strict=True)
    ]
    gold_p, looks = gold_paths(predictor, prepared, list(wrong["gold"]))
    best_p, _ = gold_paths(predictor, prepared, list(wrong["predicted"]))
    log = [sum(math.log(p) if p > 0 else -math.inf for p in ps) for ps in (*gold_p, *best_p)]
    n = len(wrong)
    zero = sum(g == -math.inf for g in log[:n])
    better = sum(g > b for g, b in zip(log[:n], log[n:], strict=True))
    jumps, after_same = Counter(), 0
    for i, row in wrong.iterrows():
        lemma = row["lemma"]
        if not row["lemma_cell"]:
            continue
        bad = next((t for t, p in enumerate(gold_p[i][: len(lemma)]) if p < 0.5), None)
        if bad is None:
            continue
        jump = looks[i][bad] - bad
        jumps["ahead" if jump > 0 else "behind" if jump < 0 else "in place"] += 1
        after_same += (  # a jump to another place after the symbol just written
            jump != 0
            and bad > 0
            and 0 < looks[i][bad] < len(lemma)
            and lemma[looks[i][bad] - 1] == lemma[bad - 1]
        )
    return [
        f"{n} wrong: the gold form has probability 0 for {zero}; it is more probable than the "
        f"best form found for {better} (search errors)",
        f"lemma cells, attention at the first step giving the gold symbol < 0.5: "
        f"{dict(jumps)}; of the jumps, to a symbol that follows the one just written (as the "
        f"gold one does): {after_same}",
    ]


def table(language: str, bands) -> list[str]:
    """Markdown rows of one language's :func:`inflect.evaluation.compounds.by_length` frame."""
    rows = []
    for band, r in bands.iterrows():
        cells = "–" if math.isnan(r["lemma_cells"]) else f"{r['lemma_cells']:.1f}"
        rows.append(
            f"| {language} | {band} | {int(r['n'])} | {r['compound']:.1f} | "
            f"{r['head']:.1f} | {cells} | {int(r['length_limit'])} |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    from inflect.corpora.manifests import locate
    from inflect.evaluation.compounds import by_length, make_compounds, score_compounds
    from inflect.inference.predictor import load_predictor

    args = parse_args(argv)
    print("| language | length | n | compounds | heads | lemma cells | length limit |")
    print("|---|---|---:|---:|---:|---:|---:|")
    notes = []
    for language in args.lang:
        options = {"beam_size": args.beam, "support": args.support}
        if args.chunk_size:
            options["chunk_size"] = args.chunk_size
        predictor = load_predictor(args.model, language, setting=args.setting, **options)
        items = make_compounds(
            locate(language, "train-high", args.data_dir), language, args.per_band, args.seed
        )
        scored = score_compounds(predictor, items, language)
        print("\n".join(table(language, by_length(scored))), flush=True)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            scored.to_csv(args.out / f"{language}.tsv", sep="\t", index=False)
        if args.diagnose:
            notes += [f"{language}: {line}" for line in diagnose(predictor, scored, language)]
    print("\n".join(["", *notes]) if notes else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
