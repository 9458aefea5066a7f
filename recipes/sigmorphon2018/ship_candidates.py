"""ship.py's candidates: which models compete to be shipped, under which names.

A model is ``NAME -> [its member checkpoints]`` (:data:`Models`): given on the command line
(``--model``), a finished language of an ``inflect queue`` folder (``--queue``, one model
``LANGUAGE-SETTING`` each, :func:`queue_models`), a per-language model already shipped
(``--reship``, :func:`shipped_per_language`), or a model of the registry kept as it is
(``--keep``, :func:`kept_models`). A per-language model may compete under several names, one
per variant, of which at most one ships under NAME: its storages (:func:`storage_variants`:
``NAME`` and ``NAME~int4``), and an ensemble of the language's runs in several queues
(``--ensemble``, :func:`ensemble_models`: ``NAME~ens~int4``, ``NAME~ens2~int4`` ...); a
queue's model of a language whose kept model has its name competes beside it (:func:`beside_kept`: ``NAME~queued``), and
a kept model's members with a queue's new run of its language as one ensemble
(``--ensemble-kept``, :func:`kept_plus_run`: ``NAME~plus-QUEUE~int4``,
``NAME~memberK~plus-QUEUE~int4``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: A model's name -> its checkpoints.
Models = dict[str, list[Path]]
#: Suffix of the name under which a per-language model's 4-bit variant is prepared and scored
#: (``--int4``); it ships under its own name.
INT4_VARIANT = "~int4"
#: Suffix of a per-language ensemble's name (``--ensemble``), stored in 4 bits; it ships under
#: its own name too.
ENSEMBLE_VARIANT = "~ens" + INT4_VARIANT
#: How the name of an ensemble of a kept model's shipped members and a queue's new run of its
#: language goes on (``--ensemble-kept``, :func:`kept_plus_run`: ``NAME~plus-QUEUE~int4``,
#: stored in 4 bits); it ships under its model's name.
PLUS_VARIANT = "~plus"
#: Suffix of a queue's model that competes beside a kept per-language model of the same name
#: (:func:`beside_kept`); it ships under that name if it wins.
QUEUED_VARIANT = "~queued"


def checkpoint_file(path: Path) -> Path:
    """The checkpoint of ``path``: a run folder's ``model.safetensors``, or the file itself."""
    return path / "model.safetensors" if path.is_dir() else path


def parse_models(specs: list[str]) -> Models:
    """``NAME`` -> its member checkpoints for every ``--model NAME=CKPT[,CKPT...]``.

    Raises:
        SystemExit: a spec without a name or a checkpoint.
    """
    models: Models = {}
    for spec in specs:
        name, _, paths = spec.partition("=")
        if not name or not paths:
            raise SystemExit(f"--model takes NAME=CHECKPOINT[,CHECKPOINT...], got {spec!r}")
        models[name] = [Path(p) for p in paths.split(",") if p]
    return models


def base_name(name: str) -> str:
    """The name a variant ships under: ``LANGUAGE-SETTING`` of ``LANGUAGE-SETTING~...``."""
    return name.partition("~")[0]


def language_of(name: str) -> str:
    """The language of a per-language model ``LANGUAGE-SETTING`` (or of a variant of it,
    ``LANGUAGE-SETTING~...``: :data:`INT4_VARIANT`, :data:`ENSEMBLE_VARIANT`)."""
    return base_name(name).rpartition("-")[0]


def ensemble_models(specs: list[str]) -> tuple[Models, dict[str, float]]:
    """``LANGUAGE-SETTING~ens~int4`` -> [the language's run folder in each queue] for every
    ``SETTING=ROOT+ROOT[+ROOT...]`` (``--ensemble``): the languages finished in every queue of
    the spec, their runs as the members of one ensemble (e.g. one run from scratch and one with
    hallucinated pairs); and each one's training-time dev accuracy (greedy), the best of its
    members'. A language of several specs competes with each of its ensembles: the second
    spec's is ``LANGUAGE-SETTING~ens2~int4``, the third's ``~ens3~int4``, and so on.

    Raises:
        SystemExit: a spec that is not ``SETTING=ROOT+ROOT...``, or a queue of another setting.
    """
    models: Models = {}
    greedy: dict[str, float] = {}
    for spec in specs:
        setting, _, joined = spec.partition("=")
        roots = [Path(r) for r in joined.split("+") if r]
        if not setting or len(roots) < 2:
            raise SystemExit(f"--ensemble takes SETTING=ROOT+ROOT[+ROOT...], got {spec!r}")
        finished = [{lang: -1.0 if acc is None else float(acc)
                     for lang, acc in finished_runs(root, setting).items()} for root in roots]
        for lang in sorted(set.intersection(*(set(f) for f in finished))):
            name, k = f"{lang}-{setting}{ENSEMBLE_VARIANT}", 1
            while name in models:
                k += 1
                name = f"{lang}-{setting}~ens{k}{INT4_VARIANT}"
            models[name] = [root / lang for root in roots]
            greedy[name] = max(f[lang] for f in finished)
    return models, greedy


def queue_models(specs: list[str]) -> tuple[Models, dict[str, float]]:
    """``LANGUAGE-SETTING`` -> [the language's run folder] for every ``SETTING=ROOT`` queue, for
    the languages whose run has finished (a running one's model is not its last); and each
    one's best dev accuracy during training (greedy, from its metrics). A language finished in
    two queues (e.g. a warm start and a smaller network from scratch) gives the run that
    :func:`keep_better_run` keeps."""
    models: Models = {}
    greedy: dict[str, float] = {}
    for spec in specs:
        setting, _, root = spec.partition("=")
        if not setting or not root:
            raise SystemExit(f"--queue takes SETTING=ROOT, got {spec!r}")
        for lang, accuracy in finished_runs(Path(root), setting).items():
            keep_better_run(models, greedy, f"{lang}-{setting}", Path(root) / lang, accuracy)
    return models, greedy


def finished_runs(root: Path, setting: str) -> dict[str, float | None]:
    """The languages whose run has finished in the ``inflect queue`` folder ``root`` (a running
    one's model is not its last), each with its best dev accuracy during training (greedy).

    Raises:
        SystemExit: ``root`` is a queue of another setting than ``setting``.
    """
    from inflect.training.queue import QueueSpec, language_status

    queue = QueueSpec.load(root)
    if queue.setting != setting:
        raise SystemExit(f"{root} is a queue of setting {queue.setting}, not {setting}")
    states = {lang: language_status(root, lang) for lang in queue.languages}
    return {lang: st.best_accuracy for lang, st in states.items() if st.state == "finished"}


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


def beside_kept(per_language: Models, greedy: dict[str, float], queued: Models,
                int4: set[str], kept: dict[str, dict], kept_compete: bool,
                ) -> tuple[Models, dict[str, float], Models, set[str]]:
    """The queue's models whose name a ``--keep`` model has (a language trained again):
    with ``kept_compete`` and a kept model of one language, the queue's model competes beside
    it as ``NAME~queued`` (:data:`QUEUED_VARIANT`; its 4-bit storage ``NAME~queued~int4`` where
    ``int4`` names NAME), so the selection takes the better per byte and ships it as NAME;
    otherwise (a kept model that is not per-language, e.g. German's own ``german-high``, or
    kept models that do not compete) the queue's model is left out, as the kept one stays.

    Returns ``per_language``, ``greedy``, ``queued`` and ``int4`` with those names changed
    (new objects; the arguments are not modified).
    """
    per_language, greedy, queued, int4 = dict(per_language), dict(greedy), dict(queued), set(int4)
    for name in sorted(set(per_language) & set(kept)):
        if kept_compete and is_per_language(kept[name]):
            renamed = name + QUEUED_VARIANT
            print(f"{name}: a --keep model has this name; the queue's model competes beside it "
                  f"as {renamed}")
            per_language[renamed] = per_language.pop(name)
            if name in queued:
                queued[renamed] = queued.pop(name)
            if name in greedy:
                greedy[renamed] = greedy.pop(name)
            if name in int4:
                int4.add(renamed)
        else:
            print(f"{name}: a --keep model has this name; the queue's model is left out")
            per_language.pop(name)
            greedy.pop(name, None)
    return per_language, greedy, queued, int4


def same_as_kept(prepared: Models, kept: dict[str, dict], out_dir: Path) -> list[str]:
    """The prepared ``NAME~queued...`` candidates (:func:`beside_kept`) whose member files are
    byte for byte the kept model NAME's shipped files (the run that was shipped, prepared the
    same way): the same model, which stays as kept, so these are not candidates."""
    from inflect.io.atomic import sha256_of

    out = []
    for name, paths in prepared.items():
        base = base_name(name)
        if QUEUED_VARIANT not in name or base not in kept:
            continue
        shipped = [out_dir / m for m in kept[base]["members"]]
        if len(shipped) == len(paths) and all(
                sha256_of(checkpoint_file(a)) == sha256_of(b)
                for a, b in zip(paths, shipped, strict=True)):
            out.append(name)
    return sorted(out)


def kept_models(names: list[str], out_dir: Path) -> tuple[dict[str, dict], dict[str, Any]]:
    """The ``[model.NAME]`` tables of already shipped models (``out_dir/registry.toml``) and
    their per-language dev scores (a frame of language, accuracy), kept as they are: neither
    scored again nor stored again."""
    import tomllib

    import pandas as pd

    if not names:  # a first ship: no registry needed
        return {}, {}
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


def previous_models(out_dir: Path) -> dict[str, dict]:
    """The ``[model.NAME]`` tables of ``out_dir/registry.toml`` (none where there is none)."""
    import tomllib

    registry = out_dir / "registry.toml"
    if not registry.is_file():
        return {}
    return tomllib.loads(registry.read_text(encoding="utf-8")).get("model", {})


def is_per_language(table: dict) -> bool:
    """Whether a registry ``[model.NAME]`` table is a model of one language (every member under
    ``per-language/``)."""
    return all(m.startswith("per-language/") for m in table["members"])


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
        if is_per_language(table):
            models[name] = [out_dir / m for m in table["members"]]
            training = load_metadata(models[name][0]).get("training") or {}
            greedy[name] = float(training.get("best_accuracy", -1.0))
    return models, greedy


def storage_variants(candidates: Models, queued: Models, int4: set[str],
                     only_int4: bool = False) -> Models:
    """The per-language candidates, each under the name of its storage; the selection ships
    at most one storage of a model:

    * a model stored in 4 bits (a shipped copy, ``--reship``) competes as NAME~int4
      (:data:`INT4_VARIANT`), taken as it is; its int8 storage only where ``int4`` names it,
      from its queue's float checkpoint;
    * another model named in ``int4`` competes twice: as it is, and in 4 bits from its queue's
      float checkpoint.

    So a model left out of ``int4`` (its weight file committed twice) can only ship as it is.
    With ``only_int4``, a queue's model named in ``int4`` competes in 4 bits only.
    """
    from inflect.nn.checkpoint import INT4_GROUPS, load_metadata

    out: Models = {}
    for name, paths in candidates.items():
        four = load_metadata(checkpoint_file(paths[0])).get("quantized") == INT4_GROUPS
        stored, other = (name + INT4_VARIANT, name) if four else (name, name + INT4_VARIANT)
        both = name in int4 and name in queued
        if not (both and only_int4 and not four):
            out[stored] = paths
        if both:
            out[other] = queued[name]  # the other storage, from the queue's float checkpoint
    return out


def requantized_kept(names: list[str], kept: dict[str, dict], out_dir: Path) -> Models:
    """``--int4-kept``: each named ``--keep`` per-language model stored in int8, as the
    candidate ``NAME~int4`` (:data:`INT4_VARIANT`) whose members are its shipped files, to be
    stored again in 4 bits (:func:`ship_storage.prepared`'s ``requantize``).

    Raises:
        SystemExit: a name that is not a --keep model of one language, or one not stored in
            int8 (a 4-bit model is already as small; a float one: give its --queue).
    """
    from inflect.nn.checkpoint import INT8_ROWS

    return {name + INT4_VARIANT: _kept_members("--int4-kept", name, kept, out_dir, INT8_ROWS)
            for name in names}


def members_alone(names: list[str], kept: dict[str, dict], out_dir: Path) -> Models:
    """``--members-alone``: each member of each named ``--keep`` per-language ensemble stored
    in 4 bits, as the candidate ``NAME~memberK~int4`` (:data:`INT4_VARIANT`), its shipped file
    taken as it is (:func:`ship_storage.prepared`): where the budget binds, one member may give
    most of the ensemble's accuracy in half its bytes.

    Raises:
        SystemExit: a name that is not a --keep ensemble of one language in 4 bits.
    """
    from inflect.nn.checkpoint import INT4_GROUPS

    out: Models = {}
    for name in names:
        paths = _kept_members("--members-alone", name, kept, out_dir, INT4_GROUPS, ensemble=True)
        for k, path in enumerate(paths, 1):
            out[f"{name}~member{k}{INT4_VARIANT}"] = [path]
    return out


def kept_plus_run(specs: list[str], kept: dict[str, dict], out_dir: Path) -> Models:
    """``--ensemble-kept SETTING=ROOT``: for each language finished in the ``inflect queue``
    folder ROOT whose ``--keep`` per-language model NAME (``LANGUAGE-SETTING``) is stored in 4
    bits, an ensemble of NAME's shipped member files (taken as they are, so no new weight file)
    and the new run (``ROOT/LANGUAGE``, stored in 4 bits from its float checkpoint), as
    ``NAME~plus-QUEUE~int4`` (:data:`PLUS_VARIANT`, QUEUE the name of ROOT, so several
    queues give several candidates); where NAME has several members, also each member with the
    new run, ``NAME~memberK~plus-QUEUE~int4`` (the ensemble's size kept). For a
    shipped model whose float checkpoints are gone, the one way to add a member to it.

    A kept model stored otherwise (int8, or 4 bits from int8 weights: its members are not
    taken as they are) is passed over, with a line saying so.

    Raises:
        SystemExit: a spec that is not ``SETTING=ROOT``, or a queue of another setting.
    """
    from inflect.nn.checkpoint import INT4_GROUPS, load_metadata

    out: Models = {}
    for spec in specs:
        setting, _, root = spec.partition("=")
        if not setting or not root:
            raise SystemExit(f"--ensemble-kept takes SETTING=ROOT, got {spec!r}")
        for lang in sorted(finished_runs(Path(root), setting)):
            name = f"{lang}-{setting}"
            table = kept.get(name)
            if table is None or not is_per_language(table):
                continue
            members = [out_dir / m for m in table["members"]]
            metas = [load_metadata(p) for p in members]
            if any(m.get("quantized") != INT4_GROUPS
                   or (m.get("prepared_from") or {}).get("from") for m in metas):
                print(f"--ensemble-kept: {name} is not stored in 4 bits from a float "
                      f"checkpoint; passed over")
                continue
            run = Path(root) / lang
            plus = f"{PLUS_VARIANT}-{Path(root).name}{INT4_VARIANT}"
            out[name + plus] = [*members, run]
            if len(members) > 1:
                for k, member in enumerate(members, 1):
                    out[f"{name}~member{k}{plus}"] = [member, run]
    return out


def _kept_members(option: str, name: str, kept: dict[str, dict], out_dir: Path, stored_as: str,
                  ensemble: bool = False) -> list[Path]:
    """The member files of the ``--keep`` per-language model ``name`` (of several members with
    ``ensemble``), each stored as ``stored_as``.

    Raises:
        SystemExit: ``option NAME: ...``, naming what is not so.
    """
    from inflect.nn.checkpoint import load_metadata

    table = kept.get(name)
    if table is None or not is_per_language(table) or (ensemble and len(table["members"]) < 2):
        raise SystemExit(f"{option} {name}: not a --keep "
                         f"{'ensemble' if ensemble else 'model'} of one language")
    paths = [out_dir / m for m in table["members"]]
    stored = {load_metadata(p).get("quantized") for p in paths}
    if stored != {stored_as}:
        raise SystemExit(f"{option} {name}: stored as {sorted(map(str, stored))}, not "
                         f"{stored_as} (its members are not all stored in {stored_as}: "
                         f"{out_dir / table['members'][0]})")
    return paths


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
