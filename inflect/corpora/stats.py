"""Descriptive statistics of inflection data (what ``inflect data stats`` shows).

Computation only; rendering is in :mod:`inflect.render.tables` and
:mod:`inflect.render.tsv`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from inflect.defaults import SETTINGS
from inflect.text.languages import UnknownLanguageError, resolve
from inflect.text.reading import language_from_filename, parse_file
from inflect.text.records import Example, ReadStats


@dataclass(frozen=True)
class SplitStats:
    """Statistics of one file (one language and split).

    Attributes:
        language: the language.
        split: ``train-high``, ``dev``, ...
        pairs: examples (lemma, tag bundle[, form]).
        lemmas: distinct lemmas.
        characters: distinct Unicode code points over lemmas and forms.
        symbols: distinct model-side symbols over lemmas and forms (``to_symbols`` of the
            language spec), or None when no such function was given.
        features: distinct UniMorph features.
        bundles: distinct tag bundles (as sets of features).
        with_spaces: examples whose lemma or form contains a space (U+0020).
        longest_lemma: the longest lemma in code points (first one on ties).
        longest_form: the longest form in code points, None when there are no forms.
        multi_order_bundles: bundles (sets) written in more than one feature order.
        duplicate_feature_bundles: examples whose bundle repeated a feature.
        padded_feature_bundles: examples whose bundle had whitespace around a feature.
        blank_lines: blank lines skipped by the reader.
    """

    language: str
    split: str
    pairs: int
    lemmas: int
    characters: int
    symbols: int | None
    features: int
    bundles: int
    with_spaces: int
    longest_lemma: str
    longest_form: str | None
    multi_order_bundles: int
    duplicate_feature_bundles: int
    padded_feature_bundles: int
    blank_lines: int

    @property
    def space_share(self) -> float:
        """Share of examples with a space in the lemma or form, in [0, 1] (0 when empty)."""
        return self.with_spaces / self.pairs if self.pairs else 0.0


def compute_stats(
    examples: Sequence[Example],
    *,
    language: str = "",
    split: str = "",
    read_stats: ReadStats | None = None,
    to_symbols: Callable[[str], Sequence[str]] | None = None,
) -> SplitStats:
    """Statistics of a list of examples.

    Args:
        examples: the examples.
        language: reported as is.
        split: reported as is.
        read_stats: the reader's statistics (blank lines, repeated and padded features); when
            None these are counted from the examples' bundles and blank lines are 0.
        to_symbols: the language's model-side segmentation (``LanguageSpec.to_symbols``).
    """
    lemmas: set[str] = set()
    characters: set[str] = set()
    symbols: set[str] = set()
    orders: dict[frozenset[str], set[tuple[str, ...]]] = {}
    with_spaces = 0
    longest_lemma = ""
    longest_form: str | None = None
    duplicates = padded = 0
    seen_text: set[str] = set()
    for example in examples:
        lemma, form = example.lemma, example.form
        if lemma not in lemmas:
            lemmas.add(lemma)
            characters.update(lemma)
            if to_symbols is not None:
                symbols.update(to_symbols(lemma))
        if len(lemma) > len(longest_lemma):
            longest_lemma = lemma
        has_space = " " in lemma
        if form is not None:
            characters.update(form)
            if to_symbols is not None:
                symbols.update(to_symbols(form))
            if longest_form is None or len(form) > len(longest_form):
                longest_form = form
            has_space = has_space or " " in form
        with_spaces += has_space
        bundle = example.tags
        duplicates += bundle.had_duplicates
        padded += bundle.had_padding
        if bundle.text not in seen_text:
            seen_text.add(bundle.text)
            orders.setdefault(bundle.features, set()).add(bundle.order)
    features = set().union(*orders) if orders else set()
    return SplitStats(
        language=language,
        split=split,
        pairs=len(examples),
        lemmas=len(lemmas),
        characters=len(characters),
        symbols=len(symbols) if to_symbols is not None else None,
        features=len(features),
        bundles=len(orders),
        with_spaces=with_spaces,
        longest_lemma=longest_lemma,
        longest_form=longest_form,
        multi_order_bundles=sum(len(o) > 1 for o in orders.values()),
        duplicate_feature_bundles=read_stats.duplicate_feature_bundles
        if read_stats
        else duplicates,
        padded_feature_bundles=read_stats.padded_feature_bundles if read_stats else padded,
        blank_lines=read_stats.blank_lines if read_stats else 0,
    )


def file_stats(
    path: str | os.PathLike[str],
    *,
    language: str | None = None,
    split: str = "",
    to_symbols: Callable[[str], Sequence[str]] | None = None,
) -> SplitStats:
    """Read a file and compute its statistics (see :func:`compute_stats`).

    Raises:
        DataFormatError: a malformed line.
    """
    parsed = parse_file(path, language)
    return compute_stats(
        parsed.examples,
        language=language or language_from_filename(path),
        split=split,
        read_stats=parsed.stats,
        to_symbols=to_symbols,
    )


def language_stats(
    language: str,
    settings: Iterable[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
) -> list[SplitStats]:
    """Statistics of a language's CoNLL–SIGMORPHON 2018 files: the training file of each setting
    asked for (all that exist when None), then dev and covered-test.

    Symbols are the language spec's model-side symbols when :mod:`inflect.text.languages` knows the
    language.

    Raises:
        ValueError: an unknown setting.
        FileNotFoundError: a requested setting (or dev / covered-test) is absent; the message
            says how to get the data.
        DataFormatError: a malformed line.
    """
    from inflect.corpora.manifests import locate

    wanted = list(settings) if settings is not None else None
    for setting in wanted or ():
        if setting not in SETTINGS:
            raise ValueError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
    paths = []
    for setting in wanted if wanted is not None else SETTINGS:
        try:
            paths.append((f"train-{setting}", locate(language, f"train-{setting}", data_dir)))
        except FileNotFoundError:
            if wanted is not None:
                raise
    paths += [(split, locate(language, split, data_dir)) for split in ("dev", "covered-test")]
    name = language_from_filename(paths[0][1])
    to_symbols = _symbols_of(name)
    return [
        file_stats(path, language=name, split=split, to_symbols=to_symbols) for split, path in paths
    ]


def _symbols_of(language: str) -> Callable[[str], Sequence[str]] | None:
    """The language spec's ``to_symbols``, or None for a language without a spec (a file
    named after a language that :mod:`inflect.text.languages` does not know)."""
    try:
        return resolve(language).to_symbols
    except UnknownLanguageError:
        return None
