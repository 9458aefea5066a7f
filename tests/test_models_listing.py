"""`inflect models` on a terminal: one line per language and model, each
model's training commands once, and a warm-started model's start listed with them.

Expected values come from reading registry.toml with tomllib here, not from the renderer.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from click.testing import CliRunner
from registry_rule import chosen

from inflect.cli import main

REGISTRY = Path(__file__).resolve().parent.parent / "inflect" / "models" / "registry.toml"


def _registry():
    return tomllib.loads(REGISTRY.read_text(encoding="utf-8"))


def _shown(*args, width=80):
    res = CliRunner().invoke(main, ["models", "--format", "table", *args],
                             env={"COLUMNS": str(width)})
    assert res.exit_code == 0, res.output
    return res.output.splitlines()


def test_models_at_80_columns_is_one_line_per_language_and_commands_once_per_model():
    reg = _registry()
    languages, models = reg["language"], reg["model"]
    lines = _shown("--commands")
    per_model = {name: 3 + len(t["commands"]) + (3 + len(t.get("start_commands", [])) if
                                                 t.get("start_commands") else
                                                 1 if t.get("start_note") else 0)
                 for name, t in models.items()}
    header = 6  # title, column names, blank lines and the commands section's title
    assert len(lines) <= len(languages) + sum(per_model.values()) + header
    defaults = {chosen(reg, language) for language in languages}
    for name in defaults:  # without --all: the model each language answers with by default
        table = models[name]
        for command in [*table["commands"], *table.get("start_commands", [])]:
            assert lines.count(command) == 1, command  # once, whole, on a line of its own
    for language in languages:  # every language has its row, with its default's accuracy
        best = languages[language][chosen(reg, language)]
        assert any(line.split()[:1] == [language] and f"{best:.2f}" in line.split()
                   for line in lines), language
    rows = [line for line in lines if line.split()[:1] and line.split()[0] in languages]
    assert rows and not any("…" in line for line in rows)  # no number or name cut at 80
    with_all = _shown("--all", "--commands")
    assert len(with_all) <= sum(map(len, languages.values())) + sum(per_model.values()) + header


def test_a_warm_start_is_listed_with_the_members_it_started():
    reg = _registry()
    text = "\n".join(_shown("--commands"))
    for name, table in reg["model"].items():
        starts = {c.split("--init-from ")[1].split()[0] for c in table["commands"]
                  if "--init-from " in c}
        for path in starts:  # the start: its own command, and where it has to be put
            if path.startswith("inflect/models/"):  # a shipped member: listed as a model
                assert any(path == f"inflect/models/{m}" for t in reg["model"].values()
                           for m in t["members"]), (name, path)
                continue
            assert table.get("start_commands"), f"{name}: no command for its start {path}"
            assert path in table.get("start_note", ""), name
            assert path in text and all(c in text for c in table["start_commands"])
    high = reg["model"]["multilingual-high"]
    assert any("runs/high-member1/model.safetensors" in c for c in high["commands"])
    assert high["start_commands"][0].startswith("inflect train --lang all --setting high ")


def test_verbose_and_tsv_keep_the_whole_record():
    reg = _registry()
    high = reg["model"]["multilingual-high"]
    verbose = _shown("--commands", "--verbose")
    served = [lang for lang, t in reg["language"].items() if
              chosen(reg, lang) == "multilingual-high"]
    assert verbose.count(high["commands"][0]) == len(served)  # every row's record
    res = CliRunner().invoke(main, ["models", "--format", "tsv"])
    rows = [line.split("\t") for line in res.output.splitlines()]
    head = rows[0]
    assert head[-3:] == ["commands", "start_commands", "start_note"]
    row = next(r for r in rows[1:] if r[1] == "multilingual-high")
    assert row[head.index("start_commands")] == " && ".join(high["start_commands"])
    assert row[head.index("commands")] == " && ".join(high["commands"])


def test_report_takes_a_comma_separated_language_list_as_train_does():
    """`--lang a,b` is read as two languages: their shipped defaults, from
    the registry read here, are named when they differ."""
    reg = _registry()
    best = {lang: chosen(reg, lang) for lang in reg["language"]}
    res = CliRunner().invoke(main, ["report", "ambiguity", "--lang", "german, finnish",
                                    "--format", "tsv"])
    assert res.exit_code == 1
    assert (f"german: {best['german']}, finnish: {best['finnish']}" in res.output), res.output


def test_the_default_table_fits_a_screen_and_columns_mean_one_thing():
    """Without --commands: the table alone (one line per language, no training commands); the
    members column is the number of members in the table and in TSV (the paths: member_files)."""
    reg = _registry()
    lines = _shown()
    assert len(lines) <= len(reg["language"]) + 6
    assert not any(line.startswith("inflect train") for line in lines)
    assert "inflect models --commands" in lines[-1]
    res = CliRunner().invoke(main, ["models", "--format", "tsv"])
    rows = [line.split("\t") for line in res.output.splitlines()]
    head = rows[0]
    german = next(r for r in rows[1:] if r[0] == "german")
    model = reg["model"][german[head.index("model")]]
    assert german[head.index("members")] == str(len(model["members"]))
    assert german[head.index("member_files")].split(",")[0].endswith(model["members"][0])
    table_row = next(line.split() for line in lines if line.split()[:1] == ["german"])
    assert table_row[2] == german[head.index("members")]


def test_a_method_is_shortened_for_the_table_and_kept_whole_in_the_commands():
    from inflect.render.tables import short_method

    whole = "ensemble of 2: from scratch; from scratch, hallucinated pairs to 5,000 a language"
    assert short_method(whole) == "2: scratch; scratch + halluc. 5,000"
    assert short_method("warm start") == "warm" and short_method(None) == "—"
    assert short_method("warm start, 3,000 long pairs a language") == "warm + long 3,000"
