"""The README's first command (the main job on the shipped model) works as written."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _command_after(marker: str) -> str:
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if marker in line)
    fence = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return lines[fence + 1]


def test_main_command_gives_a_certified_answer_from_the_shipped_model(tmp_path):
    line = _command_after("<!-- main-command")
    assert line.startswith(
        "pip install torch==2.13.0 && pip install '.[dictionaries]' && inflect predict ")
    argv = shlex.split(line.split("&& inflect ", 1)[1])
    env = dict(os.environ, COLUMNS="100", INFLECT_DATA_DIR=str(tmp_path))  # no UniMorph there
    env.pop("INFLECT_MODELS_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", "from inflect.cli import main; main()", *argv, "--format", "jsonl"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    model = [f for f in record["forms"] if not f["attested"]]
    forms = [f["form"] for f in model]
    probs = [f["probability"] for f in model]
    # go, V;PST: the dictionary's irregular form first, where it is installed ...
    if importlib.util.find_spec("lemminflect") is not None:
        first = record["forms"][0]
        assert first["form"] == "went" and first["attested"]
        assert first["source"].startswith("lemminflect ")
    # ... and the model's distribution after it, certified whole (it would say goed)
    assert forms[0] == "goed" and "went" not in forms
    assert record["certificate"] == "full_support"
    assert abs(sum(probs) - 1.0) < 1e-5
    assert probs == sorted(probs, reverse=True)


def test_test_command_is_what_ci_runs():
    line = _command_after("<!-- test-command")
    assert "pytest" in line
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "test-command" in ci  # .ci/run reads the same marker


def test_documentation_names_no_development_machine_paths():
    """The READMEs use relative paths (runs/..., ../shared/data), not one machine's folders."""
    import re

    repo = README.parent
    pages = [README, *sorted(repo.glob("*/README.md")), *sorted(repo.glob("recipes/*/README.md"))]
    assert len(pages) >= 4  # README, benchmarks/, recipes/sigmorphon2018/, recipes/translation/
    for page in pages:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            found = re.search(r"(?<![\w.])/(work|tmp|root|home)/\S*", line)
            assert found is None, f"{page.relative_to(repo)}:{number}: {found.group(0)}"


def test_trial_training_command_works(tmp_path):
    """The README's first-trial `inflect train` runs as written (its --out moved to tmp_path)."""
    import pytest
    from conftest import conll2018_dir

    data = conll2018_dir()
    if data is None:
        pytest.skip("CoNLL-SIGMORPHON 2018 data not found (set INFLECT_DATA_DIR)")
    argv = shlex.split(_command_after("<!-- trial-command"))
    assert argv[:2] == ["inflect", "train"] and argv[-2] == "--out"
    argv[-1] = str(tmp_path / "try")
    env = dict(os.environ, INFLECT_DATA_DIR=str(data), INFLECT_THREADS="1")
    out = subprocess.run(
        [sys.executable, "-c", "from inflect.cli import main; main()", *argv[1:]],
        capture_output=True, text=True, timeout=600, env=env, check=False,
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "try" / "model.safetensors").is_file()


def _fenced_blocks() -> list[tuple[str, int, list[str]]]:
    """Every fenced block of the README: (its language, the line of its opening fence, its
    lines)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append((lines[i][3:].strip(), i, lines[i + 1:end]))
            i = end
        i += 1
    return blocks


def _example_command(shown: list[str], blocks, before: int) -> list[str]:
    """The `inflect predict` command of the nearest bash block above an example output whose
    lemma, tag bundle and language are the output's title (with --no-lexicon exactly where the
    output shows no attested form)."""
    import re

    from inflect.text.languages import resolve

    lemma, tags, language = re.fullmatch(r"(\S+)  (\S+)  \((\S+)\)", shown[0].strip()).groups()
    attested = any(" attested " in line for line in shown)
    for kind, start, lines in reversed(blocks):
        if kind != "bash" or start > before:
            continue
        for line in lines:
            if "inflect predict" not in line:
                continue
            argv = shlex.split(line.split("inflect predict", 1)[1].split("#", 1)[0])
            if "--lang" not in argv or argv.index("--lang") + 1 >= len(argv):
                continue
            lang = argv[argv.index("--lang") + 1]
            if ([a for a in argv if not a.startswith("-") and a != lang] == [lemma, tags]
                    and resolve(lang).name == language
                    and ("--no-lexicon" in argv) == (not attested)):
                return argv
    raise AssertionError(f"README: no command above the example {shown[0].strip()!r}")


def test_every_example_output_is_what_its_command_prints(tmp_path):
    """Each example output of the README (a text block titled `LEMMA  TAGS  (language)`) is
    what the command above it prints on a terminal of 100 columns: every line shown is a line
    of the real output, in order, and lines shown together are together there (a line `...`
    stands for lines left out)."""
    import re

    blocks = _fenced_blocks()
    examples = [(start, lines) for kind, start, lines in blocks if kind == "text" and lines
                and re.fullmatch(r"\S+  \S+  \(\S+\)", lines[0].strip())]
    assert len(examples) >= 2  # the quick start's and Predict's
    env = dict(os.environ, COLUMNS="100", INFLECT_DATA_DIR=str(tmp_path))  # no UniMorph there
    env.pop("INFLECT_MODELS_DIR", None)
    for start, shown in examples:
        argv = _example_command(shown, blocks, start)
        out = subprocess.run(
            [sys.executable, "-c", "from inflect.cli import main; main()", "predict", *argv,
             "--format", "table"],
            capture_output=True, text=True, timeout=120, env=env, check=False,
        )
        assert out.returncode == 0, out.stderr
        real = [line.rstrip() for line in out.stdout.splitlines()]
        at, together = 0, False
        for line in (line.rstrip() for line in shown):
            if line.strip() == "...":
                together = False
                continue
            if together:
                assert at < len(real) and real[at] == line, (
                    f"README.md:{start + 1}: {line!r} is not the next line of the output:\n"
                    + "\n".join(real))
            else:
                assert line in real[at:], (f"README.md:{start + 1}: {line!r} is not in the "
                                           "output:\n" + "\n".join(real))
                at = real.index(line, at)
            at, together = at + 1, True


def test_the_number_of_browser_tests_is_the_readmes():
    """README: "The N browser tests (`tests/...`, `tests/...`) need a headless Chromium"."""
    import re

    text = " ".join(README.read_text(encoding="utf-8").split())
    found = re.search(r"The (\d+) browser tests \(((?:`tests/[\w.]+`(?:, )?)+)\)", text)
    assert found, "README: the sentence on the browser tests"
    files = re.findall(r"`(tests/[\w.]+)`", found.group(2))
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p",
                          "no:xdist", *files], capture_output=True, text=True, timeout=120,
                         cwd=README.parent, check=False)
    collected = [line for line in out.stdout.splitlines() if "::" in line]
    assert int(found.group(1)) == len(collected)
