"""Readers of SIGMORPHON-style files (inflect.text.records) and their statistics (inflect.corpora.stats)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from inflect.corpora.splits import load_split
from inflect.corpora.stats import compute_stats
from inflect.text import records as data_module
from inflect.text.reading import check_file, language_from_filename, parse_file, read_examples
from inflect.text.records import DataFormatError, Example, TagBundle, input_key


def write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


# --- tag bundles ------------------------------------------------------------------------------


def test_tag_bundle_is_a_set_of_features():
    a = TagBundle.parse("V;IND;PRS;2;PL")
    b = TagBundle.parse("V;PL;2;PRS;IND")
    assert a == b and hash(a) == hash(b)
    assert a.features == frozenset({"V", "IND", "PRS", "2", "PL"})
    assert str(a) == "V;IND;PRS;2;PL" and str(b) == "V;PL;2;PRS;IND"
    assert a != TagBundle.parse("V;IND;PRS;2;SG")
    assert len({a, b}) == 1


def test_repeated_feature_counts_and_is_flagged():
    # a bundle is a multiset, order-free but counts matter (the Albanian pluperfect
    # V;2;PL;IND;PRF;PRF is another cell than the perfect V;2;PL;IND;PRF)
    bundle = TagBundle.parse("N;SG;DEF;SG")
    assert str(bundle) == "N;SG;DEF;SG"
    assert bundle.had_duplicates and not bundle.had_padding
    assert bundle != TagBundle.parse("DEF;N;SG")
    assert bundle == TagBundle.parse("SG;DEF;SG;N") and hash(bundle) == hash(
        TagBundle.parse("SG;DEF;SG;N")
    )
    assert bundle.multiset == ("DEF", "N", "SG", "SG")
    assert bundle.features == frozenset({"N", "SG", "DEF"})
    assert not TagBundle.parse("DEF;N;SG").had_duplicates
    assert bundle.text == "N;SG;DEF;SG"
    pluperfect, perfect = TagBundle.parse("V;2;PL;IND;PRF;PRF"), TagBundle.parse("V;2;PL;IND;PRF")
    assert pluperfect != perfect and len({pluperfect, perfect}) == 2


def test_whitespace_around_a_feature_is_removed_and_flagged():
    bundle = TagBundle.parse("ADJ;ABL; PL")
    assert bundle.features == frozenset({"ADJ", "ABL", "PL"}) and bundle.had_padding
    assert str(bundle) == "ADJ;ABL;PL"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("", "empty tag bundle"),
        ("  ", "empty tag bundle"),
        ("V;;PL", "empty UniMorph feature"),
        (";V;PL", "empty UniMorph feature"),
        ("V;PL;", "empty UniMorph feature"),
        ("V; ;PL", "empty UniMorph feature"),
        ("V;P L", "whitespace inside UniMorph feature"),
    ],
)
def test_bad_bundles_are_rejected(text, what):
    with pytest.raises(ValueError, match=what):
        TagBundle.parse(text)


# --- the 2018 format, covered files, the 2023 order -------------------------------------------


def test_reads_2018_order_and_keeps_text_exactly(tmp_path):
    nfd = unicodedata.normalize("NFD", "café")  # 'e' + U+0301 combining acute
    rows = [
        ("auswandern", "wandert aus", "V;IND;PRS;2;PL"),  # a space inside the form
        (nfd, nfd + "s", "N;PL"),  # combining mark, not NFC
        ("كتب", "يكتب", "V;PRS;3;SG;MASC"),  # right-to-left (Arabic)
        ("כתב", "כתבתי", "V;PST;1;SG"),  # right-to-left (Hebrew)
        ("qaþ ", "qaþ ", "N;SG"),  # trailing spaces are data (Kurmanji)
    ]
    path = write(tmp_path / "mixed-train-low", "".join("\t".join(r) + "\n" for r in rows))
    examples = read_examples(path)
    assert [(e.lemma, e.form, str(e.tags)) for e in examples] == rows
    assert examples[1].lemma == nfd and len(examples[1].lemma) == 5  # not recomposed
    assert all(e.language == "mixed" for e in examples)
    assert [e.line for e in examples] == [1, 2, 3, 4, 5]
    assert examples[0].source == str(path)
    assert isinstance(examples[0], Example)


def test_crlf_bom_and_blank_lines(tmp_path):
    text = "\ufeffHaus\tHäuser\tN;NOM;PL\r\n\r\n  \r\nHaus\tHauses\tN;GEN;SG\r\n\n"
    path = write(tmp_path / "german-dev", text)
    parsed = parse_file(path)
    assert [(e.lemma, e.form, str(e.tags), e.line) for e in parsed.examples] == [
        ("Haus", "Häuser", "N;NOM;PL", 1),
        ("Haus", "Hauses", "N;GEN;SG", 4),
    ]
    s = parsed.stats
    assert (s.lines, s.examples, s.blank_lines, s.bom, s.crlf_lines) == (5, 2, 3, True, 4)
    assert s.fmt == "2018"


def test_file_without_final_newline(tmp_path):
    path = write(tmp_path / "x-dev", "a\tb\tN;SG\nc\td\tN;PL")
    assert [e.form for e in read_examples(path)] == ["b", "d"]


def test_covered_files_are_detected(tmp_path):
    path = write(tmp_path / "german-covered-test", "Haus\tN;DAT;PL\nwandern\tV;IMP;2;SG\n")
    parsed = parse_file(path)
    assert parsed.stats.fmt == "covered"
    assert [(e.lemma, e.form, str(e.tags)) for e in parsed.examples] == [
        ("Haus", None, "N;DAT;PL"),
        ("wandern", None, "V;IMP;2;SG"),
    ]


def test_2023_order_detected_from_the_tag_bundles(tmp_path):
    path = write(tmp_path / "deu.trn", "Haus\tN;DAT;PL\tHäusern\n")
    (example,) = read_examples(path, language="german", fmt="2023")
    assert (example.lemma, str(example.tags), example.form) == ("Haus", "N;DAT;PL", "Häusern")
    assert example.language == "german"
    # "auto" finds the tag bundle in the second field: the 2023 order
    parsed = parse_file(path, fmt="auto")
    assert parsed.stats.fmt == "2023"
    assert parsed.examples[0].form == "Häusern"
    # an explicit "2018" reads it as asked ("Häusern" is then a one-feature bundle)
    assert parse_file(path, fmt="2018").examples[0].form == "N;DAT;PL"


def test_unknown_format_is_rejected(tmp_path):
    path = write(tmp_path / "x-dev", "a\tb\tN\n")
    with pytest.raises(ValueError, match="unknown format"):
        read_examples(path, fmt="2019")  # type: ignore[arg-type]


# --- malformed lines --------------------------------------------------------------------------

BAD_LINES = [
    ("Haus\tHäuser\n", 2, "expected 3 tab-separated fields", "Haus\tHäuser"),
    ("Haus\tHäuser\tN;PL\tx\n", 2, "found 4", "Haus\tHäuser\tN;PL\tx"),
    ("\tHäuser\tN;PL\n", 2, "empty lemma", "\tHäuser\tN;PL"),
    ("Haus\t \tN;PL\n", 2, "empty form", "Haus\t \tN;PL"),
    ("Haus\tHäuser\t\n", 2, "empty tag bundle", "Haus\tHäuser\t"),
    ("Haus\tHäuser\tN;;PL\n", 2, "empty UniMorph feature", "N;;PL"),
]


@pytest.mark.parametrize(("bad", "line", "what", "value"), BAD_LINES)
def test_malformed_line_names_file_line_and_value(tmp_path, bad, line, what, value):
    path = write(tmp_path / "german-dev", "Haus\tHaus\tN;NOM;SG\n" + bad + "a\tb\tN\n")
    with pytest.raises(DataFormatError) as info:
        read_examples(path)
    error = info.value
    assert (error.source, error.line, error.value) == (str(path), line, value)
    assert what in error.what
    assert str(error).startswith(f"{path}:{line}: ")
    assert str(error).endswith(f"({value!r})")


def test_undecodable_bytes(tmp_path):
    path = write(tmp_path / "german-dev", b"Haus\tHaus\tN;SG\nGeh\xe4use\tGeh\xe4use\tN;SG\n")
    with pytest.raises(DataFormatError, match=r"german-dev:2: bytes that are not UTF-8") as info:
        read_examples(path)
    assert info.value.line == 2
    # the line shown once escaped, the bad byte as U+FFFD (before: 'Geh\\xe4use', escaped twice)
    assert str(info.value).endswith(" ('Geh\ufffduse\\tGeh\ufffduse\\tN;SG')")


def test_a_long_offending_line_is_cut_in_the_message(tmp_path):
    path = write(tmp_path / "x-dev", "a" * 20_000 + "\n")
    with pytest.raises(DataFormatError, match=r"x-dev:1: cannot detect the format") as info:
        read_examples(path)
    assert info.value.value == "a" * 20_000  # the attribute keeps the whole line
    assert str(info.value).endswith(f" ('{'a' * 120}'… (20,000 characters in all))")


def test_bare_cr_line_endings_are_named(tmp_path):
    path = write(tmp_path / "x-dev", "Haus\tHäuser\tN;NOM;PL\rKatze\tKatzen\tN;NOM;PL\r")
    with pytest.raises(DataFormatError, match=r"x-dev:1: cannot detect the format") as info:
        read_examples(path)
    assert "carriage returns (CR)" in str(info.value) and "convert them to LF" in str(info.value)
    assert check_file(path).stats.crlf_lines == 0  # not counted as one CRLF line ending
    # two lines: the joined line has 3 fields (a CR inside the middle one), the same hint
    path = write(tmp_path / "y-dev", "Haus\tN;DAT;PL\rKind\tN;NOM;PL\r")
    with pytest.raises(DataFormatError, match=r"y-dev:1: control character U\+000D") as info:
        read_examples(path)
    assert "convert them to LF" in str(info.value)


def test_field_count_may_not_change_within_a_file(tmp_path):
    path = write(tmp_path / "x-dev", "a\tb\tN\nc\tN\n")
    with pytest.raises(DataFormatError, match=r"x-dev:2: expected 3 tab-separated fields"):
        read_examples(path)


def test_undetectable_format(tmp_path):
    path = write(tmp_path / "x-dev", "\n just one field\n")
    with pytest.raises(DataFormatError, match=r"x-dev:2: cannot detect the format"):
        read_examples(path)


def test_check_file_reports_every_problem_in_line_order(tmp_path):
    lines = [
        b"Haus\tH\xc3\xa4user\tN;NOM;PL",  # 1 ok
        b"bad line",  # 2
        b"\tx\tN",  # 3
        b"",  # 4 blank
        b"Geh\xe4use\tx\tN",  # 5 not UTF-8
        b"a\tb\tV;;PL",  # 6
        b"a\tb\tV;PL;PL",  # 7 ok, repeated feature
        b"a\tb\tc\td",  # 8
    ]
    path = write(tmp_path / "user-file.tsv", b"\n".join(lines) + b"\n")
    parsed = check_file(path)
    assert [e.line for e in parsed.errors] == [2, 3, 5, 6, 8]
    assert [e.line for e in parsed.examples] == [1, 7]
    assert parsed.stats.blank_lines == 1
    assert parsed.stats.duplicate_feature_bundles == 1
    assert all(re.match(rf"{re.escape(str(path))}:\d+: ", str(e)) for e in parsed.errors)


# --- statistics of repeated / padded features, names, frames ----------------------------------


def test_reader_counts_repeated_and_padded_features(tmp_path):
    text = "a\tb\tN;SG;SG\nc\td\tN;SG;SG\ne\tf\tN;PL\ng\th\tADJ; PL\n"
    stats = parse_file(write(tmp_path / "breton-dev", text)).stats
    assert (stats.duplicate_feature_bundles, stats.padded_feature_bundles) == (2, 1)


def test_language_from_filename():
    assert language_from_filename("/x/north-frisian-train-high") == "north-frisian"
    assert language_from_filename("middle-low-german-covered-test") == "middle-low-german"
    assert language_from_filename("mine.tsv") == "mine"


def test_input_key_is_the_written_bundle():
    # the scorer compares the tag text: order and repeats matter, spaces around features do not
    a = Example("Haus", TagBundle.parse("N;NOM;PL"), "Häuser", "german")
    b = Example("Haus", TagBundle.parse("PL; N;NOM"), None, "german")
    c = Example("Haus", TagBundle.parse("N;NOM;PL;PL"), None, "german")
    assert input_key(a) == ("german", "Haus", ("N", "NOM", "PL"))
    assert input_key(b) == ("german", "Haus", ("PL", "N", "NOM"))
    assert input_key(c) == ("german", "Haus", ("N", "NOM", "PL", "PL"))


def test_compute_stats_by_hand(tmp_path):
    text = (
        "geh en\tgeh t\tV;3;SG\n"  # spaces in lemma and form (counted once)
        "geh en\tging\tV;PST;SG;3\n"
        "Haus\tHäuser\tN;PL\n"
        "Haus\tHaus\tN;SG;SG\n"  # repeated feature
        "lang\tlänger\tADJ;CMPR\n"
        "laufen\tläuft\tSG;3;V\n"  # same bundle as line 1, another order
    )
    parsed = parse_file(write(tmp_path / "x-train-low", text))
    s = compute_stats(parsed.examples, read_stats=parsed.stats)
    assert s.pairs == 6
    assert s.lemmas == 4  # geh en, Haus, lang, laufen
    words = ["geh en", "geh t", "ging", "Haus", "Häuser", "lang", "länger", "laufen", "läuft"]
    chars = set("".join(words))
    assert s.characters == len(chars)
    assert s.symbols is None
    assert s.features == len({"V", "3", "SG", "PST", "N", "PL", "ADJ", "CMPR"})
    assert s.bundles == 5  # {V,3,SG} {V,PST,SG,3} {N,PL} {N,SG} {ADJ,CMPR}
    assert s.multi_order_bundles == 1  # {V,3,SG}
    assert s.with_spaces == 2 and s.space_share == pytest.approx(2 / 6)  # lines 1 and 2
    assert s.longest_lemma == "geh en" and s.longest_form == "Häuser"  # first of equal length
    assert s.duplicate_feature_bundles == 1
    symbols = compute_stats(parsed.examples, to_symbols=lambda t: t.split(" ")).symbols
    words = {"geh", "en", "t", "ging", "Haus", "Häuser", "lang", "länger", "laufen", "läuft"}
    assert symbols == len(words)


# --- load_split -------------------------------------------------------------------------------


def test_load_split_by_alias(tmp_path, monkeypatch):
    folder = tmp_path / "conll2018-task1"
    folder.mkdir()
    write(folder / "german-dev", "Haus\tHäuser\tN;NOM;PL\n")
    (example,) = load_split("de", "dev", data_dir=tmp_path)
    assert (example.lemma, example.form, example.language) == ("Haus", "Häuser", "german")


# --- the shared copy --------------------------------------------------------------------------

EXPECTED = {"train-high": (735_610, 86), "train-medium": (95_323, 102), "train-low": (10_261, 103)}


@pytest.mark.shared_data
def test_every_shared_file_loads_with_expected_totals(conll2018):
    pairs: Counter[str] = Counter()
    languages: Counter[str] = Counter()
    forms_missing = 0
    for path in sorted(conll2018.iterdir()):
        split = next(s for s in data_module.SPLITS if path.name.endswith("-" + s))
        parsed = parse_file(path)
        assert parsed.stats.fmt == ("covered" if split == "covered-test" else "2018"), path
        assert parsed.stats.examples == parsed.stats.lines - parsed.stats.blank_lines
        forms_missing += sum(e.form is None for e in parsed.examples) * (split != "covered-test")
        pairs[split] += parsed.stats.examples
        languages[split] += 1
    for split, (n_pairs, n_languages) in EXPECTED.items():
        assert (pairs[split], languages[split]) == (n_pairs, n_languages), split
    assert languages["dev"] == languages["covered-test"] == 103
    assert forms_missing == 0


def test_predict_tsv_output_given_as_data_says_which_format_to_use(tmp_path):
    from inflect.render.tsv import PREDICTION_TSV_COLUMNS

    header = "\t".join(PREDICTION_TSV_COLUMNS)
    path = write(tmp_path / "german.pred", header + "\nHaus\tN;DAT;PL\tgerman\tfull\t1\t1\tHäusern\t1.0\n")
    with pytest.raises(DataFormatError, match=r"german.pred:1: cannot detect the format") as info:
        read_examples(path, "german")
    assert "header of `inflect predict --format tsv` output" in str(info.value)
    assert "`inflect predict --format 2018`" in str(info.value)
