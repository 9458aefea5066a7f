"""ship.py's registry: ``registry.toml`` (version 2, :mod:`inflect.inference.registry`), with each
model's description, data, and the `inflect train` commands that made its members.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from heldout import SEED, SELECTION_MAX, SMALL_DEV
from ship_candidates import Models, checkpoint_file
from ship_storage import INT4_GROUP

#: ``meta["quantized"]`` of a stored member -> how the registry's description names it.
STORAGE = {"int8-rows": "weights in int8 with a scale per row",
           "int4-groups": f"weights in 4 bits with a scale per {INT4_GROUP}"}
#: ``--select-on`` -> the registry's ``[selection] about``: how the models of a language were
#: chosen.
SELECTION_ABOUT = {
    "dev": "every model of a language chosen by its dev accuracy alone ([language.NAME])",
    "dev+heldout": (
        f"the medium models of a language with fewer than {SMALL_DEV} dev words and a high "
        "setting chosen by their accuracy on dev and a selection slice S of train-high pooled "
        "([heldout.NAME]: the words of S, and each medium model's accuracy on dev and S counted "
        "together, percent, beam 5); S: the pairs of train-high whose lemma and tags are in "
        f"neither train-medium nor dev, shuffled with seed {SEED}, a third of them, at most "
        f"{SELECTION_MAX} (recipes/sigmorphon2018/heldout.py); every other model chosen by its "
        "dev accuracy alone ([language.NAME])"
    ),
}


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
    if cfg.get("hallucinate"):
        parts.append(f"--hallucinate {cfg['hallucinate']}")
    if cfg.get("long_pairs"):
        parts.append(f"--long-pairs {cfg['long_pairs']}")
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


def method_of(commands: list[str]) -> str:
    """How a model's members were made, in words, from their `inflect train` commands: each
    member from scratch or a warm start (``--init-from``), with hallucinated pairs
    (``--hallucinate N``) and long pairs (``--long-pairs N``) where it had them; several
    members are an ensemble."""
    import re

    ways = []
    for command in commands:
        way = "warm start" if "--init-from" in command else "from scratch"
        pairs = re.search(r"--hallucinate (\d+)", command)
        if pairs:
            way += f", hallucinated pairs to {int(pairs.group(1)):,} a language"
        long = re.search(r"--long-pairs (\d+)", command)
        if long:
            way += f", {int(long.group(1)):,} long pairs a language"
        ways.append(way)
    if len(ways) == 1:
        return ways[0]
    if len(set(ways)) == 1:
        return f"ensemble of {len(ways)}, each {ways[0]}"
    return f"ensemble of {len(ways)}: " + "; ".join(ways)


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


def registry_text(
    models: Models, facts: dict[str, dict], stored: dict[str, list[str]], scores: dict[str, Any],
    kept: dict[str, dict] | None = None, previous: dict[str, dict] | None = None,
    selection: str | None = None,
) -> str:
    """Registry version 2 (see inflect.inference.registry); ``kept``: ``[model.NAME]`` tables written as
    they were; ``previous``: the ``[model.NAME]`` tables of the registry being replaced (for
    :func:`start_of`); ``selection``: the criterion the models were chosen by (``--select-on``,
    a key of :data:`SELECTION_ABOUT`), written as the ``[selection]`` table, with the
    :func:`heldout_tables` of ``scores``."""
    lines = [
        "# Shipped default models of `inflect predict` (listed by `inflect models`), written by",
        "# recipes/sigmorphon2018/ship.py. [model.NAME]: an ensemble of members; [language.NAME]:",
        "# the dev accuracy (percent, beam 5) of each model serving the language; [selection]: how",
        "# the models of a language were chosen; [heldout.NAME]: where a held-out slice of",
        "# train-high took part, its words and each medium model's accuracy on dev and it pooled.",
        "",
        "version = 2",
    ]
    if selection is not None:
        lines += ["", "[selection]", f"criterion = {json.dumps(selection)}",
                  f"about = {json.dumps(SELECTION_ABOUT[selection])}"]
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
        commands = [command_of(f, k) for k in range(1, len(stored[name]) + 1)]
        lines += [
            "",
            f"[model.{name}]",
            "members = [" + ", ".join(json.dumps(m) for m in stored[name]) + "]",
            f"setting = {json.dumps(f['setting'])}",
            f"data = {json.dumps(data)}",
            f"description = {json.dumps(desc)}",
            f"method = {json.dumps(method_of(commands))}",
            "commands = [",
            *[f"  {json.dumps(c)}," for c in commands],
            "]",
        ]
        start_commands, start_note = start_of(f, (previous or {}).get(name))
        if start_commands:
            lines += ["start_commands = [", *[f"  {json.dumps(c)}," for c in start_commands], "]"]
        if start_note:
            lines.append(f"start_note = {json.dumps(start_note)}")
    for name, table in (kept or {}).items():
        if "method" not in table:  # shipped before the registry named it
            table = {**table, "method": method_of(list(table.get("commands", [])))}
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
    return "\n".join(lines + heldout_tables(scores)) + "\n"


def heldout_tables(scores: dict[str, Any]) -> list[str]:
    """The registry's ``[heldout.NAME]`` tables (lines): for each language where a model's
    ``scores`` have a selection slice (:func:`ship_selection.with_selection`: ``heldout_words``
    above 0), the slice's words and each such model's pooled figure (``selection``).

    Raises:
        ValueError: the models of one language scored on selection slices of different sizes.
    """
    pooled: dict[str, dict[str, float]] = {}
    words: dict[str, set[int]] = {}
    for name, frame in scores.items():
        if "heldout_words" not in frame:
            continue
        for row in frame[frame["heldout_words"] > 0].itertuples():
            pooled.setdefault(row.language, {})[name] = round(float(row.selection), 2)
            words.setdefault(row.language, set()).add(int(row.heldout_words))
    lines = []
    for lang in sorted(pooled):
        if len(words[lang]) != 1:
            raise ValueError(f"{lang}: its models were scored on selection slices of "
                             f"{sorted(words[lang])} words; one slice per language")
        lines += ["", f"[heldout.{lang}]", f"words = {words[lang].pop()}",
                  "pooled = {" + ", ".join(f"{json.dumps(m)} = {acc}"
                                          for m, acc in pooled[lang].items()) + "}"]
    return lines
