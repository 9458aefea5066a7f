"""Ship trained models as `inflect predict`'s defaults: score them, store them, write the registry.

For each model given (``NAME=CHECKPOINT[,CHECKPOINT...]``; several checkpoints form an ensemble,
their next-symbol probabilities averaged), the ensemble is evaluated with beam search
(``inflect.evaluation.runner.evaluate_checkpoints``: beam 5, widened where the support is not certified) on
the full dev set of every language it serves; the scores are cached in ``--results``, keyed by
the members' SHA-256 (``--rescore`` ignores the cache). The members are then written in float16
(or as trained with ``--keep-dtype``) to ``--out-dir/NAME/``, and
``--out-dir/registry.toml`` (version 2, see :mod:`inflect.inference.registry`) lists every model and, for
every language, each serving model's dev accuracy. Every language of ``langs/`` must be served.

``--results`` also receives ``table-dev-NAME.md``: per language, dev accuracy beside the
official baseline's, the certificate and sparsity shares, and the macro-averages — the table of
the recipe README.

Usage::

    python recipes/sigmorphon2018/ship.py --data-dir ../shared/data \\
        --model multilingual-high=runs/high-s1,runs/high-s2 \\
        --model multilingual-medium=runs/medium-s1,runs/medium-s2 \\
        --model german-high=inflect/models/german-high/member-1.safetensors,... \\
        --out-dir inflect/models --results runs/ship [--dry-run] [--rescore]

Per-language models (``inflect queue`` folders): ``--queue SETTING=ROOT`` adds, for every
language of the queue in ``ROOT`` that has a selected model, the model ``LANGUAGE-SETTING``
(its one member ``ROOT/LANGUAGE``), stored as ``--out-dir/per-language/SETTING/LANGUAGE``;
``--reship`` makes the per-language models already in ``--out-dir``'s registry candidates again
(where a queue trained a language again, the model with the better training-time dev accuracy).
Every member gets the records a search takes from its training data (output length limits and
output alphabets, where its checkpoint predates them); every per-language model is restricted to
the symbols, features and language of its training data (:mod:`inflect.nn.trim`: a warm start's
multilingual rows are dropped); ``--int8`` stores every model in int8 with per-row scales
(:func:`inflect.nn.checkpoint.quantize_int8`). ``--int4 NAME[,NAME...]`` makes those
per-language models compete twice: as stored otherwise, and in 4 bits with a scale per 32
weights (:func:`inflect.nn.checkpoint.quantize_int4`, about 0.56 of the int8 bytes), prepared
from their queue's float checkpoint as ``NAME~int4``; at most one of the two ships, under NAME.
``--int4-kept NAME[,NAME...]`` does the same for ``--keep`` models stored in int8 whose float
checkpoint is gone: ``NAME~int4`` is their shipped int8 weights dequantized and stored in 4 bits
(the two roundings add up; the copy is scored as stored like every other candidate).
``--members-alone NAME[,NAME...]`` makes each member of those ``--keep`` ensembles (4 bits)
compete alone as well (``NAME~memberK~int4``, its shipped file as it is). With
``--kept-compete``, a queue's model of a language whose kept per-language model has its name
competes beside it as ``NAME~queued`` (and ``NAME~queued~int4`` where ``--int4`` names NAME),
unless it is the kept model itself once prepared (the same bytes); without, it is left out.
``--ensemble-kept SETTING=ROOT`` adds a member to a kept 4-bit model whose float checkpoints
are gone: its shipped members and the queue's new run of its language as one ensemble
(``NAME~plus-QUEUE~int4``, and ``NAME~memberK~plus-QUEUE~int4`` for each member with the
run; QUEUE the queue folder's name). ``--max-commits N`` leaves out a candidate one of whose
files would be a new copy of a run's weights that git's history of ``--out-dir`` already holds
N times (:mod:`ship_history`; the budget's rule is 2).
Models are scored *as stored* (the prepared files are written to ``--results/prepared/`` first,
see :func:`ship_storage.prepared`).

The score a model is chosen by on a language (``--select-on``, default ``dev+heldout``): for a
medium language whose dev set has fewer than 200 words and that has a high setting (24 of the
2018 task's), its accuracy on dev and on a selection slice S of ``train-high`` counted together
(S: the pairs whose lemma and tags are in neither ``train-medium`` nor dev, so no medium model
saw them, shuffled with seed 1, a third of them, at most 500: :func:`heldout.selection_slice`,
the slices of ``selection_study.py``); every medium model serving such a language is scored on
its S too (kept models from their shipped files; cached like the dev scores, by the members'
SHA-256 and the slice's); elsewhere, and for the medium languages without a high setting
(cornish, norman, old-irish, ... with 50 dev words: no unseen words to take), dev alone.
``--select-on dev`` chooses by dev alone everywhere. The registry records the dev accuracy as
ever, the criterion (``[selection]``) and, per language where S took part, the words of S and
each medium model's pooled figure (``[heldout.LANGUAGE]``).

Only finished languages are taken, and only the per-language models that beat every other model
of their setting on their language by that score, by decreasing gain per MB while the shipped
weights stay within ``--budget-mb`` (100; see :func:`ship_selection.select_per_language`; the
official baseline and ``--macro-target`` are dev figures); a model that is then
no language's best (a language's own model beaten by its per-language one) is dropped, and
weight files no model lists are removed. ``--keep NAME`` keeps a model of ``--out-dir``'s
registry as shipped (its files, its table, its dev scores: no dev set is scored again; a
medium model's selection slices are, once).

The work is in the modules beside this script, one job each: :mod:`ship_candidates` (which
models compete), :mod:`ship_history` (how often git holds a run's weights),
:mod:`ship_selection` (scores and the choice), :mod:`ship_storage` (the members
prepared and written) and :mod:`ship_registry` (``registry.toml``); this script parses the
options and runs them in order.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NamedTuple

from heldout import SEED, SELECTION_MAX, SMALL_DEV, dev_words, has_high_setting, selection_slice
from ship_candidates import (
    INT4_VARIANT,
    Models,
    base_name,
    beside_kept,
    checkpoint_file,
    ensemble_models,
    is_per_language,
    kept_models,
    kept_plus_run,
    language_of,
    members_alone,
    parse_models,
    previous_models,
    queue_models,
    requantized_kept,
    reship_candidates,
    same_as_kept,
    shipped_per_language,
    storage_variants,
)
from ship_history import commit_history, over_limit
from ship_registry import model_facts, registry_text
from ship_selection import (
    CRITERIA,
    evaluate_model,
    heldout_scores,
    hopeless,
    per_language_table,
    results_table,
    select_per_language,
    settle_variants,
    with_selection,
)
from ship_storage import prepared, remove_unshipped, store_members


def _selection_options(parser: argparse.ArgumentParser) -> None:
    """The options of the choice: which candidates, within which budget, by which score."""
    parser.add_argument("--max-commits", type=int, default=None, metavar="N",
                        help="leave out a candidate that would be a new copy of a run's weights "
                             "held N times in git's history of --out-dir (the budget's rule: 2)")
    parser.add_argument("--budget-mb", type=float, default=100.0,
                        help="the shipped weights' total size; per-language models are added by "
                             "gain per MB (of the --select-on score) while it holds (default 100)")
    parser.add_argument("--macro-target", action="append", default=[], metavar="SETTING=ACC",
                        help="per-language models of SETTING come first (after the baseline "
                             "lifts) until its macro dev accuracy reaches ACC (repeatable)")
    parser.add_argument("--select-on", choices=CRITERIA, default="dev+heldout",
                        help="what chooses between the models of a language: 'dev+heldout' "
                             "(default): for a medium language with fewer than "
                             f"{SMALL_DEV} dev words and a high setting, the accuracy on dev and "
                             "a selection slice of train-high that no medium model saw (at most "
                             f"{SELECTION_MAX} words, seed {SEED}: heldout.py), counted together; "
                             "elsewhere, and "
                             "for the medium languages without a high setting (cornish, norman, "
                             "old-irish, ...: 50 dev words), dev alone. 'dev': dev alone "
                             "everywhere. The official baseline and --macro-target stay on dev; "
                             "the registry records the criterion")
    parser.add_argument("--first", action="append", default=[], metavar="NAME[,NAME...]",
                        help="per-language models (LANGUAGE-SETTING) whose language is served "
                             "first: one candidate of each (the most gain per byte that fits) is "
                             "taken right after the baseline lifts, before the macro targets "
                             "(repeatable)")
    parser.add_argument("--margin", type=float, default=1.0,
                        help="a --queue model whose greedy dev accuracy in training is more than "
                             "this many points below a --keep model of its setting on its "
                             "language is not scored (default 1)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (``--macro-target`` read into ``args.targets``, ``--int4`` into
    ``args.int4_names``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", action="append", default=[], metavar="NAME=CKPT[,CKPT]")
    parser.add_argument("--keep", action="append", default=[], metavar="NAME",
                        help="a model of --out-dir's registry, kept as shipped (its dev scores "
                             "not rescored)")
    parser.add_argument("--queue", action="append", default=[], metavar="SETTING=ROOT",
                        help="every finished language of an `inflect queue` folder, one model each")
    parser.add_argument("--int8", action="store_true",
                        help="store the models in int8 with per-row scales (scored as stored)")
    parser.add_argument("--int4", action="append", default=[], metavar="NAME[,NAME...]",
                        help="these per-language models (LANGUAGE-SETTING, from a --queue) "
                             "compete twice: stored as the others, and in 4 bits with a scale "
                             "per 32 weights (from the queue's float checkpoint); each scored "
                             "as stored, at most one ships (repeatable)")
    parser.add_argument("--int4-kept", action="append", default=[], metavar="NAME[,NAME...]",
                        help="these --keep per-language models, stored in int8, compete in 4 bits "
                             "as well, from their shipped int8 weights (for a model whose float "
                             "checkpoint is gone); with --kept-compete (repeatable)")
    parser.add_argument("--members-alone", action="append", default=[], metavar="NAME[,NAME...]",
                        help="each member of these --keep per-language ensembles (4 bits) "
                             "competes alone as well; with --kept-compete (repeatable)")
    parser.add_argument("--only-int4", action="store_true",
                        help="the queue models named in --int4 compete in 4 bits only")
    parser.add_argument("--ensemble", action="append", default=[],
                        metavar="SETTING=ROOT+ROOT[+ROOT]",
                        help="every language finished in each of these `inflect queue` folders "
                             "competes as an ensemble of its runs there, in 4 bits "
                             "(LANGUAGE-SETTING~ens~int4, of a second such option ~ens2~int4; "
                             "it ships as LANGUAGE-SETTING)")
    parser.add_argument("--ensemble-kept", action="append", default=[], metavar="SETTING=ROOT",
                        help="for every language finished in this `inflect queue` folder whose "
                             "--keep per-language model is in 4 bits: that model's members and "
                             "the new run as one ensemble in 4 bits (NAME~plus-QUEUE~int4; and "
                             "each member with the run, NAME~memberK~plus-QUEUE~int4); with "
                             "--kept-compete (repeatable)")
    parser.add_argument("--reship", action="store_true",
                        help="the per-language models of --out-dir's registry compete again, "
                             "prepared and scored like the --queue ones")
    parser.add_argument("--kept-compete", action="store_true",
                        help="the --keep models of one language (members under per-language/) "
                             "compete in the selection with their registry dev scores (and, by "
                             "--select-on dev+heldout, their selection-slice scores, from their "
                             "shipped files), as stored: "
                             "a new model of their language may replace one, and one that gains "
                             "too little per byte may leave")
    _selection_options(parser)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out-dir", default="inflect/models")
    parser.add_argument("--results", default="runs/ship")
    parser.add_argument("--keep-dtype", action="store_true", help="do not store float16")
    parser.add_argument("--rescore", action="store_true", help="ignore cached scores")
    parser.add_argument("--dry-run", action="store_true", help="score and tabulate only")
    parser.add_argument("--device", default="auto", help="where the models are evaluated")
    args = parser.parse_args(argv)
    args.int4_names = sorted({n for spec in args.int4 for n in spec.split(",") if n})
    args.int4_kept = sorted({n for spec in args.int4_kept for n in spec.split(",") if n})
    args.members_alone = sorted({n for spec in args.members_alone for n in spec.split(",") if n})
    args.first = {n for spec in args.first for n in spec.split(",") if n}
    if (args.int4_kept or args.members_alone or args.ensemble_kept) and not args.kept_compete:
        parser.error("--int4-kept, --members-alone and --ensemble-kept need --kept-compete (the "
                     "kept model and its other forms compete in the selection)")
    args.targets = {}
    for spec in args.macro_target:
        setting, _, acc = spec.partition("=")
        try:
            args.targets[setting] = float(acc)
        except ValueError:
            raise SystemExit(f"--macro-target takes SETTING=ACC, got {spec!r}") from None
    return args


class Candidates(NamedTuple):
    """What competes (:func:`gather`): ``models`` every model to score, its members prepared;
    ``per_language`` the per-language ones among them (one entry per storage); ``greedy`` their
    training-time dev accuracy; ``kept`` and ``kept_scores`` the ``--keep`` models' registry
    tables and dev scores; ``previous`` the registry's model tables before this run."""

    models: Models
    per_language: Models
    greedy: dict[str, float]
    kept: dict[str, dict]
    kept_scores: dict[str, Any]
    previous: dict[str, dict]


def gather(args: argparse.Namespace, out_dir: Path) -> Candidates:
    """The candidates of the command line, prepared (written to ``--results/prepared/``)."""
    models = parse_models(args.model)
    per_language, greedy = queue_models(args.queue)
    queued = dict(per_language)
    unknown = [n for n in args.int4_names if n not in queued]
    if unknown:
        raise SystemExit(f"--int4 needs the float checkpoint of a finished --queue language; "
                         f"none for {', '.join(unknown)}")
    if args.reship:
        again, again_greedy = shipped_per_language(out_dir)
        per_language, greedy = reship_candidates(again, again_greedy, per_language, greedy)
    kept, kept_scores = kept_models(args.keep, out_dir)
    previous = previous_models(out_dir)
    per_language, greedy, queued, int4 = beside_kept(per_language, greedy, queued,
                                                     set(args.int4_names), kept,
                                                     args.kept_compete)
    skip = hopeless(greedy, kept_scores, {n: t["setting"] for n, t in kept.items()},
                    args.margin)
    if skip:
        print(f"not scored ({len(skip)}: greedy dev more than {args.margin} below the kept "
              f"model's): {', '.join(sorted(skip))}")
    per_language = {n: p for n, p in per_language.items() if n not in skip}
    per_language = storage_variants(per_language, queued, int4, args.only_int4)
    ensembles, ensemble_greedy = ensemble_models(args.ensemble)
    kept_languages = {language_of(n) + "-" + t["setting"] for n, t in kept.items()
                      if not (args.kept_compete and is_per_language(t))}
    ensembles = {n: p for n, p in ensembles.items() if base_name(n) not in kept_languages}
    per_language |= ensembles
    greedy |= ensemble_greedy
    requantized = requantized_kept(args.int4_kept, kept, out_dir)
    per_language |= (requantized | members_alone(args.members_alone, kept, out_dir)
                     | kept_plus_run(args.ensemble_kept, kept, out_dir))
    models.update(per_language)
    models = prepared(models, set(per_language), Path(args.results), args.data_dir, args.int8,
                      frozenset(n for n in per_language if n.endswith(INT4_VARIANT)),
                      frozenset(requantized))
    same = same_as_kept({n: models[n] for n in per_language}, kept, out_dir)
    if same:
        print(f"the kept model itself ({len(same)}, left out): {', '.join(same)}")
    over = (over_limit(models, [n for n in per_language if n not in same],
                       commit_history(out_dir), args.max_commits)
            if args.max_commits is not None else {})
    for name, why in sorted(over.items()):
        print(f"{name}: left out, {why} (--max-commits {args.max_commits})")
    for name in [*same, *over]:
        models.pop(name)
        per_language.pop(name)
        greedy.pop(name, None)
    if not models and not kept:
        raise SystemExit("give --model, --keep or --queue")
    return Candidates(models, per_language, greedy, kept, kept_scores, previous)


def score(args: argparse.Namespace, found: Candidates) -> tuple[dict, dict, Any]:
    """Each model's facts and dev scores (``--results/table-dev-NAME.md`` written), and the
    official baseline."""
    from inflect.corpora.baseline import official_baseline

    facts = {name: model_facts(paths) | {"per_language": name in found.per_language}
             for name, paths in found.models.items()}
    scores = {
        name: evaluate_model(name, paths, facts[name]["languages"], args)
        for name, paths in found.models.items()
    }
    baseline = official_baseline(data_dir=args.data_dir)
    results = Path(args.results)
    for name, frame in scores.items():
        setting = facts[name]["setting"]
        (results / f"table-dev-{name}.md").write_text(results_table(frame, baseline, setting))
        print(f"{name}: macro dev accuracy {frame['accuracy'].mean():.2f} over {len(frame)}")
    return facts, scores, baseline


def score_heldout(args: argparse.Namespace, found: Candidates, facts: dict, scores: dict,
                  out_dir: Path) -> None:
    """With ``--select-on dev+heldout``: every medium model, scored or kept, that serves a
    language with a selection slice (:func:`heldout.selection_slice`) is scored on it
    (:func:`ship_selection.heldout_scores`; a kept model from its shipped files), and its scores
    in ``scores`` or ``found.kept_scores`` get the selection columns
    (:func:`ship_selection.with_selection`)."""
    if args.select_on == "dev":
        return
    medium = {name: paths for name, paths in found.models.items()
              if facts[name]["setting"] == "medium"}
    medium |= {name: [out_dir / m for m in table["members"]] for name, table in found.kept.items()
               if table.get("setting") == "medium"}
    frames = scores | found.kept_scores
    languages = sorted({lang for name in medium for lang in frames[name]["language"]})
    slices = {lang: s for lang in languages if (s := selection_slice(lang, args.data_dir))}
    alone = [lang for lang in languages if lang not in slices
             and not has_high_setting(lang) and dev_words(lang, args.data_dir) < SMALL_DEV]
    print(f"--select-on dev+heldout: {len(slices)} medium languages chosen by dev and a "
          f"selection slice of train-high ({', '.join(slices) or 'none'}); {len(alone)} with "
          f"fewer than {SMALL_DEV} dev words and no high setting by dev alone "
          f"({', '.join(alone) or 'none'})", flush=True)
    sizes = {lang: dev_words(lang, args.data_dir) for lang in slices}
    for name, paths in medium.items():
        own = {lang: slices[lang] for lang in frames[name]["language"] if lang in slices}
        table = scores if name in scores else found.kept_scores
        table[name] = with_selection(frames[name], heldout_scores(name, paths, own, args), sizes)


def choose(args: argparse.Namespace, found: Candidates, facts: dict, scores: dict,
           baseline: Any, out_dir: Path) -> dict[str, str]:
    """Select the per-language models (:func:`ship_selection.select_per_language`): the others
    and the dropped models leave ``found``; a chosen 4-bit variant takes its model's name.
    Returns each model's setting."""
    settings = {name: f["setting"] for name, f in facts.items()}
    settings |= {name: table["setting"] for name, table in found.kept.items()}
    per_language = found.per_language
    pool = set(per_language) | ({n for n, t in found.kept.items() if is_per_language(t)}
                                if args.kept_compete else set())
    sizes = {name: sum(checkpoint_file(p).stat().st_size for p in paths)
             // (1 if name in per_language or args.keep_dtype or args.int8 else 2)  # in float16
             for name, paths in found.models.items()}
    sizes |= {name: sum((out_dir / m).stat().st_size for m in table["members"])
              for name, table in found.kept.items()}
    floors = {(lang, setting): acc for lang, setting, acc
              in zip(baseline["language"], baseline["setting"], baseline["accuracy"], strict=True)
              } if baseline is not None else {}
    chosen, dropped = select_per_language(scores | found.kept_scores, settings, sizes,
                                          pool, args.budget_mb * 1e6, floors,
                                          args.targets, args.first)
    candidates = {language_of(n) + "-" + settings[n] for n in per_language}
    left = sorted(n for n in found.kept if n in pool and n not in chosen)
    for name in [n for n in pool if n not in chosen] + dropped:
        found.models.pop(name, None)
        found.kept.pop(name, None)
        found.kept_scores.pop(name, None)  # a variant chosen in its place takes its name next
    settle_variants(chosen, per_language, found.models, scores, facts, settings)
    in_4_bits = [n for n in chosen if n.endswith(INT4_VARIANT)]
    print(f"per-language models shipped: {len(chosen)} ({len(in_4_bits)} of them in 4 bits) "
          f"of {len(candidates)}"
          + (f"; dropped (no language's best): {', '.join(dropped)}" if dropped else "")
          + (f"; kept models replaced or left out: {', '.join(left)}" if left else ""))
    return settings


def tables(args: argparse.Namespace, found: Candidates, scores: dict, settings: dict[str, str],
           baseline: Any) -> dict[str, Any]:
    """The shipped models' dev scores; the per-language tables of the queues' settings written
    (``--results/table-dev-per-language-SETTING.md``)."""
    shipped = {n: s for n, s in (scores | found.kept_scores).items()
               if n in found.models or n in found.kept}
    queues = args.queue + [f"{setting}={root}" for setting, _, roots in
                           (e.partition("=") for e in args.ensemble) for root in roots.split("+")]
    for setting in sorted({q.partition("=")[0] for q in queues}):
        own = (set(found.per_language) | set(found.greedy)
               | {n for n, t in found.kept.items() if is_per_language(t)})
        table = per_language_table(setting, scores | found.kept_scores, settings, own,
                                   set(shipped), queues, baseline, args.data_dir)
        (Path(args.results) / f"table-dev-per-language-{setting}.md").write_text(table)
        print(table.splitlines()[-1])
    return shipped


def write(args: argparse.Namespace, found: Candidates, facts: dict, shipped: dict[str, Any],
          served: set[str], out_dir: Path) -> None:
    """Store the shipped models' members in ``out_dir``, write ``out_dir/registry.toml``
    (atomically), then remove the weights no model lists."""
    from inflect.io.atomic import atomic_write

    stored = {}
    for name, paths in found.models.items():
        if name in found.per_language:
            language, _, setting = name.rpartition("-")
            stored[name] = store_members(name, paths, out_dir, not (args.keep_dtype or args.int8),
                                         f"per-language/{setting}/{language}")
        else:
            stored[name] = store_members(name, paths, out_dir, not args.keep_dtype)
    text = registry_text(found.models, facts, stored, shipped, found.kept, found.previous,
                         args.select_on)
    atomic_write(out_dir / "registry.toml", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    remove_unshipped(out_dir, [m for ms in stored.values() for m in ms]  # once the registry
                     + [m for table in found.kept.values() for m in table["members"]])  # is new
    size = sum(p.stat().st_size for p in out_dir.rglob("*.safetensors"))
    print(f"wrote {out_dir / 'registry.toml'} ({len(served)} languages, "
          f"{len(found.models) + len(found.kept)} models; {size / 1e6:.1f} MB of weights in "
          f"{out_dir})")


def main(argv: list[str] | None = None) -> None:
    """Gather, score (dev, and the selection slices), choose, then (unless ``--dry-run``) store
    and write the registry."""
    from inflect.text.languages import all_languages

    args = parse_args(argv)
    out_dir = Path(args.out_dir)
    found = gather(args, out_dir)
    facts, scores, baseline = score(args, found)
    score_heldout(args, found, facts, scores, out_dir)
    settings = choose(args, found, facts, scores, baseline, out_dir)
    shipped = tables(args, found, scores, settings, baseline)
    served = {lang for frame in shipped.values() for lang in frame["language"]}
    missing = sorted(s.name for s in all_languages() if s.name not in served)
    if missing:
        print(f"not served: {', '.join(missing)}", file=sys.stderr)
    if args.dry_run:
        return
    if missing:
        raise SystemExit("every language must be served; add a model for those above")
    write(args, found, facts, shipped, served, out_dir)


if __name__ == "__main__":
    main()
