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
Models are scored *as stored* (the prepared files are written to ``--results/prepared/`` first,
see :func:`prepared`).
Only finished languages are taken, and only the per-language models that beat every other model
of their setting on their language's dev set, by decreasing dev gain per MB while the shipped
weights stay within ``--budget-mb`` (100; see :func:`select_per_language`); a model that is then
no language's best (a language's own model beaten by its per-language one) is dropped, and
weight files no model lists are removed. ``--keep NAME`` keeps a model of ``--out-dir``'s
registry as shipped (its files, its table, its dev scores: nothing is scored again).
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import sys
from pathlib import Path
from typing import Any

#: A model's name -> its checkpoints.
Models = dict[str, list[Path]]
#: Weights per float16 scale of a model stored with ``--int4``.
INT4_GROUP = 32
#: Suffix of the name under which a per-language model's 4-bit variant is prepared and scored
#: (``--int4``); it ships under its own name.
INT4_VARIANT = "~int4"
#: ``meta["quantized"]`` of a stored member -> how the registry's description names it.
STORAGE = {"int8-rows": "weights in int8 with a scale per row",
           "int4-groups": f"weights in 4 bits with a scale per {INT4_GROUP}"}


def parse_models(specs: list[str]) -> Models:
    models: Models = {}
    for spec in specs:
        name, _, paths = spec.partition("=")
        if not name or not paths:
            raise SystemExit(f"--model takes NAME=CHECKPOINT[,CHECKPOINT...], got {spec!r}")
        models[name] = [Path(p) for p in paths.split(",") if p]
    return models


def per_language_table(setting: str, scores: dict[str, Any], settings: dict[str, str],
                       per_language: set[str], shipped: set[str], queues: list[str],
                       baseline: Any) -> str:
    """Per language of ``setting``: the official baseline, the best model of the setting that is
    not a per-language one ("before": the multilingual ensemble, or German's own), the
    language's own model (beam 5 where scored; the training-time greedy figure in brackets
    where not; else its queue state: queued, training, interrupted, failed), its CPU minutes,
    and the model that now serves it; with macro-averages and the CPU hours of the queues."""
    from inflect.training.queue import QueueSpec, queue_status

    acc = {n: dict(zip(f["language"], f["accuracy"], strict=True)) for n, f in scores.items()}
    status = {}
    for spec in queues:
        queue_setting, _, root = spec.partition("=")
        if queue_setting == setting and QueueSpec.load(Path(root)).setting == setting:
            status |= {s.language: s for s in queue_status(root)}
    base = baseline[baseline["setting"] == setting]
    base = dict(zip(base["language"], base["accuracy"], strict=True))
    others = [n for n in acc if settings[n] == setting and n not in per_language]
    languages = sorted({lang for n in others for lang in acc[n]})
    lines = [
        "| language | baseline | before | per-language | CPU min | shipped | model |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    cols: dict[str, list[float]] = {"baseline": [], "multi": [], "shipped": []}
    above = 0
    for lang in languages:
        multi = max(acc[n][lang] for n in others if lang in acc[n])
        own_name = f"{lang}-{setting}"
        own = acc.get(own_name, {}).get(lang) if own_name in per_language else None
        st = status.get(lang)
        if own is not None:
            own_text = f"{own:.1f}"
        elif st is not None and st.best_accuracy is not None and st.state == "finished":
            own_text = f"({st.best_accuracy:.1f})"
        else:
            own_text = "—" if st is None else {"new": "queued", "running": "training"}.get(
                st.state, st.state)
        serving = [n for n in acc if lang in acc[n] and settings[n] == setting
                   and n in shipped]
        if not serving:
            continue
        best = max(serving, key=lambda n: acc[n][lang])
        b = base.get(lang)
        cols["multi"].append(multi)
        cols["shipped"].append(acc[best][lang])
        if b is not None:
            cols["baseline"].append(b)
            above += acc[best][lang] >= b
        cpu = f"{st.cpu_seconds / 60:.1f}" if st is not None and st.cpu_seconds else ""
        lines.append(f"| {lang} | {'—' if b is None else f'{b:.1f}'} | {multi:.1f} | "
                     f"{own_text} | {cpu} | {acc[best][lang]:.1f} | {best} |")
    hours = sum(st.cpu_seconds for st in status.values()) / 3600

    def mean(xs: list[float]) -> float:
        return sum(xs) / max(1, len(xs))

    lines.append(f"| **macro ({len(languages)})** | {mean(cols['baseline']):.1f} | "
                 f"{mean(cols['multi']):.1f} | | {hours:.1f} h | **{mean(cols['shipped']):.1f}** "
                 f"| {above} of {len(cols['baseline'])} at or above the baseline |")
    return "\n".join(lines) + "\n"


def queue_models(specs: list[str]) -> tuple[Models, dict[str, float]]:
    """``LANGUAGE-SETTING`` -> [the language's run folder] for every ``SETTING=ROOT`` queue, for
    the languages whose run has finished (a running one's model is not its last); and each
    one's best dev accuracy during training (greedy, from its metrics). A language finished in
    two queues (e.g. a warm start and a smaller network from scratch) gives the run that
    :func:`keep_better_run` keeps."""
    from inflect.training.queue import QueueSpec, language_status

    models: Models = {}
    greedy: dict[str, float] = {}
    for spec in specs:
        setting, _, root = spec.partition("=")
        if not setting or not root:
            raise SystemExit(f"--queue takes SETTING=ROOT, got {spec!r}")
        queue = QueueSpec.load(Path(root))
        if queue.setting != setting:
            raise SystemExit(f"{root} is a queue of setting {queue.setting}, not {setting}")
        for lang in queue.languages:
            status = language_status(Path(root), lang)
            if status.state == "finished":
                keep_better_run(models, greedy, f"{lang}-{setting}", Path(root) / lang,
                                status.best_accuracy)
    return models, greedy


def keep_better_run(models: Models, greedy: dict[str, float], name: str, run: Path,
                    accuracy: float | None) -> None:
    """Add the run folder ``run`` as the model ``name`` unless ``models`` already has a run of
    that name as good: the better training-time dev accuracy (greedy) wins, and on a tie the
    smaller ``model.safetensors`` (the same accuracy in fewer shipped bytes); the first run
    on a tie of both."""
    accuracy = -1.0 if accuracy is None else float(accuracy)
    if name in models:
        old_run = models[name][0]
        old = greedy.get(name, -1.0)
        size, old_size = (checkpoint_file(r).stat().st_size for r in (run, old_run))
        wins = accuracy > old or (accuracy == old and size < old_size)
        print(f"{name}: finished in two queues ({old_run}: greedy dev {old:.1f}, "
              f"{old_size / 1e6:.2f} MB; {run}: {accuracy:.1f}, {size / 1e6:.2f} MB): "
              f"{run if wins else old_run} competes")
        if not wins:
            return
    models[name] = [run]
    greedy[name] = accuracy


def hopeless(greedy: dict[str, float], others: dict[str, Any], settings: dict[str, str],
             margin: float) -> list[str]:
    """The per-language models whose training-time dev accuracy (greedy) is more than
    ``margin`` points below the best other model of their setting on their language (beam 5):
    not worth the beam-5 scoring."""
    out = []
    for name, acc in greedy.items():
        lang, setting = name.rpartition("-")[0], name.rpartition("-")[2]
        best = max((float(frame.loc[frame["language"] == lang, "accuracy"].max())
                    for n, frame in others.items()
                    if settings.get(n) == setting and (frame["language"] == lang).any()),
                   default=-1.0)
        if acc < best - margin:
            out.append(name)
    return out


def kept_models(names: list[str], out_dir: Path) -> tuple[dict[str, dict], dict[str, Any]]:
    """The ``[model.NAME]`` tables of already shipped models (``out_dir/registry.toml``) and
    their per-language dev scores (a frame of language, accuracy), kept as they are: neither
    scored again nor stored again."""
    import tomllib

    import pandas as pd

    registry = tomllib.loads((out_dir / "registry.toml").read_text(encoding="utf-8"))
    tables, scores = {}, {}
    for name in names:
        if name not in registry.get("model", {}):
            raise SystemExit(f"--keep {name}: no such model in {out_dir / 'registry.toml'}")
        tables[name] = registry["model"][name]
        rows = [(lang, acc) for lang, served in registry.get("language", {}).items()
                for model, acc in served.items() if model == name]
        scores[name] = pd.DataFrame(rows, columns=["language", "accuracy"])
    return tables, scores


def language_of(name: str) -> str:
    """The language of a per-language model ``LANGUAGE-SETTING`` (or of its 4-bit variant,
    ``LANGUAGE-SETTING`` + :data:`INT4_VARIANT`)."""
    return name.removesuffix(INT4_VARIANT).rpartition("-")[0]


def select_per_language(scores: dict[str, Any], settings: dict[str, str],
                        sizes: dict[str, int], per_language: set[str], budget: float,
                        floors: dict[tuple[str, str], float] | None = None,
                        targets: dict[str, float] | None = None,
                        ) -> tuple[list[str], list[str]]:
    """Which per-language models to ship, and which other models no language needs.

    A per-language model ``LANG-SETTING`` is a candidate when it beats, on LANG's dev set, every
    other model of its setting that serves LANG. A language may have several candidates (the
    same model stored in int8 and in 4 bits: ``--int4``); at most one of them ships. The
    candidates are taken one at a time, each time the one of the largest gain per byte over
    what serves its language so far (a language's other candidate, once taken, is replaced:
    the gain and the bytes are the difference), while the total size of the shipped weights
    stays within ``budget`` (bytes; the non-per-language models count first). First come the
    candidates that lift LANG from below its floor (``floors[LANG, SETTING]``: the official
    baseline) to at or above it, one per language. With ``targets`` (``{SETTING: macro}``, e.g.
    the issue's medium macro of 80), the candidates of such a setting come next until the
    setting's macro dev accuracy (the mean over its languages of each one's best shipped model)
    reaches the target; the others follow. Then a model that is the best of its setting for no
    language is dropped (e.g. a language's own model that a new per-language model beats).
    Returns (the chosen per-language models, the dropped other models)."""
    acc = {name: dict(zip(frame["language"], frame["accuracy"], strict=True))
           for name, frame in scores.items()}
    others: dict[tuple[str, str], float] = {}  # the best other model of each language's setting
    for name, a in acc.items():
        if name not in per_language:
            for lang, value in a.items():
                key = (lang, settings[name])
                others[key] = max(others.get(key, -1.0), value)

    def key_of(name: str) -> tuple[str, str]:
        return language_of(name), settings[name]

    held: dict[tuple[str, str], str] = {}  # the per-language model taken for each language

    def serving(key: tuple[str, str]) -> float:
        taken = held.get(key)
        return max(others.get(key, -1.0), acc[taken][key[0]] if taken else -1.0)

    def own(name: str) -> float:
        return acc[name][language_of(name)]

    candidates = [n for n in per_language if own(n) > others.get(key_of(n), -1.0)]
    lifts = set()
    for name in candidates:
        floor = (floors or {}).get(key_of(name))
        if floor is not None and others.get(key_of(name), -1.0) < floor <= own(name):
            lifts.add(name)
    total = sum(size for name, size in sizes.items() if name not in per_language)

    def step(name: str) -> tuple[float, int]:
        """The gain (points on its language) and the bytes of taking ``name`` now."""
        key = key_of(name)
        taken = held.get(key)
        return own(name) - serving(key), sizes[name] - (sizes[taken] if taken else 0)

    def take_best(pool: list[str]) -> bool:
        """Take the candidate of ``pool`` of the largest gain per byte that fits."""
        nonlocal total
        options = []
        for name in pool:
            gain, extra = step(name)
            if held.get(key_of(name)) != name and gain > 0 and total + extra <= budget:
                options.append((gain / extra if extra > 0 else float("inf"), name))
        if not options:
            return False
        name = max(options)[1]
        total += step(name)[1]
        held[key_of(name)] = name
        return True

    while take_best([n for n in lifts if key_of(n) not in held]):
        pass
    for setting, target in (targets or {}).items():
        keys = sorted({(lang, setting) for n, a in acc.items() if settings[n] == setting
                       for lang in a})
        pool = [n for n in candidates if settings[n] == setting]
        while sum(serving(key) for key in keys) / len(keys) < target and take_best(pool):
            pass
    while take_best(candidates):
        pass
    chosen = set(held.values())

    def best_without(lang: str, setting: str, exclude: str) -> float:
        return max((a[lang] for n, a in acc.items() if n != exclude and lang in a
                    and settings[n] == setting and (n not in per_language or n in chosen)),
                   default=-1.0)

    dropped = [name for name, a in acc.items() if name not in per_language and not any(
        value >= best_without(lang, settings[name], name) for lang, value in a.items())]
    return sorted(chosen), dropped


def settle_variants(chosen: list[str], *tables: dict[str, Any]) -> None:
    """In each table (name -> anything), the 4-bit variants (``NAME`` + :data:`INT4_VARIANT`)
    settled: a chosen one takes its model's own name (replacing the other storage's entry),
    the others are removed."""
    for table in tables:
        for name in [n for n in table if n.endswith(INT4_VARIANT)]:
            value = table.pop(name)
            if name in chosen:
                table[name.removesuffix(INT4_VARIANT)] = value


def previous_models(out_dir: Path) -> dict[str, dict]:
    """The ``[model.NAME]`` tables of ``out_dir/registry.toml`` (none where there is none)."""
    import tomllib

    registry = out_dir / "registry.toml"
    if not registry.is_file():
        return {}
    return tomllib.loads(registry.read_text(encoding="utf-8")).get("model", {})


def shipped_per_language(out_dir: Path) -> tuple[Models, dict[str, float]]:
    """The per-language models of ``out_dir/registry.toml`` (members under ``per-language/``),
    as candidates to ship again (prepared and scored like a queue's), with each one's best dev
    accuracy during training (greedy, from its checkpoint)."""
    import tomllib

    from inflect.nn.checkpoint import load_metadata

    registry = tomllib.loads((out_dir / "registry.toml").read_text(encoding="utf-8"))
    models: Models = {}
    greedy: dict[str, float] = {}
    for name, table in registry.get("model", {}).items():
        if all(m.startswith("per-language/") for m in table["members"]):
            models[name] = [out_dir / m for m in table["members"]]
            training = load_metadata(models[name][0]).get("training") or {}
            greedy[name] = float(training.get("best_accuracy", -1.0))
    return models, greedy


def storage_variants(candidates: Models, queued: Models, int4: set[str]) -> Models:
    """The per-language candidates, each under the name of its storage; the selection ships
    at most one storage of a model:

    * a model stored in 4 bits (a shipped copy, ``--reship``) competes as NAME~int4
      (:data:`INT4_VARIANT`), taken as it is; its int8 storage only where ``int4`` names it,
      from its queue's float checkpoint;
    * another model named in ``int4`` competes twice: as it is, and in 4 bits from its queue's
      float checkpoint.

    So a model left out of ``int4`` (its weight file committed twice) can only ship as it is.
    """
    from inflect.nn.checkpoint import INT4_GROUPS, load_metadata

    out: Models = {}
    for name, paths in candidates.items():
        four = load_metadata(checkpoint_file(paths[0])).get("quantized") == INT4_GROUPS
        stored, other = (name + INT4_VARIANT, name) if four else (name, name + INT4_VARIANT)
        out[stored] = paths
        if name in int4 and name in queued:
            out[other] = queued[name]  # the other storage, from the queue's float checkpoint
    return out


def reship_candidates(shipped: Models, shipped_greedy: dict[str, float], queued: Models,
                      queued_greedy: dict[str, float]) -> tuple[Models, dict[str, float]]:
    """The shipped per-language models and the queues' together; where both have a model of one
    name (a language trained again), the one with the better training-time dev accuracy
    (greedy) stays, the shipped one on a tie."""
    models, greedy = dict(shipped), dict(shipped_greedy)
    for name, paths in queued.items():
        if name in models:
            new, old = queued_greedy.get(name, -1.0), shipped_greedy.get(name, -1.0)
            kept = "the queue's" if new > old else "the shipped"
            print(f"{name}: shipped and queued (greedy dev {old:.1f} and {new:.1f}): "
                  f"{kept} one competes")
            if new <= old:
                continue
        models[name], greedy[name] = paths, queued_greedy.get(name, -1.0)
    return models, greedy


def prepared(models: Models, per_language: set[str], results: Path, data_dir: str | None,
             int8: bool, int4: frozenset[str] = frozenset()) -> Models:
    """The same models with every member made ready to ship, written to
    ``results/prepared/NAME/`` (rewritten when the member's checkpoint changed: the copy records
    the source's SHA-256 and what was done):

    * the records a search takes from the training data (output length limits and each
      language's output alphabet, :func:`inflect.training.items.record_training_data`), for a
      checkpoint written before the trainer made them;
    * a per-language model (``per_language``) restricted to the symbols, features and language
      of its training data (:func:`inflect.nn.trim.restrict_to_items`: a warm start's
      multilingual rows dropped);
    * with ``int8``, int8 weights (:func:`inflect.nn.checkpoint.quantize_int8`; an int8 member
      stays as it is); a model named in ``int4``, 4-bit weights with a float16 scale per 32
      (:func:`inflect.nn.checkpoint.quantize_int4`), from a float checkpoint only.

    A member that is itself such a copy, prepared the same way (a shipped member shipped again),
    is taken as it is: preparing it again would change its bytes and so its cached scores.

    Raises:
        SystemExit: a member stored in 4 bits that is to be prepared another way, or a model
            named in ``int4`` whose member is already quantized (quantizing twice adds the
            errors: give its queue's float checkpoint).
    """
    from inflect.io.atomic import atomic_write, sha256_of
    from inflect.nn.checkpoint import (
        INT4_GROUPS,
        INT8_ROWS,
        load_metadata,
        load_tensors,
        quantize_int4,
        quantize_int8,
    )
    from inflect.nn.checkpoint import save_tensors as save
    from inflect.nn.model import Seq2Seq
    from inflect.nn.trim import restrict_to_items
    from inflect.training.config import Config
    from inflect.training.items import load_data, record_training_data

    out: Models = {}
    for name, paths in models.items():
        out[name] = []
        for k, path in enumerate(paths, 1):
            source = checkpoint_file(path)
            target = results / "prepared" / name / f"member-{k}.safetensors"
            record = {"source_sha256": sha256_of(source), "recorded": True,
                      "trimmed": name in per_language, "int8": int8 and name not in int4}
            if name in int4:
                record["int4"] = INT4_GROUP
            already = load_metadata(source).get("prepared_from")
            if already and {**already, "source_sha256": None} == {**record, "source_sha256": None}:
                # a member shipped before, prepared the same way: shipped again as it is
                if not target.is_file() or load_metadata(target).get("prepared_from") != already:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write(target, functools.partial(shutil.copyfile, source))
                out[name].append(target)
                continue
            if not target.is_file() or load_metadata(target).get("prepared_from") != record:
                print(f"{name}: preparing member {k} ({source})", flush=True)
                tensors, meta = load_tensors(source)
                stored_as = meta.get("quantized")
                if stored_as == INT4_GROUPS or (stored_as and name in int4):
                    raise SystemExit(
                        f"{name}: {source} is stored in {stored_as}; to store it "
                        f"{'in int4' if name in int4 else 'otherwise'}, give the float "
                        "checkpoint it was prepared from (its queue's run folder)")
                data = (meta.get("training") or {}).get("data") or {}
                languages = "all" if data.get("smaller_settings") else data["languages"]
                items = load_data(languages, data["setting"], data_dir).train
                network = Seq2Seq.from_metadata(meta["model"])
                record_training_data(network, items)
                # the network's fields and, beside them, the training procedure's, as stored
                settings = Config.from_dict(meta["model"]["config"]).train.to_dict()
                meta = meta | {"model": network.metadata(settings)}
                if name in per_language:
                    tensors, meta = restrict_to_items(tensors, meta, items)
                if name in int4:
                    tensors = quantize_int4(tensors, group=INT4_GROUP)
                    meta = meta | {"quantized": INT4_GROUPS}
                elif int8:
                    tensors, meta = quantize_int8(tensors), meta | {"quantized": INT8_ROWS}
                target.parent.mkdir(parents=True, exist_ok=True)
                save(target, tensors, meta | {"prepared_from": record})
            out[name].append(target)
    return out


def checkpoint_file(path: Path) -> Path:
    return path / "model.safetensors" if path.is_dir() else path


def model_facts(paths: list[Path]) -> dict[str, Any]:
    """Languages, setting, config and data description of the first member."""
    from inflect.nn.checkpoint import load_tensors

    _, meta = load_tensors(checkpoint_file(paths[0]))
    training = meta.get("training") or {}
    data = training.get("data") or {}
    languages = [d["name"] for d in meta.get("languages", [])]
    member_configs, member_trainings = [meta["model"]["config"]], [training]
    for path in paths[1:]:
        member_meta = load_tensors(checkpoint_file(path))[1]
        member_configs.append(member_meta["model"]["config"])
        member_trainings.append(member_meta.get("training") or {})
    return {
        "languages": languages,
        "quantized": meta.get("quantized"),
        "setting": data.get("setting", ""),
        "config": meta["model"]["config"],
        "member_configs": member_configs,
        "member_trainings": member_trainings,
        "data": data,
        "training": training,
    }


def checkout_relative(path: str) -> str:
    """``path`` relative to this checkout where it lies inside it (a shipped member, as
    ``inflect/models/...``); a shipped member of another copy of the package (a snapshot of the
    code that a long run trained with) by its path in the package, ``inflect/models/...``;
    else as given."""
    root = Path(__file__).resolve().parents[2]
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        parts = Path(path).parts
        for i in range(len(parts) - 1):
            if parts[i : i + 2] == ("inflect", "models"):
                return Path(*parts[i:]).as_posix()
        return path


def command_of(facts: dict[str, Any], member: int, out: str | None = None) -> str:
    """The `inflect train` command that matches a member's stored config and data (``out``:
    its --out, else ``runs/SETTING-memberK``)."""
    configs = facts.get("member_configs") or [facts["config"]]
    cfg, data = configs[min(member, len(configs)) - 1], facts["data"]
    lang = "all" if len(facts["languages"]) > 1 else facts["languages"][0]
    parts = [
        "inflect train",
        f"--lang {lang}",
        f"--setting {facts['setting']}",
        f"--attention {cfg['attention_mapping']}",
        f"--output {cfg['output_mapping']}",
        f"--seed {cfg['seed']}",
    ]
    if cfg.get("preset"):
        parts.append(f"--preset {cfg['preset']}")
    from inflect.training.config import Config

    preset = Config.from_preset(cfg.get("preset")).to_dict()
    if cfg.get("dev_sample") or preset["dev_sample"]:
        parts.append(f"--dev-sample {cfg['dev_sample']}")
    if cfg.get("language_temperature", 1.0) != 1.0:
        parts.append(f"--language-temperature {cfg['language_temperature']}")
    for key in ("emb_dim", "hidden_dim", "layers"):  # a network size other than the preset's
        if cfg.get(key, preset[key]) != preset[key]:
            parts.append(f"--{key.replace('_', '-')} {cfg[key]}")
    trainings = facts.get("member_trainings") or [facts.get("training") or {}]
    init = trainings[min(member, len(trainings)) - 1].get("init_from")
    chosen = out
    out = f"runs/{data.get('setting', 'run')}-member{member}"
    if lang != "all" and facts.get("per_language"):
        out = f"runs/{data.get('setting', 'run')}/{lang}" + (f"-{member}" if member > 1 else "")
    if not init and cfg["learning_rate"] != preset["learning_rate"]:
        parts.append(f"--learning-rate {cfg['learning_rate']:g}")
    if init:  # a warm start: the checkpoint it began from, and its learning rate
        parts.append(f"--init-from {checkout_relative(init['path'])} "
                     f"--learning-rate {cfg['learning_rate']:g}")
        if Path(init["path"]).parent == Path(out):  # the start's own run folder
            out += "-warm"
    parts.append(f"--epochs {cfg['max_epochs']} --patience {cfg['patience']}")
    parts.append(f"--out {chosen or out}")
    return " ".join(parts)


def start_of(facts: dict[str, Any], previous: dict[str, Any] | None = None,
             ) -> tuple[list[str], str]:
    """The warm start of the members (their ``--init-from``), as the registry's
    ``start_commands`` and ``start_note``: the start's own command where its checkpoint is at
    the recorded path (read from its stored config, writing to the start's run folder), else
    none and a note saying that it is not recorded. Nothing for members trained from scratch.
    ``previous``: the model's table in the registry being replaced; where no command can be
    derived here and its ``start_note`` names the SHA-256 of every start, its
    ``start_commands`` and ``start_note`` (written by hand where the start's run was lost) are
    kept."""
    starts: dict[str, dict] = {}
    for k, training in enumerate(facts.get("member_trainings") or [], 1):
        init = training.get("init_from")
        if init:
            starts.setdefault(init["path"], {**init, "members": []})["members"].append(k)
    commands, notes = [], []
    for path, init in starts.items():
        which = ", ".join(str(k) for k in init["members"])
        where = f"{path} (SHA-256 {init.get('sha256', '?')}, the --init-from of member(s) {which})"
        shipped = checkout_relative(path)
        if shipped.startswith("inflect/models/"):  # a shipped member: its model lists how
            notes.append(f"{shipped} (SHA-256 {init.get('sha256', '?')}, the --init-from of "
                         f"member(s) {which}): a member of a shipped model, whose entry has its "
                         "command; the file of that SHA-256 is in the repository's history (a "
                         "later ship may store the member again, in int8)")
        elif Path(path).is_file():
            start = model_facts([Path(path)])
            commands.append(command_of(start, 1, out=str(Path(path).parent)))
            notes.append(f"{where}: made by the command above")
        else:
            notes.append(f"{where}: not here, so its command is not recorded")
    if not commands and previous and previous.get("start_commands"):
        digests = [init.get("sha256") for init in starts.values()]
        note = previous.get("start_note", "")
        if digests and all(d and d in note for d in digests):
            return list(previous["start_commands"]), note
    return commands, "; ".join(notes)


def members_digest(paths: list[Path]) -> list[str]:
    """SHA-256 of each member's checkpoint file, in ensemble order: what a cached score is for."""
    from inflect.io.atomic import sha256_of

    return [sha256_of(checkpoint_file(path)) for path in paths]


def evaluate_model(name: str, paths: list[Path], languages: list[str], args: argparse.Namespace):
    """Per-language dev scores of the ensemble, cached as ``results/NAME.csv`` beside
    ``results/NAME.members.json`` (the members' digests): a cache made for other members (a run
    that trained on, another ensemble) is scored again, never reused."""
    import pandas as pd

    from inflect.evaluation.runner import evaluate_checkpoints
    from inflect.evaluation.scoring import MACRO

    cache = Path(args.results) / f"{name}.csv"
    key_file = cache.with_suffix(".members.json")
    key = {"members": [str(p) for p in paths], "sha256": members_digest(paths)}
    if cache.is_file() and not args.rescore:
        cached_key = json.loads(key_file.read_text()) if key_file.is_file() else None
        if cached_key is not None and cached_key["sha256"] == key["sha256"]:
            print(f"{name}: cached scores ({cache})", flush=True)
            return pd.read_csv(cache)
        print(f"{name}: the cached scores in {cache} are for other members: scoring again",
              flush=True)
    frames = []
    for i, lang in enumerate(languages, 1):
        print(f"{name}: {lang} ({i}/{len(languages)})", flush=True)
        result = evaluate_checkpoints(
            [str(p) for p in paths], [lang], "dev", data_dir=args.data_dir, beam_size=5,
            device=args.device,
        )
        frames.append(result.frame[result.frame["language"] != MACRO])
    frame = pd.concat(frames, ignore_index=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(cache, index=False)
    key_file.write_text(json.dumps(key, indent=1) + "\n")
    return frame


def store_members(name: str, paths: list[Path], out_dir: Path, half: bool,
                  folder_name: str | None = None) -> list[str]:
    """Write the members to ``out_dir/FOLDER/member-k.safetensors`` (FOLDER: ``folder_name``,
    default NAME); their paths relative to ``out_dir``. Every member is read before anything is
    written (the members may already lie in ``out_dir/FOLDER``: re-shipping a shipped model),
    into a new folder that then replaces the old one."""
    import torch

    from inflect.nn.checkpoint import load_tensors, save_tensors

    members = [load_tensors(checkpoint_file(path)) for path in paths]
    name = folder_name or name
    folder = out_dir / name
    staging = folder.parent / f".{folder.name}.new"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    rel = []
    for k, (tensors, meta) in enumerate(members, 1):
        if half:
            tensors = {
                n: (t.to(torch.float16) if t.is_floating_point() else t) for n, t in tensors.items()
            }
        save_tensors(staging / f"member-{k}.safetensors", tensors, meta)
        rel.append(f"{name}/member-{k}.safetensors")
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    return rel


def registry_text(
    models: Models, facts: dict[str, dict], stored: dict[str, list[str]], scores: dict[str, Any],
    kept: dict[str, dict] | None = None, previous: dict[str, dict] | None = None,
) -> str:
    """Registry version 2 (see inflect.inference.registry); ``kept``: ``[model.NAME]`` tables written as
    they were; ``previous``: the ``[model.NAME]`` tables of the registry being replaced (for
    :func:`start_of`)."""
    lines = [
        "# Shipped default models of `inflect predict` (listed by `inflect models`), written by",
        "# recipes/sigmorphon2018/ship.py. [model.NAME]: an ensemble of members; [language.NAME]:",
        "# the dev accuracy (percent, beam 5) of each model serving the language.",
        "",
        "version = 2",
    ]
    for name in models:
        f = facts[name]
        cfg = f["config"]
        n_lang = len(f["languages"])
        desc = (
            f"ensemble of {len(stored[name])} {cfg['attention_mapping']} attention / "
            f"{cfg['output_mapping']} output models, preset {cfg.get('preset') or 'paper'} "
            f"(embeddings {cfg['emb_dim']}, hidden {cfg['hidden_dim']}), "
            f"{n_lang} language{'s' if n_lang > 1 else ''}, "
            + STORAGE.get(f.get("quantized"), "weights in float16")
        )
        data = (
            f"conll2018-task1: train-{f['setting']} of {n_lang} language(s) "
            f"({f['data'].get('train_examples', '?')} pairs), selected on dev"
        )
        if f["data"].get("smaller_settings"):
            data += "; with the low-setting data of " + ", ".join(f["data"]["smaller_settings"])
        lines += [
            "",
            f"[model.{name}]",
            "members = [" + ", ".join(json.dumps(m) for m in stored[name]) + "]",
            f"setting = {json.dumps(f['setting'])}",
            f"data = {json.dumps(data)}",
            f"description = {json.dumps(desc)}",
            "commands = [",
            *[f"  {json.dumps(command_of(f, k))}," for k in range(1, len(stored[name]) + 1)],
            "]",
        ]
        start_commands, start_note = start_of(f, (previous or {}).get(name))
        if start_commands:
            lines += ["start_commands = [", *[f"  {json.dumps(c)}," for c in start_commands], "]"]
        if start_note:
            lines.append(f"start_note = {json.dumps(start_note)}")
    for name, table in (kept or {}).items():
        lines += ["", f"[model.{name}]"]
        for key, value in table.items():
            if isinstance(value, list):
                lines += [f"{key} = [", *[f"  {json.dumps(v)}," for v in value], "]"]
            else:
                lines.append(f"{key} = {json.dumps(value)}")
    by_language: dict[str, dict[str, float]] = {}
    for name, frame in scores.items():
        for row in frame.itertuples():
            by_language.setdefault(row.language, {})[name] = round(float(row.accuracy), 2)
    for lang in sorted(by_language):
        lines += ["", f"[language.{lang}]"]
        lines += [f"{json.dumps(m)} = {acc}" for m, acc in by_language[lang].items()]
    return "\n".join(lines) + "\n"


def results_table(frame, baseline, setting: str) -> str:
    """Per-language dev accuracy beside the official baseline, with certificate shares."""
    base = {}
    if baseline is not None:
        b = baseline[baseline["setting"] == setting]
        base = dict(zip(b["language"], b["accuracy"], strict=True))
    lines = [
        "| language | dev accuracy | baseline | ≥ baseline | full support | mode only | "
        "one form | forms per input |",
        "|---|---:|---:|:-:|---:|---:|---:|---:|",
    ]
    rows = frame.sort_values("language")
    at_or_above = 0
    for row in rows.itertuples():
        b = base.get(row.language)
        ok = b is not None and row.accuracy >= b
        at_or_above += ok
        lines.append(
            f"| {row.language} | {row.accuracy:.1f} | {'—' if b is None else f'{b:.1f}'} | "
            f"{'yes' if ok else ('no' if b is not None else '—')} | "
            f"{100 * row.full_support:.1f} | {100 * row.mode_only:.1f} | "
            f"{100 * row.single_string:.1f} | {row.mean_strings:.2f} |"
        )
    with_base = [r for r in rows.itertuples() if r.language in base]
    macro_base = sum(base[r.language] for r in with_base) / max(1, len(with_base))
    lines.append(
        f"| **macro-average ({len(rows)})** | **{rows['accuracy'].mean():.1f}** | "
        f"{macro_base:.1f} | {at_or_above} of {len(with_base)} | "
        f"{100 * rows['full_support'].mean():.1f} | {100 * rows['mode_only'].mean():.1f} | "
        f"{100 * rows['single_string'].mean():.1f} | {rows['mean_strings'].mean():.2f} |"
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", action="append", default=[], metavar="NAME=CKPT[,CKPT]")
    parser.add_argument("--keep", action="append", default=[], metavar="NAME",
                        help="a model of --out-dir's registry, kept as shipped (not rescored)")
    parser.add_argument("--queue", action="append", default=[], metavar="SETTING=ROOT",
                        help="every finished language of an `inflect queue` folder, one model each")
    parser.add_argument("--int8", action="store_true",
                        help="store the models in int8 with per-row scales (scored as stored)")
    parser.add_argument("--int4", action="append", default=[], metavar="NAME[,NAME...]",
                        help="these per-language models (LANGUAGE-SETTING, from a --queue) "
                             "compete twice: stored as the others, and in 4 bits with a scale "
                             "per 32 weights (from the queue's float checkpoint); each scored "
                             "as stored, at most one ships (repeatable)")
    parser.add_argument("--reship", action="store_true",
                        help="the per-language models of --out-dir's registry compete again, "
                             "prepared and scored like the --queue ones")
    parser.add_argument("--budget-mb", type=float, default=100.0,
                        help="the shipped weights' total size; per-language models are added by "
                             "dev gain per MB while it holds (default 100)")
    parser.add_argument("--macro-target", action="append", default=[], metavar="SETTING=ACC",
                        help="per-language models of SETTING come first (after the baseline "
                             "lifts) until its macro dev accuracy reaches ACC (repeatable)")
    parser.add_argument("--margin", type=float, default=1.0,
                        help="a --queue model whose greedy dev accuracy in training is more than "
                             "this many points below a --keep model of its setting on its "
                             "language is not scored (default 1)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out-dir", default="inflect/models")
    parser.add_argument("--results", default="runs/ship")
    parser.add_argument("--keep-dtype", action="store_true", help="do not store float16")
    parser.add_argument("--rescore", action="store_true", help="ignore cached scores")
    parser.add_argument("--dry-run", action="store_true", help="score and tabulate only")
    parser.add_argument("--device", default="auto", help="where the models are evaluated")
    args = parser.parse_args()

    from inflect.corpora.baseline import official_baseline
    from inflect.text.languages import all_languages

    out_dir = Path(args.out_dir)
    models = parse_models(args.model)
    int4 = sorted({n for spec in args.int4 for n in spec.split(",") if n})
    per_language, greedy = queue_models(args.queue)
    queued = dict(per_language)
    unknown = [n for n in int4 if n not in queued]
    if unknown:
        raise SystemExit(f"--int4 needs the float checkpoint of a finished --queue language; "
                         f"none for {', '.join(unknown)}")
    if args.reship:
        again, again_greedy = shipped_per_language(out_dir)
        per_language, greedy = reship_candidates(again, again_greedy, per_language, greedy)
    kept, kept_scores = kept_models(args.keep, out_dir)
    previous = previous_models(out_dir)
    for name in sorted(set(per_language) & set(kept)):  # e.g. German's own model, german-high
        print(f"{name}: a --keep model has this name; the queue's model is left out")
        per_language.pop(name)
        greedy.pop(name)
    skip = hopeless(greedy, kept_scores, {n: t["setting"] for n, t in kept.items()},
                    args.margin)
    if skip:
        print(f"not scored ({len(skip)}: greedy dev more than {args.margin} below the kept "
              f"model's): {', '.join(sorted(skip))}")
    per_language = {n: p for n, p in per_language.items() if n not in skip}
    per_language = storage_variants(per_language, queued, set(int4))
    models.update(per_language)
    models = prepared(models, set(per_language), Path(args.results), args.data_dir, args.int8,
                      frozenset(n for n in per_language if n.endswith(INT4_VARIANT)))
    if not models and not kept:
        raise SystemExit("give --model, --keep or --queue")
    facts = {name: model_facts(paths) | {"per_language": name in per_language}
             for name, paths in models.items()}
    scores = {
        name: evaluate_model(name, paths, facts[name]["languages"], args)
        for name, paths in models.items()
    }
    baseline = official_baseline(data_dir=args.data_dir)
    results = Path(args.results)
    for name, frame in scores.items():
        setting = facts[name]["setting"]
        (results / f"table-dev-{name}.md").write_text(results_table(frame, baseline, setting))
        print(f"{name}: macro dev accuracy {frame['accuracy'].mean():.2f} over {len(frame)}")
    settings = {name: f["setting"] for name, f in facts.items()}
    settings |= {name: table["setting"] for name, table in kept.items()}
    sizes = {name: sum(checkpoint_file(p).stat().st_size for p in paths)
             // (1 if name in per_language or args.keep_dtype or args.int8 else 2)  # in float16
             for name, paths in models.items()}
    sizes |= {name: sum((out_dir / m).stat().st_size for m in table["members"])
              for name, table in kept.items()}
    floors = {(lang, setting): acc for lang, setting, acc
              in zip(baseline["language"], baseline["setting"], baseline["accuracy"], strict=True)
              } if baseline is not None else {}
    targets = {}
    for spec in args.macro_target:
        setting, _, acc = spec.partition("=")
        try:
            targets[setting] = float(acc)
        except ValueError:
            raise SystemExit(f"--macro-target takes SETTING=ACC, got {spec!r}") from None
    chosen, dropped = select_per_language(scores | kept_scores, settings, sizes,
                                          set(per_language), args.budget_mb * 1e6, floors,
                                          targets)
    candidates = {language_of(n) + "-" + settings[n] for n in per_language}
    for name in [n for n in per_language if n not in chosen] + dropped:
        models.pop(name, None)
        kept.pop(name, None)
    settle_variants(chosen, per_language, models, scores, facts, settings)
    in_4_bits = [n for n in chosen if n.endswith(INT4_VARIANT)]
    print(f"per-language models shipped: {len(chosen)} ({len(in_4_bits)} of them in 4 bits) "
          f"of {len(candidates)}"
          + (f"; dropped (no language's best): {', '.join(dropped)}" if dropped else ""))
    shipped = {n: s for n, s in (scores | kept_scores).items() if n in models or n in kept}
    for setting in sorted({q.partition("=")[0] for q in args.queue}):
        table = per_language_table(setting, scores | kept_scores, settings, set(per_language)
                                   | set(greedy), set(shipped), args.queue, baseline)
        (results / f"table-dev-per-language-{setting}.md").write_text(table)
        print(table.splitlines()[-1])
    served = {lang for frame in shipped.values() for lang in frame["language"]}
    missing = sorted(s.name for s in all_languages() if s.name not in served)
    if missing:
        print(f"not served: {', '.join(missing)}", file=sys.stderr)
    if args.dry_run:
        return
    if missing:
        raise SystemExit("every language must be served; add a model for those above")
    stored = {}
    for name, paths in models.items():
        if name in per_language:
            language, _, setting = name.rpartition("-")
            stored[name] = store_members(name, paths, out_dir, not (args.keep_dtype or args.int8),
                                         f"per-language/{setting}/{language}")
        else:
            stored[name] = store_members(name, paths, out_dir, not args.keep_dtype)
    remove_unshipped(out_dir, [m for ms in stored.values() for m in ms]
                     + [m for table in kept.values() for m in table["members"]])
    (out_dir / "registry.toml").write_text(
        registry_text(models, facts, stored, shipped, kept, previous))
    size = sum(p.stat().st_size for p in out_dir.rglob("*.safetensors"))
    print(f"wrote {out_dir / 'registry.toml'} ({len(served)} languages, "
          f"{len(models) + len(kept)} models; {size / 1e6:.1f} MB of weights in {out_dir})")


def remove_unshipped(out_dir: Path, members: list[str]) -> None:
    """Remove the weight files under ``out_dir`` that no shipped model lists (a model dropped
    or replaced), and the folders they leave empty."""
    keep = {(out_dir / m).resolve() for m in members}
    for path in sorted(out_dir.rglob("*.safetensors")):
        if path.resolve() not in keep:
            print(f"removed {path} (no longer shipped)")
            path.unlink()
    for folder in sorted((p for p in out_dir.rglob("*") if p.is_dir()), reverse=True):
        if not any(folder.iterdir()):
            folder.rmdir()


if __name__ == "__main__":
    main()
