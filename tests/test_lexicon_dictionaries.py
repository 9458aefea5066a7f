"""Field dictionaries as lexicons: each adapter against the library's own output on words checked
by hand, the frequent irregular words that the model alone gets wrong, the order of the sources,
and loading a library only for its language at its first lookup.

A test that needs a library skips, saying which, where it is not installed (``pip install
'.[dictionaries]'``); the ``test`` extra installs them all.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from inflect.cli import main
from inflect.lexicon import load_lexicons
from inflect.lexicon.dictionaries import installed_dictionaries
from inflect.text.records import TagBundle


def need(module: str, extra: str = "dictionaries"):
    """Skip, saying so, where ``module`` is not installed (found without importing it: verbecc's
    own import would open a log file in the working folder)."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install '.[{extra}]')")


def forms(dictionary, language: str, lemma: str, tags: str) -> list[str]:
    return [a.form for a in dictionary.lookup(language, lemma, TagBundle.parse(tags))]


def test_lemminflect_gives_its_dictionary_s_forms():
    need("lemminflect")
    import lemminflect

    from inflect.lexicon.field_lemminflect import LemmInflect

    lexicon = LemmInflect()
    for lemma, tags, penn, by_hand in [("go", "V;PST", "VBD", ["went"]),
                                       ("go", "V;V.PTCP;PST", "VBN", ["gone"]),
                                       ("be", "V;PST", "VBD", ["was", "were"]),
                                       ("say", "PST;V", "VBD", ["said"]),
                                       ("run", "V;V.PTCP;PRS", "VBG", ["running"]),
                                       ("go", "V;3;SG;PRS", "VBZ", ["goes"])]:
        library = list(lemminflect.getAllInflections(lemma, upos="VERB")[penn])
        assert forms(lexicon, "english", lemma, tags) == library == by_hand
    assert forms(lexicon, "english", "child", "N;PL") == ["children"]
    assert forms(lexicon, "english", "zorpify", "V;PST") == []  # its rules are never asked
    assert forms(lexicon, "german", "go", "V;PST") == []
    assert lexicon.lookup("english", "go", TagBundle.parse("V;PST"))[0].source == (
        f"lemminflect {lexicon.version()}")


def test_pymorphy3_maps_opencorpora_to_the_shared_task_bundles():
    need("pymorphy3")
    import pymorphy3

    from inflect.lexicon.field_pymorphy import Pymorphy

    lexicon = Pymorphy()
    ru = pymorphy3.MorphAnalyzer(lang="ru")
    man = next(p for p in ru.parse("человек") if p.normal_form == "человек")
    assert forms(lexicon, "russian", "человек", "N;GEN;PL")[0] == \
        man.inflect({"gent", "plur"}).word == "людей"
    assert forms(lexicon, "russian", "дом", "N;ESS;SG") == ["доме"]
    assert forms(lexicon, "russian", "красный", "ADJ;ANIM;ACC;MASC;SG") == ["красного"]
    assert forms(lexicon, "russian", "красный", "ADJ;INAN;ACC;MASC;SG") == ["красный"]
    assert forms(lexicon, "russian", "красный", "ADJ;MASC;SG;LGSPEC1") == ["красен"]
    assert forms(lexicon, "russian", "делать", "V;FUT;2;SG") == ["будешь делать"]
    assert forms(lexicon, "russian", "сделать", "V;FUT;2;SG") == ["сделаешь"]
    assert forms(lexicon, "russian", "делать", "V;PST;SG;FEM") == ["делала"]
    assert forms(lexicon, "russian", "делать", "V.CVB;PRS") == ["делая"]
    assert forms(lexicon, "russian", "Москва", "N;GEN;SG") == ["Москвы"]
    assert forms(lexicon, "russian", "шмыргать", "V;NFIN") == []  # not in the dictionary
    uk = pymorphy3.MorphAnalyzer(lang="uk")
    lampshade = next(p for p in uk.parse("абажур") if p.normal_form == "абажур")
    library = [f.word for f in lampshade.lexeme if {"datv"} <= set(f.tag.grammemes)
               and "plur" not in f.tag.grammemes]
    assert library == ["абажурові", "абажуру"]  # VESUM's order, which is no preference:
    # a thing's dative in -у first, a person's or animal's in -ові (the grammar's, and the data's)
    assert forms(lexicon, "ukrainian", "абажур", "N;DAT;SG") == ["абажуру", "абажурові"]
    assert forms(lexicon, "ukrainian", "ішак", "N;DAT;SG") == ["ішакові", "ішаку"]
    assert forms(lexicon, "ukrainian", "дощ", "N;ESS;SG") == ["дощі", "дощу", "дощеві"]
    assert forms(lexicon, "ukrainian", "бачити", "V;FUT;1;SG")[0] == "буду бачити"
    assert forms(lexicon, "ukrainian", "зробити", "V;IMP;1;PL") == ["зробімо", "зробім"]
    source = lexicon.lookup("russian", "дом", TagBundle.parse("N;ESS;SG"))[0].source
    assert source.startswith(f"pymorphy3 {lexicon.version()} (pymorphy3-dicts-ru ")


@pytest.mark.slow
def test_german_nouns_reads_the_library_s_table():
    need("german_nouns")
    from german_nouns.lookup import Nouns

    from inflect.lexicon.field_german_nouns import GermanNouns

    lexicon = GermanNouns()
    [house] = [r for r in Nouns()["Haus"] if r["lemma"] == "Haus"]  # the library's lookup
    assert forms(lexicon, "german", "Haus", "N;NOM;PL") == [house["flexion"]["nominativ plural"]]
    assert forms(lexicon, "german", "Haus", "N;NOM;PL") == ["Häuser"]
    assert forms(lexicon, "german", "Haus", "N;GEN;SG") == ["Hauses"]
    assert forms(lexicon, "german", "Haus", "N;DAT;SG") == ["Haus", "Hause"]  # the * column after
    # both genitives: the one in -es first, whichever column holds it (Gebrauchs is the main)
    assert forms(lexicon, "german", "Gebrauch", "N;GEN;SG") == ["Gebrauches", "Gebrauchs"]
    assert forms(lexicon, "german", "Bank", "N;NOM;PL") == ["Bänke", "Banken"]  # two rows
    assert forms(lexicon, "german", "Haus", "V;NFIN") == []
    assert forms(lexicon, "german", "Hausx", "N;NOM;PL") == []


@pytest.mark.slow
def test_german_nouns_index_finds_the_rows_the_library_reads():
    """The adapter's index of the table against the library's own reading of it (``Nouns().data``,
    its csv rows): every lemma quoted in the file (``"0,2-Liter-Flasche"``) and every 50th of the
    others give the same rows, in the file's order; a lemma that is only a prefix of one gives
    none."""
    need("german_nouns")
    from german_nouns.config import CSV_FILE_PATH
    from german_nouns.lookup import Nouns

    from inflect.lexicon.field_german_nouns import _Table

    library = Nouns()
    by_lemma: dict[str, list[list[str]]] = {}
    for row in library.data:
        by_lemma.setdefault(row[0], []).append(row)
    table = _Table(CSV_FILE_PATH)
    assert len(table.index) == len(by_lemma) > 100_000 - 1000
    quoted = [lemma for lemma in by_lemma if "," in lemma or '"' in lemma]
    assert "0,2-Liter-Flasche" in quoted
    for lemma in quoted + list(by_lemma)[::50]:
        ours = [[row.get(column, "") for column in table.header] for row in table.rows(lemma)]
        assert ours == [row + [""] * (len(table.header) - len(row)) for row in by_lemma[lemma]]
    prefixes = [lemma[:-1] for lemma in list(by_lemma)[::500] if lemma[:-1] not in by_lemma]
    assert prefixes and all(table.rows(prefix) == [] for prefix in prefixes)
    assert "0,2-Liter" not in by_lemma and table.rows("0,2-Liter") == []


@pytest.mark.slow
def test_verbecc_gives_its_tables_without_its_guesser_or_log_file(tmp_path):
    need("verbecc", "dictionaries")
    from inflect.lexicon.field_verbecc import Verbecc

    if not Verbecc.available():
        pytest.skip("verbecc 2.x is installed; the adapter reads verbecc 1.10")
    code = ("import sys\nfrom inflect.lexicon.field_verbecc import _import_verbecc\n"
            "_import_verbecc()\nprint('sklearn' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path)
    assert out.stdout.strip() == "False"  # its classifier's scikit-learn is not imported
    assert list(tmp_path.iterdir()) == []  # and no verbecc.log is left in the working folder
    lexicon = Verbecc()
    for language, code, lemma, mood, tense, by_hand in [
        ("french", "fr", "être", "indicatif", "présent", "suis"),
        ("spanish", "es", "ir", "indicativo", "presente", "voy"),
        ("spanish", "es", "ser", "indicativo", "presente", "soy"),
        ("italian", "it", "essere", "indicativo", "presente", "sono"),
    ]:
        found = forms(lexicon, language, lemma, "V;IND;PRS;1;SG")
        library = lexicon._backends[code].conjugate(  # verbecc's own Conjugator, as loaded
            lemma, include_alternates=True, conjugate_pronouns=False)["moods"][mood][tense][0]
        assert found == library == [by_hand]
    assert forms(lexicon, "spanish", "decir", "V;NEG;IMP;2;SG") == ["no digas"]
    assert forms(lexicon, "french", "être", "V.CVB;PRS") == ["en étant"]
    assert forms(lexicon, "french", "zorpiner", "V;NFIN") == []  # no guess


THE_TABLE = [  # the queries: the model alone answers each wrong
    ("english", "go", "V;PST", "went", "lemminflect"),
    ("french", "être", "V;IND;PRS;1;SG", "suis", "verbecc"),
    ("spanish", "ir", "V;IND;PRS;1;SG", "voy", "verbecc"),
    ("spanish", "ser", "V;IND;PRS;1;SG", "soy", "verbecc"),
    ("italian", "essere", "V;IND;PRS;1;SG", "sono", "verbecc"),
    ("russian", "человек", "N;GEN;PL", "людей", "pymorphy3"),
    ("german", "Haus", "N;NOM;PL", "Häuser", "german_nouns"),
    ("german", "Haus", "N;GEN;SG", "Hauses", "german_nouns"),
]


@pytest.mark.parametrize(("language", "lemma", "tags", "right", "module"), THE_TABLE)
def test_frequent_irregular_words_are_answered_right_first(language, lemma, tags, right,
                                                          module, tmp_path):
    need(module, "dictionaries")
    lexicons = load_lexicons(data_dir=tmp_path)  # no UniMorph there: the dictionaries answer
    found = lexicons.lookup(language, lemma, TagBundle.parse(tags))
    assert found[0].form == right
    assert found[0].source.startswith(module.replace("_", "-"))


def test_a_dictionary_comes_before_the_shared_task_data_and_both_are_listed(conll2018, tmp_path):
    need("lemminflect")
    line = next(x for x in (conll2018 / "english-train-high").read_text("utf-8").splitlines()
                if x.startswith("say\t") and x.endswith("\tV;PST"))
    assert line.split("\t")[1] == "sayed"  # an error of the shared-task file
    lexicons = load_lexicons(data_dir=tmp_path)
    found = lexicons.lookup("english", "say", TagBundle.parse("V;PST"))
    assert [a.form for a in found] == ["said", "sayed"]
    assert found[1].source.startswith("shared-task data (english-train-high:")
    got = lexicons.lookup("english", "get", TagBundle.parse("V;PST"))
    assert [a.form for a in got] == ["got"]  # both attest it: one form, both sources
    assert got[0].source.startswith("lemminflect ") and "; shared-task data (" in got[0].source


def test_predict_names_the_dictionary_and_no_lexicon_is_the_model_alone(tmp_path, monkeypatch):
    need("lemminflect")
    monkeypatch.setenv("INFLECT_DATA_DIR", str(tmp_path))
    runner = CliRunner()
    args = ["predict", "--lang", "english", "go", "V;PST", "--format", "jsonl"]
    record = json.loads(runner.invoke(main, args).output)
    assert record["forms"][0]["form"] == "went" and record["forms"][0]["attested"]
    assert record["forms"][0]["source"].startswith("lemminflect ")
    alone = json.loads(runner.invoke(main, [*args, "--no-lexicon"]).output)
    assert not any(f["attested"] for f in alone["forms"])
    assert [f["form"] for f in alone["forms"]] == [
        f["form"] for f in record["forms"] if not f["attested"]]

    piped = runner.invoke(main, ["predict", "--lang", "english", "--format", "2018"],
                          input="go\tV;PST\nsay\tV;PST\nzorpify\tV;PST\n")
    assert piped.exit_code == 0, piped.output
    assert "lexicons: 2 of 3 inputs answered with an attested form first (lemminflect 2); 1 by " \
           "the model alone" in piped.output


def test_paradigm_shows_the_attested_cells_and_no_lexicon_the_model_alone(tmp_path, monkeypatch):
    need("lemminflect")
    monkeypatch.setenv("INFLECT_DATA_DIR", str(tmp_path))
    runner = CliRunner()
    args = ["paradigm", "--lang", "english", "go", "--pos", "V", "--format", "jsonl"]
    out = runner.invoke(main, args)
    assert out.exit_code == 0, out.output
    cells = {c["tags"]: c for c in map(json.loads, out.output.splitlines())}
    past = cells["V;PST"]["forms"][0]
    assert past["form"] == "went" and past["source"].startswith("lemminflect ")
    alone = runner.invoke(main, [*args, "--no-lexicon"])
    for line in alone.output.splitlines():
        assert all(not f["attested"] for f in json.loads(line)["forms"])


def test_a_dictionary_is_loaded_only_for_its_language_at_its_first_lookup(tmp_path):
    need("lemminflect")
    need("pymorphy3")
    code = (
        "import sys\n"
        "from inflect.lexicon import load_lexicons\n"
        "from inflect.text.records import TagBundle\n"
        f"lexicons = load_lexicons(data_dir={str(tmp_path)!r})\n"
        "before = sorted(m for m in ('lemminflect', 'pymorphy3') if m in sys.modules)\n"
        "lexicons.lookup('english', 'go', TagBundle.parse('V;PST'))\n"
        "after = sorted(m for m in ('lemminflect', 'pymorphy3') if m in sys.modules)\n"
        "print(before, after)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[] ['lemminflect']"


def test_the_installed_dictionaries_are_those_whose_library_is_there():
    import importlib.util

    names = {cls.module for cls in installed_dictionaries()}
    for module in ("lemminflect", "pymorphy3", "german_nouns"):
        assert (module in names) == (importlib.util.find_spec(module) is not None)


@pytest.mark.slow
def test_verbeccs_lazy_parsers_give_verbeccs_own_conjugations():
    """The adapter's lazy parsers (a template and a verb built when first asked) against
    verbecc's own parsers, which build all of them at load: the same conjugation, every mood and
    tense with alternates, for every 50th listed verb and the irregular ones, and the same
    answer for an infinitive found only without its accents."""
    need("verbecc", "dictionaries")
    from inflect.lexicon.field_verbecc import Verbecc, _import_verbecc

    if not Verbecc.available():
        pytest.skip("verbecc 2.x is installed; the adapter reads verbecc 1.10")
    conjugator = _import_verbecc()
    import verbecc.conjugations_parser as templates
    import verbecc.verbs_parser as verbs

    lazy = (templates.ConjugationsParser, verbs.VerbsParser)
    assert all(getattr(p, "lazy", False) for p in lazy)
    own = tuple(p.__mro__[1] for p in lazy)
    assert not any(getattr(p, "lazy", False) for p in own)

    def conjugate(conj, infinitive):
        try:
            return conj.conjugate(infinitive, include_alternates=True, conjugate_pronouns=False)
        except Exception as exc:  # the same failure counts as the same answer
            return type(exc).__name__

    for code, irregular, unaccented in [("it", ["essere", "avere", "andare"], "poter"),
                                        ("fr", ["être", "avoir", "aller"], "etre"),
                                        ("es", ["ser", "ir", "haber"], "reir")]:
        fast = conjugator.Conjugator(code)
        templates.ConjugationsParser, verbs.VerbsParser = own
        try:
            full = conjugator.Conjugator(code)
        finally:
            templates.ConjugationsParser, verbs.VerbsParser = lazy
        sample = full.get_infinitives()[::50] + irregular + [unaccented]
        assert len(sample) > 100
        for infinitive in sample:
            assert conjugate(fast, infinitive) == conjugate(full, infinitive), infinitive
