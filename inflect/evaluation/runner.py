"""Evaluating a model or an ensemble: predict the gold inputs, score them, add the statistics.

The runner of ``inflect evaluate --model`` (and of ``inflect report ambiguity``): the gold
inputs (:func:`load_gold`) are predicted by an :class:`inflect.inference.predictor.Predictor` (beam 5, widened
where the support is not certified), the most probable forms are scored as the shared task does
(:mod:`inflect.evaluation.scoring`), and the sparsity statistics (:mod:`inflect.evaluation.sparsity`) are added per
language. Each chunk of inputs is encoded once: the searches and the teacher-forced pass along
each best string (for the output support sizes per step) share that encoder pass. The result is
one DataFrame, written with :func:`write_results`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inflect import defaults
from inflect.evaluation.scoring import score_predictions
from inflect.evaluation.sparsity import sparsity_statistics
from inflect.text.reading import language_of_file, read_examples
from inflect.text.records import Example, Format

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "MAX_ATTESTED_GOLD",
    "MIN_TAKEN",
    "SPARSITY_COLUMNS",
    "Evaluation",
    "evaluate_checkpoints",
    "evaluate_predictor",
    "lexicon_overlap",
    "load_gold",
    "write_results",
]

#: Sparsity columns added by :func:`evaluate_predictor` after the scorer's columns
#: (:data:`inflect.evaluation.scoring.SCORE_COLUMNS`).
SPARSITY_COLUMNS: tuple[str, ...] = (
    "inputs",
    "rejected",
    "single_string",
    "full_support",
    "mode_only",
    "mean_strings",
    "incomplete",
    "mean_step_support",
    "mean_attended",
    "attention_density",
)
_COUNTS = ("inputs", "rejected", "incomplete")

#: The largest share of a language's gold inputs whose gold form the predictor's lexicon may
#: attest: above it, the lexicon holds the gold file's own pairs (its answer key), and
#: :func:`evaluate_predictor` refuses to score instead of reporting the lexicon's accuracy as the
#: system's.
MAX_ATTESTED_GOLD = 0.5

#: The least share of a language's gold inputs the model must be able to take (known language,
#: known features): below it the model and the gold data do not belong together, and
#: :func:`evaluate_predictor` says so instead of scoring a plausible-looking near 0%.
MIN_TAKEN = 0.1


@dataclass
class Evaluation:
    """What :func:`evaluate_predictor` computed.

    Attributes:
        frame: one row per language and a :data:`~inflect.evaluation.scoring.MACRO` row; columns
            :data:`~inflect.evaluation.scoring.SCORE_COLUMNS`, then :data:`SPARSITY_COLUMNS`, then
            ``members`` (ensemble size) and ``beam``.
        gold: the gold inputs, in order.
        searched: per gold input, the :class:`inflect.inference.searcher.Searched` (record + search result
            + support sizes), or None where the model could not take the input (``rejected``;
            e.g. a UniMorph feature unseen in training), which is scored as an empty prediction.
        errors: per rejected input, the reason.
        lexicon: the name of the lexicons the predictor consulted (their attested forms come
            first, so they are scored), or None: the model alone.
        attested: per language, ``(inputs the lexicon answers, of them with the gold form)``
            (empty for the model alone).
        tag_notes: per note on the gold tags of the inputs the model took (a bundle the
            language's 2018 data never use; UniMorph 4 or UD tags not converted, as ``inflect
            predict`` notes them: :meth:`inflect.inference.predictor.Predictor.tag_note`), the
            number of inputs it concerns, most first.
    """

    frame: pd.DataFrame
    gold: list[Example]
    searched: list[Any]
    errors: list[str]
    lexicon: str | None = None
    attested: dict[str, tuple[int, int]] = field(default_factory=dict)
    tag_notes: dict[str, int] = field(default_factory=dict)

    @property
    def predictions(self) -> list[Any]:
        """The :class:`inflect.inference.outcomes.Prediction` records (rejected inputs left out)."""
        return [s.prediction for s in self.searched if s is not None]


def evaluate_predictor(
    predictor: Any, gold: Sequence[Example], *, check_lexicon: bool = True
) -> Evaluation:
    """Predict every gold input with a :class:`inflect.inference.predictor.Predictor`, score the most probable
    forms with :func:`~inflect.evaluation.scoring.score_predictions` and add the sparsity statistics per
    language.

    The statistics of an input use its record (the forms and the certificate of
    :meth:`~inflect.inference.searcher.Searcher.run_detailed`), the attention of the best token string
    (``beam.best.attention``, padding columns left out) and that string's per-step output support
    sizes (teacher forcing on the chunk's encoder pass). ``incomplete`` counts records that are
    not certified full support (their ``mean_strings`` contribution is a lower bound). The
    :data:`~inflect.evaluation.scoring.MACRO` row holds the unweighted mean over languages of each share and
    mean, and the sums of the counts.

    Args:
        predictor: the predictor (its beam size, support mode and members are used as set).
        gold: the gold inputs with their forms.
        check_lexicon: refuse a lexicon that holds the gold pairs (see Raises); False for a
            report that marks attested forms without scoring them.

    Returns:
        An :class:`Evaluation`.

    The model alone is scored unless the predictor has lexicons (``Predictor(...,
    lexicons=...)``): then an input's first form is its attested form where the lexicon holds
    one, and :attr:`Evaluation.attested` says how many inputs the lexicon answered.

    Raises:
        ValueError: no gold input; a language of which the model could take fewer than
            :data:`MIN_TAKEN` of the inputs (e.g. a German model on Finnish gold: the message
            says so, with the first reason); a lexicon that attests the gold form of more than
            :data:`MAX_ATTESTED_GOLD` of a language's inputs (it holds the gold file's own
            pairs); or as :func:`~inflect.evaluation.scoring.score_predictions`.
        UnknownLanguageError: a gold language with no spec.
    """
    gold = list(gold)
    if not gold:
        raise ValueError("no gold examples to evaluate on")
    lexicons = getattr(predictor, "lexicons", None)
    attested = lexicon_overlap(lexicons, gold) if lexicons else {}
    for language, (_, with_gold) in attested.items():
        total = sum(e.language == language for e in gold)
        if check_lexicon and with_gold > MAX_ATTESTED_GOLD * total:
            raise ValueError(
                f"the lexicon ({lexicons.name}) attests the gold form of {with_gold:,} of the "
                f"{total:,} {language} gold inputs: it holds the gold file's own pairs, so the "
                "score would be the lexicon's answer key, not the model's; drop --lexicon to "
                "score the model alone, or give a lexicon without the gold pairs"
            )
    searched, errors = _search_all(predictor, gold)
    _check_taken(gold, searched, errors)
    predictions = []
    for example, result in zip(gold, searched, strict=True):
        if result is not None:
            best = result.prediction.best
            predictions.append(
                Example(example.lemma, example.tags, best.form if best else "", example.language)
            )
    frame = score_predictions(predictions, gold)
    frame = _with_statistics(frame, gold, searched)
    frame["members"] = len(predictor.members)
    frame["beam"] = predictor.beam_size
    name = lexicons.name if lexicons else None
    notes = _tag_notes(predictor, gold, searched)
    return Evaluation(frame, gold, searched, errors, name, attested, notes)


def _tag_notes(predictor: Any, gold: list[Example], searched: list[Any]) -> dict[str, int]:
    """Per note on the gold tags of a taken input (the predictor's ``tag_note``), the number of
    inputs it concerns, most first (a predictor without ``tag_note``: none)."""
    from collections import Counter

    note_of = getattr(predictor, "tag_note", None)
    if note_of is None:
        return {}
    found = (note_of(e) for e, s in zip(gold, searched, strict=True) if s is not None)
    return dict(Counter(note for note in found if note).most_common())


def lexicon_overlap(lexicons: Any, gold: Sequence[Example]) -> dict[str, tuple[int, int]]:
    """How much of the gold a lexicon answers: per language, ``(inputs it attests a form of,
    inputs whose gold form it attests)``.

    Args:
        lexicons: an :class:`inflect.lexicon.Lexicons` (or any :class:`~inflect.lexicon.Lexicon`).
        gold: the gold inputs with their forms (lemma brought to the language's normalisation).

    Raises:
        DataFormatError, LexiconError: a lexicon that cannot be read.
    """
    from inflect.lexicon.core import lemma_key

    counts: dict[str, list[int]] = {}
    for example in gold:
        found = lexicons.lookup(
            example.language, lemma_key(example.language, example.lemma), example.tags
        )
        count = counts.setdefault(example.language, [0, 0])
        if found:
            count[0] += 1
            gold_form = lemma_key(example.language, example.form or "")
            count[1] += any(a.form == gold_form for a in found)
    return {language: (a, b) for language, (a, b) in counts.items()}


def _search_all(predictor: Any, gold: list[Example]) -> tuple[list[Any], list[str]]:
    """Every gold input searched in chunks of the predictor's ``chunk_size`` (its
    :meth:`~inflect.inference.searcher.Searcher.stream_detailed`, an input it rejects leaving its
    chunk whole), with the support sizes: a :class:`~inflect.inference.searcher.Searched` per
    input, None and a reason where it is rejected.

    Raises:
        UnknownLanguageError: a gold language with no spec (before any search).
    """
    from inflect.inference.outcomes import ErrorRecord
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.text.languages import resolve

    for language in dict.fromkeys(e.language for e in gold):
        if language:
            resolve(language)  # an unknown name is an error of the call, not of an input
    searched: list[Any] = []
    errors: list[str] = []
    with warnings.catch_warnings():  # unseen symbols: kept in the record's warnings
        warnings.simplefilter("ignore", UnknownSymbolWarning)
        for result in predictor.stream_detailed(
            gold, support_sizes=True, whole_chunks=True, strict=False
        ):
            if isinstance(result.prediction, ErrorRecord):
                errors.append(result.prediction.message)
                searched.append(None)
            else:
                searched.append(result)
    return searched, errors


def _check_taken(gold: list[Example], searched: list[Any], errors: list[str]) -> None:
    """Refuse an evaluation in which the model could take almost none of a language's inputs."""
    if not errors:
        return
    for language in dict.fromkeys(e.language for e in gold):
        chosen = [i for i, e in enumerate(gold) if e.language == language]
        taken = sum(searched[i] is not None for i in chosen)
        if taken < MIN_TAKEN * len(chosen):
            raise ValueError(
                f"the model could take only {taken:,} of the {len(chosen):,} {language} inputs "
                f"(first reason: {errors[0]}); is it a model of {language}?"
            )


def _with_statistics(frame: pd.DataFrame, gold: list[Example], searched: list[Any]):
    """``frame`` with the :data:`SPARSITY_COLUMNS` of each language and of the macro row."""
    import pandas as pd

    rows = []
    for language in frame["language"][:-1]:
        chosen = [i for i, e in enumerate(gold) if e.language == language]
        done = [searched[i] for i in chosen if searched[i] is not None]
        records = [s.prediction for s in done]
        with_attention = [s for s in done if s.beam.best and s.beam.best.attention is not None]
        stats = sparsity_statistics(
            [[f.probability for f in r.model_forms] for r in records],
            [r.certificate for r in records],
            [s.support_sizes or [] for s in done],
            [s.beam.best.attention for s in with_attention],
            [len(s.prepared.symbols) for s in with_attention],
            incomplete=sum(not r.complete for r in records),
        ).to_dict()
        stats["rejected"] = len(chosen) - len(done)
        rows.append(stats)
    stats_frame = pd.DataFrame(rows, columns=list(SPARSITY_COLUMNS))
    macro = {
        c: (int(stats_frame[c].sum()) if c in _COUNTS else float(stats_frame[c].mean()))
        for c in SPARSITY_COLUMNS
    }
    stats_frame = pd.concat([stats_frame, pd.DataFrame([macro])], ignore_index=True)
    for column in SPARSITY_COLUMNS:
        stats_frame[column] = stats_frame[column].astype(
            "int64" if column in _COUNTS else "float64"
        )
    return pd.concat([frame, stats_frame], axis=1)


def load_gold(
    languages: Sequence[str] = (),
    split: str = "dev",
    gold_files: Sequence[str | os.PathLike[str]] = (),
    data_dir: str | os.PathLike[str] | None = None,
    fmt: Format = "auto",
    model_languages: Sequence[str] = (),
) -> list[Example]:
    """The gold inputs of an evaluation: files, or a shared-task split per language.

    Args:
        languages: language names or aliases; with ``gold_files``, one per file (default: from
            the file names, ``german-dev`` and ``german-test`` -> german), else the languages
            whose ``split`` is read.
        split: a split of :func:`inflect.corpora.splits.load_split` with gold forms (``"dev"``,
            ``"train-high"``, ...), read for each of ``languages`` when no gold file is given.
        gold_files: gold files (``lemma<TAB>form<TAB>tags``).
        data_dir: the data folder for ``split`` (default: :func:`inflect.corpora.manifests.data_dir`).
        fmt: the layout of ``gold_files``: ``"auto"`` (:func:`inflect.text.layouts.detect_format`),
            ``"2018"``, ``"2023"`` or ``"covered"``.
        model_languages: the languages of the model evaluated
            (:func:`inflect.inference.user_models.checkpoint_languages`): a gold file whose name
            gives none of them is of the model's language where it has one (``amh.tst`` for a
            model of Amharic).

    Raises:
        ValueError: neither files nor languages, mismatched counts, or the split
            ``covered-test`` (it has no gold forms: the message says what to pass instead);
            UnknownLanguageError.
        FileNotFoundError: a missing split file; DataFormatError: a malformed line.
    """
    from inflect.corpora.splits import load_split
    from inflect.text.languages import resolve

    if gold_files:
        if languages and len(languages) != len(gold_files):
            raise ValueError(
                f"{len(languages)} language(s) for {len(gold_files)} gold file(s); give one "
                "--lang per --gold, or none to take the language from the file names"
            )
        names = (
            [resolve(n).name for n in languages]
            if languages
            else [_gold_language(p, model_languages) for p in gold_files]
        )
        gold: list[Example] = []
        for path, name in zip(gold_files, names, strict=True):
            gold.extend(read_examples(path, name, fmt))
        return gold
    if split == "covered-test":
        raise ValueError(
            "the covered-test split has no gold forms to score against; evaluate on --split dev, "
            "or give the shared task's gold test files with --gold LANGUAGE-test"
        )
    if not languages:
        raise ValueError("give the language(s) (--lang) or gold files (--gold)")
    gold = []
    for name in languages:
        gold.extend(load_split(resolve(name).name, split, data_dir))
    return gold


def _gold_language(path: str | os.PathLike[str], model_languages: Sequence[str]) -> str:
    """The language of a gold file: its name's (``german-dev``), else the model's where it has
    one language (``amh.tst`` for a model of Amharic, ``de50-dev`` for a German model).

    Raises:
        ValueError: the name gives no language and the model has none or several.
    """
    try:
        return language_of_file(path)
    except ValueError:
        if len(model_languages) != 1:
            raise
        return model_languages[0]


def evaluate_checkpoints(
    models: Sequence[str | os.PathLike[str]],
    languages: Sequence[str] = (),
    split: str = "dev",
    gold_files: Sequence[str | os.PathLike[str]] = (),
    *,
    data_dir: str | os.PathLike[str] | None = None,
    beam_size: int = defaults.BEAM_SIZE,
    device: str = "cpu",
    fmt: Format = "auto",
    lexicons: Any = None,
    tag_format: str = "auto",
    siblings_split: str | None = None,
) -> Evaluation:
    """Evaluate checkpoints (one model, or the members of an ensemble) on gold inputs.

    Args:
        models: checkpoints or folders of members (see
            :func:`inflect.nn.checkpoint.checkpoint_members`); several form an
            :class:`inflect.decoding.Ensemble`.
        languages, split, gold_files, data_dir, fmt: the gold inputs (see :func:`load_gold`; read
            first, so that a wrong split fails before any model is loaded).
        beam_size: beam size k (the predictor widens it where the support is not certified).
        device: torch device of the models (``"auto"``: CUDA when available).
        lexicons: lexicons the predictor consults (see :class:`inflect.inference.predictor.Predictor`);
            None: the model alone is scored.
        tag_format: the dialect of the gold tags (``"auto"``, ``"unimorph"``, ``"unimorph4"``,
            ``"ud"``): foreign tags are read as the language's 2018 bundle
            (:mod:`inflect.text.dialects`), and scored as written.
        siblings_split: a shared-task split with gold forms (``"train-high"``, ...) whose pairs
            re-rank the model's forms by the lemma's other forms
            (:mod:`inflect.inference.siblings`), per gold language; None: the model's order.

    Returns:
        As :func:`evaluate_predictor`.

    Raises:
        FileNotFoundError, CheckpointError, ValueError: as the functions called;
            ValueError also for ``siblings_split`` equal to ``split`` (the gold pairs would rank
            their own answers).
    """
    from inflect.inference.predictor import Predictor
    from inflect.inference.user_models import checkpoint_languages

    known = checkpoint_languages(models)  # the model's languages, by name, however new
    gold = load_gold(languages, split, gold_files, data_dir, fmt, known)
    siblings = sibling_evidence(gold, siblings_split, split, data_dir) if siblings_split else None
    predictor = Predictor.from_checkpoints(
        models, device=device, beam_size=beam_size, lexicons=lexicons, tag_format=tag_format,
        siblings=siblings,
    )
    return evaluate_predictor(predictor, gold)


def sibling_evidence(
    gold: Sequence[Example], siblings_split: str, split: str,
    data_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Per language of ``gold``, the :class:`~inflect.inference.siblings.SiblingEvidence` of its
    split ``siblings_split`` (shared-task files: lemmas in the model's normalisation).

    Raises:
        ValueError: ``siblings_split`` is ``split`` (the gold pairs would rank their own
            answers); FileNotFoundError, DataFormatError: as
            :func:`inflect.corpora.splits.load_split`.
    """
    from inflect.corpora.splits import load_split
    from inflect.inference.siblings import SiblingEvidence

    if siblings_split == split:
        raise ValueError(f"the siblings' split is the gold split ({split}): its pairs are the "
                         "answers; re-rank by a training split (train-high, train-medium, "
                         "train-low)")
    evidence = {}
    for language in dict.fromkeys(e.language for e in gold):
        pairs = load_split(language, siblings_split, data_dir)
        evidence[language] = SiblingEvidence.from_pairs((e.lemma, e.form, e.tags) for e in pairs)
    return evidence


def write_results(
    frame: pd.DataFrame, prefix: str | os.PathLike[str], svg: str | None = None
) -> list[Path]:
    """Write ``PREFIX.parquet``, ``PREFIX.csv`` and, given ``svg``, ``PREFIX.svg``: all or none,
    each atomically (:func:`inflect.io.outputs.write_outputs`, :func:`inflect.io.atomic.atomic_write`).

    Returns:
        The paths written.

    Raises:
        OutputError: naming the file that could not be written (the files of this call that
            did not exist before are removed again).
    """
    from inflect.io.outputs import write_outputs

    prefix = str(prefix)
    writes: list[tuple[str, Any]] = [
        (prefix + ".parquet", lambda temp: frame.to_parquet(temp, index=False)),
        (prefix + ".csv", lambda temp: frame.to_csv(temp, index=False)),
    ]
    if svg is not None:
        writes.append((prefix + ".svg", lambda temp: temp.write_text(svg, encoding="utf-8")))
    return [Path(p) for p in write_outputs(writes)]
