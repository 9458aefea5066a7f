"""One unknown feature no longer loses the rest of a file. Every line of every
shared-task file gets an answer or an error record, and the run goes on.

Expected values are independent of the code under test: the features of the medium training data
collected with plain Python (the ``;``-split third field), the unknown-feature lines of the covered
test files found with them.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from inflect.cli import main
from inflect.nn.vocab import UnknownSymbolWarning

pytestmark = pytest.mark.usefixtures("one_thread")


def _features(path: Path) -> set[str]:
    found: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line:
            found.update(f.strip() for f in line.split("\t")[2].split(";"))
    return found


def _medium_data(folder: Path, language: str) -> Path:
    medium = folder / f"{language}-train-medium"
    return medium if medium.is_file() else folder / f"{language}-train-low"  # Telugu


def _multilingual_medium_members() -> list[Path]:
    """The members of the shipped multilingual medium model (named, since a language's medium
    default may be one of its own per-language models, which knows only its own features)."""
    from inflect.inference.registry import list_models

    (entry,) = {
        m.name: m for m in list_models(every=True) if m.name == "multilingual-medium"
    }.values()
    return list(entry.members)


def _unknown_lines(folder: Path) -> list[tuple[str, int, str, str]]:
    """Covered-test lines with a feature their language's medium training data never had."""
    out = []
    for path in sorted(folder.glob("*-covered-test")):
        language = path.name[: -len("-covered-test")]
        known = _features(_medium_data(folder, language))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            lemma, tags = line.split("\t")
            if any(f.strip() not in known for f in tags.split(";")):
                out.append((language, number, lemma, tags))
    return out


@pytest.mark.slow
def test_unknown_features_of_the_test_files_are_answered(conll2018):
    """The covered test files hold 24 lines of 12 languages with a feature their medium
    training data never had (counted here): each is answered by the multilingual
    medium model; those with a feature the model never saw are marked, one warning per feature."""
    from inflect.inference.predictor import Predictor
    from inflect.inference.queries import make_query

    unknown = _unknown_lines(conll2018)
    assert len(unknown) == 24 and len({lang for lang, *_ in unknown}) == 12
    predictor = Predictor.from_checkpoints(_multilingual_medium_members())
    # the multilingual model knows the features of every medium training file
    known: set[str] = set()
    for path in sorted(conll2018.glob("*-covered-test")):
        known |= _features(_medium_data(conll2018, path.name[: -len("-covered-test")]))
    assert predictor.features == known
    queries = [make_query(lemma, tags, lang) for lang, _, lemma, tags in unknown]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = predictor.predict_many(queries)
    for (lang, _, lemma, tags), record in zip(unknown, records, strict=True):
        assert record.forms, (lang, lemma, tags)
        bad = {f.strip() for f in tags.split(";") if f.strip() not in known}
        assert all(any(repr(f) in w for w in record.warnings) for f in bad)
    features = {f.strip() for *_, t in unknown for f in t.split(";") if f.strip() not in known}
    feature_warnings = [w for w in caught if "UniMorph feature" in str(w.message)]
    assert len(feature_warnings) == len(features)


def test_head_300_armenian_is_answered_line_by_line(conll2018):
    """`head -300 armenian-covered-test | inflect predict --lang armenian --setting medium
    --format 2018`: 300 lines out (it stopped at line 35 before), the warning names line 35."""
    lines = (conll2018 / "armenian-covered-test").read_text(encoding="utf-8").splitlines()[:300]
    result = CliRunner().invoke(
        main,
        ["predict", "--lang", "armenian", "--setting", "medium", "--format", "2018"],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert len(out) == 300
    assert [line.split("\t")[0] for line in out] == [line.split("\t")[0] for line in lines]
    assert "<stdin>:35: UniMorph feature 'FUT1'" in result.stderr


@pytest.mark.slow
def test_every_line_of_every_shared_task_file_is_taken_or_gets_an_error_record(conll2018):
    """Each line of each train, dev and covered test file, read as `inflect predict --input`
    reads it: the multilingual medium model takes it (prepared for the search) or it becomes an error record
    with its line; nothing raises, no line is lost."""
    from inflect.inference.outcomes import ErrorRecord
    from inflect.inference.predictor import Predictor
    from inflect.inference.queries import read_queries

    predictor = Predictor.from_checkpoints(_multilingual_medium_members())
    taken, failed, files = 0, [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownSymbolWarning)
        for path in sorted(conll2018.iterdir()):
            language = path.name
            for suffix in ("-train-high", "-train-medium", "-train-low", "-dev", "-covered-test"):
                language = language.removesuffix(suffix)
            if not path.is_file() or language not in predictor.languages:
                continue
            n_lines = len(path.read_bytes().splitlines())
            seen = 0
            for query in read_queries(path, language, errors="yield"):
                seen += 1
                try:
                    predictor.prepare(query)
                    taken += 1
                except Exception as exc:  # what the stream turns into an error record
                    record = ErrorRecord.of(exc, query)
                    assert record.where == f"{path}:{query.line}"
                    failed.append(record.message)
            assert seen == n_lines, path
            files += 1
    assert files == len(list(conll2018.iterdir())) == 497
    assert failed == [] and taken > 900_000  # the shared-task files are all readable
