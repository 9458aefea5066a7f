"""Tests of inflect.text.languages: name resolution, spec validation and the exact text round trip."""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from inflect.text import languages
from inflect.text.languages import (
    LanguageSpec,
    LanguageSpecError,
    UnknownLanguageError,
    all_languages,
    load_spec,
    resolve,
)

SPLITS = ("train-high", "train-medium", "train-low", "dev", "covered-test")

# ISO 639 codes checked by hand against the ISO 639-3 code tables (SIL).
EXPECTED_ISO = {
    "adyghe": ("ady", None),
    "kabardian": ("kbd", None),
    "haida": ("hai", None),
    "khaling": ("klr", None),
    "murrinhpatha": ("mwf", None),
    "classical-syriac": ("syc", None),
    "old-church-slavonic": ("chu", "cu"),
    "middle-french": ("frm", None),
    "old-french": ("fro", None),
    "middle-high-german": ("gmh", None),
    "middle-low-german": ("gml", None),
    "old-saxon": ("osx", None),
    "old-english": ("ang", None),
    "old-irish": ("sga", None),
    "old-armenian": ("xcl", None),
    "north-frisian": ("frr", None),
    "west-frisian": ("fry", "fy"),
    "norman": ("nrf", None),
    "livonian": ("liv", None),
    "votic": ("vot", None),
    "ingrian": ("izh", None),
    "karelian": ("krl", None),
    "ladin": ("lld", None),
    "friulian": ("fur", None),
    "neapolitan": ("nap", None),
    "venetian": ("vec", None),
    "asturian": ("ast", None),
    "kashubian": ("csb", None),
    "lower-sorbian": ("dsb", None),
    "greenlandic": ("kal", "kl"),
    "mapudungun": ("arn", None),
    "quechua": ("que", "qu"),
    "sorani": ("ckb", None),
    "kurmanji": ("kmr", None),
    "azeri": ("aze", "az"),
    "crimean-tatar": ("crh", None),
    "serbo-croatian": ("hbs", None),
    "norwegian-bokmaal": ("nob", "nb"),
    "norwegian-nynorsk": ("nno", "nn"),
    "german": ("deu", "de"),
    "khakas": ("kjh", None),
    "northern-sami": ("sme", "se"),
    "tibetan": ("bod", "bo"),
    "persian": ("fas", "fa"),
    "greek": ("ell", "el"),
}

# Writing direction of the data, read off the scripts the files actually use (Sorani is
# romanised in the shared-task data, hence left-to-right).
EXPECTED_RTL = {"arabic", "classical-syriac", "hebrew", "pashto", "persian", "urdu", "yiddish"}

# Unicode character-name prefixes -> ISO 15924 codes, for an independent look at the data.
SCRIPT_OF_NAME = {
    "LATIN": "Latn", "CYRILLIC": "Cyrl", "ARABIC": "Arab", "ARMENIAN": "Armn", "BENGALI": "Beng",
    "GEORGIAN": "Geor", "GREEK": "Grek", "HEBREW": "Hebr", "DEVANAGARI": "Deva",
    "KANNADA": "Knda", "TELUGU": "Telu", "TIBETAN": "Tibt", "SYRIAC": "Syrc", "GLAGOLITIC": "Glag",
}  # fmt: skip


def _spec(**overrides) -> LanguageSpec:
    fields = {
        "name": "testlang",
        "display_name": "Test Language",
        "iso639_3": "tst",
        "iso639_1": None,
        "aliases": (),
        "scripts": ("Latn",),
        "direction": "ltr",
        "settings": ("low",),
        "normalization": "NFC",
        "exceptions": (),
        "model_transform": "none",
    }
    fields.update(overrides)
    return LanguageSpec(**fields)


def _code_points(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in text]


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["de", "deu", "german", "German", "GERMAN", "ger", "Deutsch"])
def test_german_aliases(name):
    assert resolve(name).name == "german"


@pytest.mark.parametrize(
    "name",
    ["nb", "nob", "norwegian-bokmaal", "Norwegian Bokmål", "norwegian_bokmaal", "NORWEGIAN BOKMAL",
     "Bokmål", " norwegian-bokmaal "],
)  # fmt: skip
def test_bokmaal_aliases(name):
    assert resolve(name).name == "norwegian-bokmaal"


@pytest.mark.parametrize(
    ("name", "expected"),
    [("nn", "norwegian-nynorsk"), ("Nynorsk", "norwegian-nynorsk"), ("north_frisian", "north-frisian"),
     ("North Frisian", "north-frisian"), ("frr", "north-frisian"), ("fy", "west-frisian"),
     ("Old Church Slavonic", "old-church-slavonic"), ("cu", "old-church-slavonic"),
     ("Farsi", "persian"), ("ckb", "sorani"), ("kmr", "kurmanji"), ("Azerbaijani", "azeri"),
     ("Croatian", "serbo-croatian"), ("hbs", "serbo-croatian"), ("syc", "classical-syriac"),
     ("Northern Sami", "northern-sami"), ("Diné", "navajo"), ("dine", "navajo")],
)  # fmt: skip
def test_other_aliases(name, expected):
    assert resolve(name).name == expected


def test_resolve_passes_specs_through_and_rejects_non_strings():
    spec = resolve("de")
    assert resolve(spec) is spec
    with pytest.raises(TypeError, match="string"):
        resolve(49)  # type: ignore[arg-type]


def test_unknown_language_suggests_close_names():
    with pytest.raises(UnknownLanguageError) as info:
        resolve("germna")
    assert isinstance(info.value, ValueError)
    assert info.value.suggestions[0] == "german"
    assert "germna" in str(info.value) and "'german'" in str(info.value)


def test_unknown_language_prefix_suggests_both_norwegians():
    with pytest.raises(UnknownLanguageError) as info:
        resolve("norwegian")
    assert {"norwegian-bokmaal", "norwegian-nynorsk"} <= set(info.value.suggestions)


def test_unknown_language_with_nothing_close():
    with pytest.raises(UnknownLanguageError, match="unknown language 'qqqqqqqq'") as info:
        resolve("qqqqqqqq")
    assert info.value.suggestions == ()


def test_every_name_resolves_to_its_own_spec_and_no_name_is_shared():
    owners: dict[str, str] = {}
    for spec in all_languages():
        for name in spec.names:
            assert resolve(name) is spec, name
            key = languages.name_key(name)
            assert owners.setdefault(key, spec.name) == spec.name, (name, owners[key], spec.name)


# --- the shipped specs -------------------------------------------------------------------------


def test_all_languages_are_103_sorted_and_valid():
    specs = all_languages()
    assert len(specs) == 103
    assert [s.name for s in specs] == sorted(s.name for s in specs)
    assert len({s.iso639_3 for s in specs}) == 103
    for spec in specs:
        assert spec.settings and set(spec.settings) <= {"high", "medium", "low"}
        assert spec.direction in ("ltr", "rtl")


@pytest.mark.parametrize(("name", "codes"), sorted(EXPECTED_ISO.items()))
def test_iso_codes(name, codes):
    spec = resolve(name)
    assert (spec.iso639_3, spec.iso639_1) == codes


def test_rtl_set():
    assert {s.name for s in all_languages() if s.is_rtl} == EXPECTED_RTL
    assert resolve("ar").scripts == ("Arab",) and resolve("ar").is_rtl
    assert resolve("sorani").direction == "ltr"


def test_nfd_model_symbols_where_an_accent_is_written_both_ways():
    nfd = {s.name for s in all_languages() if s.model_transform == "nfd"}
    assert nfd == {"greek", "lithuanian", "middle-low-german", "navajo"}


def test_non_nfc_languages():
    """Only Khaling's data are not NFC: decomposed circumflex, precomposed ç."""
    odd = {s.name: (s.normalization, s.exceptions) for s in all_languages()}
    odd = {k: v for k, v in odd.items() if v != ("NFC", ())}
    assert odd == {"khaling": ("NFD", ("ç",))}


def test_to_dict_from_dict_round_trip_through_json():
    for spec in all_languages():
        d = json.loads(json.dumps(spec.to_dict()))
        assert LanguageSpec.from_dict(d) == spec


def test_importing_languages_stays_light():
    code = (
        "import sys, inflect.text.languages as L; L.resolve('de'); "
        "print(sorted(m for m in ('torch', 'numpy', 'pandas', 'difflib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- validation --------------------------------------------------------------------------------

GOOD_TOML = """\
name = "testlang"
display_name = "Test Language"
iso639_3 = "tst"
aliases = ["Testish"]
scripts = ["Latn"]
direction = "ltr"
settings = ["medium", "low"]

[text]
normalization = "NFC"
exceptions = []
model_transform = "none"
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_spec_good_file(tmp_path):
    spec = load_spec(_write(tmp_path, "testlang", GOOD_TOML))
    assert spec.name == "testlang" and spec.iso639_1 is None
    assert spec.settings == ("medium", "low") and spec.aliases == ("Testish",)


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('iso639_3 = "tst"', 'iso639_3 = "ts"', "iso639_3"),
        ('iso639_3 = "tst"', 'iso639_3 = "tst"\niso639_1 = "TST"', "iso639_1"),
        ('direction = "ltr"', 'direction = "up"', "direction"),
        ('settings = ["medium", "low"]', 'settings = ["low", "medium"]', "settings"),
        ('settings = ["medium", "low"]', 'settings = ["huge"]', "settings"),
        ('scripts = ["Latn"]', 'scripts = ["latin"]', "scripts"),
        ('scripts = ["Latn"]', "scripts = []", "scripts"),
        ('normalization = "NFC"', 'normalization = "NFKC"', "normalization"),
        ('model_transform = "none"', 'model_transform = "bpe"', "model_transform"),
        ("exceptions = []", 'exceptions = ["a"]', "exceptions"),
        ('aliases = ["Testish"]', 'aliases = "Testish"', "aliases"),
        ('name = "testlang"', 'name = "Test Lang"', "name"),
        ('name = "testlang"', 'name = "otherlang"', "name"),
        ('display_name = "Test Language"\n', "", "display_name"),
        ('aliases = ["Testish"]', 'aliases = ["Testish"]\ncolour = "red"', "colour"),
        ("exceptions = []", 'exceptions = []\ntone = "high"', "tone"),
    ],
)
def test_malformed_spec_names_file_and_field(tmp_path, old, new, field):
    assert old in GOOD_TOML
    path = _write(tmp_path, "testlang", GOOD_TOML.replace(old, new))
    with pytest.raises(LanguageSpecError) as info:
        load_spec(path)
    assert str(path) in str(info.value)
    # the field named outside the path (tmp_path's folder name holds "name" itself)
    assert field in str(info.value).replace(str(path), "")


def test_invalid_toml_names_file_and_line(tmp_path):
    path = _write(tmp_path, "testlang", GOOD_TOML.replace('direction = "ltr"', "direction = ltr"))
    with pytest.raises(LanguageSpecError, match=r"invalid TOML.*line 6") as info:
        load_spec(path)
    assert str(path) in str(info.value)


def test_duplicate_alias_across_files_is_an_error(tmp_path):
    _write(tmp_path, "testlang", GOOD_TOML)
    other = GOOD_TOML.replace('"testlang"', '"otherlang"').replace('"tst"', '"oth"')
    _write(tmp_path, "otherlang", other.replace('"Test Language"', '"Other Language"'))
    with pytest.raises(LanguageSpecError, match=r"name 'testish' is already used"):
        languages._build_registry(tmp_path.glob("*.toml"))


def test_from_dict_rejects_bad_dicts():
    good = resolve("de").to_dict()
    with pytest.raises(LanguageSpecError, match="missing field 'scripts'"):
        LanguageSpec.from_dict({k: v for k, v in good.items() if k != "scripts"})
    with pytest.raises(LanguageSpecError, match="'direction'"):
        LanguageSpec.from_dict({**good, "direction": "rtl-ish"})
    with pytest.raises(LanguageSpecError, match="expected a dict"):
        LanguageSpec.from_dict(["german"])  # type: ignore[arg-type]


# --- the text pipeline on synthetic cases ------------------------------------------------------


def test_none_transform_is_code_points_as_written():
    spec = _spec()
    decomposed = "Ha\u0308user"  # as a user might type it
    assert spec.to_symbols(decomposed) == ["H", "a", "\u0308", "u", "s", "e", "r"]
    assert spec.from_symbols(spec.to_symbols(decomposed)) == decomposed
    assert spec.normalize_input(decomposed) == "H\u00e4user"


def test_nfd_transform_makes_diacritic_its_own_symbol():
    spec = _spec(model_transform="nfd")
    composed = "\u03bb\u03cc\u03b3\u03bf\u03c2"  # λόγος with precomposed ό
    symbols = spec.to_symbols(composed)
    assert symbols == ["\u03bb", "\u03bf", "\u0301", "\u03b3", "\u03bf", "\u03c2"]
    assert spec.from_symbols(symbols) == composed
    # A symbol sequence the model might produce with the accent moved is recomposed to NFC.
    moved = ["\u03bb", "\u03bf", "\u03b3", "\u03bf", "\u0301", "\u03c2"]
    assert spec.from_symbols(moved) == "\u03bb\u03bf\u03b3\u03cc\u03c2"  # λογός


def test_hangul_syllables_become_jamo_and_come_back():
    spec = _spec(scripts=("Kore",), model_transform="nfd")
    word = "\ud55c\uad6d\uc5b4"  # 한국어
    symbols = spec.to_symbols(word)
    # 한 = ᄒ ᅡ ᆫ, 국 = ᄀ ᅮ ᆨ, 어 = ᄋ ᅥ (Unicode 15, section 3.12, conjoining jamo)
    assert _code_points("".join(symbols)) == [
        "U+1112", "U+1161", "U+11AB", "U+1100", "U+116E", "U+11A8", "U+110B", "U+1165",
    ]  # fmt: skip
    assert spec.from_symbols(symbols) == word


def test_rtl_text_round_trips_in_logical_order():
    arabic = resolve("arabic")
    word = "\u0643\u064e\u062a\u064e\u0628\u064e"  # كَتَبَ, with fatḥa after each letter
    assert arabic.to_symbols(word)[:2] == ["\u0643", "\u064e"]
    assert arabic.from_symbols(arabic.to_symbols(word)) == word
    hebrew_nfd = _spec(scripts=("Hebr",), direction="rtl", model_transform="nfd")
    # shin + shin dot (ccc 24) + qamats (ccc 18): NFC puts qamats first (canonical ordering).
    typed = "\u05e9\u05c1\u05b8\u05dc\u05d5\u05b9\u05dd"
    normal = hebrew_nfd.normalize_input(typed)
    assert _code_points(normal[:3]) == ["U+05E9", "U+05B8", "U+05C1"]
    assert hebrew_nfd.from_symbols(hebrew_nfd.to_symbols(normal)) == normal


def test_spaces_inside_multiword_forms_are_symbols():
    for spec in (resolve("german"), resolve("greek"), _spec(model_transform="nfd")):
        form = "wandert aus"
        symbols = spec.to_symbols(form)
        assert symbols.count(" ") == 1 and len(symbols) == len(form)
        assert spec.from_symbols(symbols) == form
    hindi = resolve("hindi")
    form = "\u0916\u093c\u0924\u094d\u092e \u0915\u0930\u0928\u093e"  # ख़त्म करना, nuqta decomposed
    assert hindi.from_symbols(hindi.to_symbols(form)) == form
    assert hindi.normalize_input("\u0959\u0924\u094d\u092e \u0915\u0930\u0928\u093e") == form


def test_khaling_keeps_its_mixed_writing():
    khaling = resolve("khaling")
    data_like = "mu\u0294e\u0302mw\u025bnnu \u00e7a"  # decomposed ê, precomposed ç
    assert khaling.normalize_input("mu\u0294\u00eamw\u025bnnu c\u0327a") == data_like
    assert khaling.normalize_input(data_like) == data_like
    assert khaling.from_symbols(khaling.to_symbols(data_like)) == data_like
    as_nfd = _spec(normalization="NFD", exceptions=("\u00e7",), model_transform="nfd")
    assert as_nfd.to_symbols("\u00e7")[1] == "\u0327"
    assert as_nfd.from_symbols(as_nfd.to_symbols(data_like)) == data_like


# --- the real data -----------------------------------------------------------------------------


@pytest.mark.shared_data
def test_specs_match_the_data_folder(conll2018):
    present: dict[str, set[str]] = {}
    for path in conll2018.iterdir():
        for split in SPLITS:
            if path.name.endswith("-" + split):
                present.setdefault(path.name[: -len(split) - 1], set()).add(split)
    assert sorted(present) == [s.name for s in all_languages()]
    for spec in all_languages():
        splits = present[spec.name]
        assert {"dev", "covered-test"} <= splits, spec.name
        assert set(spec.settings) == {s[len("train-") :] for s in splits if s.startswith("train-")}


@pytest.mark.shared_data
@pytest.mark.parametrize("name", [s.name for s in all_languages()])
def test_exact_round_trip_on_every_file(conll2018, name):
    """decode(encode(s)) == s, code point for code point, for every lemma and form of the data.

    Also checks the spec's main script, direction and model transform against the characters
    the files use.
    """
    spec = resolve(name)
    chars: Counter[str] = Counter()
    seen = 0
    for split in SPLITS:
        path = conll2018 / f"{name}-{split}"
        if not path.exists():
            continue
        with path.open(encoding="utf-8", newline="") as f:
            for number, line in enumerate(f, 1):
                fields = line.rstrip("\r\n").split("\t")
                if fields == [""]:
                    continue
                texts = fields[:1] if split == "covered-test" else fields[:2]
                for text in texts:
                    seen += 1
                    chars.update(text)
                    back = spec.from_symbols(spec.to_symbols(text))
                    assert back == text, (path.name, number, _code_points(text), _code_points(back))
                    assert spec.normalize_input(text) == text, (path.name, number, text)
    assert seen > 0
    letters: Counter[str] = Counter()
    alone: Counter[str] = Counter()  # combining diacritics written as their own code point
    inside: Counter[str] = Counter()  # the same, inside precomposed letters
    rtl_letters = 0
    for ch, count in chars.items():
        if unicodedata.category(ch)[0] == "L":
            letters[SCRIPT_OF_NAME.get(unicodedata.name(ch).split()[0], "?")] += count
            rtl_letters += count * (unicodedata.bidirectional(ch) in ("R", "AL"))
        if unicodedata.combining(ch):
            alone[ch] += count
        for mark in unicodedata.normalize("NFD", ch)[1:]:
            inside[mark] += count
    assert letters.most_common(1)[0][0] == spec.scripts[0]
    assert (rtl_letters > sum(letters.values()) / 2) == spec.is_rtl
    # NFD model symbols exactly where a diacritic is written both ways, 100+ times each.
    split_accent = any(min(alone[m], inside[m]) >= 100 for m in alone)
    assert (spec.model_transform == "nfd") == split_accent
