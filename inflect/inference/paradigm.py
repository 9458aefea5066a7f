"""Whole paradigms: every cell of a lemma at once, each with its forms and certificate.

The cells of a language and part of speech are the tag bundles its training data attest
(:mod:`inflect.corpora.cells`, shipped with the package: no data folder is needed), of the training
setting of the model that answers (``training.data.setting`` of its checkpoint; where the
language has no data of that setting, the largest setting that has it). They are laid out as a
reader expects (:func:`inflect.inference.paradigm_cells.layout`): the dimensions of the UniMorph
schema that vary across the cells (:mod:`inflect.text.unimorph`) give the columns (number), the rows
(case, else person) and the blocks (every other varying dimension: mood, tense, aspect, ... for
verbs), each ordered by the dimension's values (``SG`` before ``PL``; ``NOM``, ``GEN``, ...).

Every cell is one query of the :class:`~inflect.inference.predictor.Predictor`, through its public
:meth:`~inflect.inference.searcher.Searcher.stream`: a paradigm's cells go in one call, searched
together as one batch (the predictor's chunk is made at least as large as the paradigm, so the
encoder runs once per cell and the beams of every cell advance together). Whatever the predictor
puts in its records reaches the cell: a form that carries a ``source`` (an attested form of a
lexicon, :mod:`inflect.lexicon`: ``"shared-task data"`` or ``FILE:LINE``) keeps it in :attr:`CellForm.source`.

Python::

    from inflect.inference.paradigm import Paradigms
    paradigms = Paradigms.from_default("finnish")
    talo = paradigms.paradigm("talo", pos="N")      # a Paradigm: 28 cells, case x number
    talo.cell("N;IN+ESS;SG").best.form               # 'talossa'
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inflect import defaults
from inflect.decoding.protocol import Certificate
from inflect.inference.outcomes import Form, Prediction
from inflect.inference.paradigm_cells import CellCatalogue, ParadigmError, features_key, layout
from inflect.inference.predictor import Predictor
from inflect.inference.queries import InputError, clean_edges, make_query
from inflect.inference.user_models import cell_tables
from inflect.text.encodings import decode_line, refuse_wide
from inflect.text.layouts import HEADER_NAMES
from inflect.text.records import TagBundle, control_problem
from inflect.text.unimorph import ordered_features

__all__ = [
    "Block",
    "Cell",
    "CellForm",
    "Paradigm",
    "ParadigmPlan",
    "ParadigmRequest",
    "Paradigms",
    "read_requests",
]

#: One form of a cell: the predictor's :class:`~inflect.inference.outcomes.Form` (form, probability,
#: and the source where it is attested), as the record gives it.
CellForm = Form


@dataclass(frozen=True)
class Cell:
    """One cell of a paradigm: a tag bundle, where it sits, and what the model answers.

    Attributes:
        tags: the tag bundle as the training data write it (``"N;IN+ESS;SG"``).
        features: its UniMorph features in dimension order
            (:func:`inflect.text.unimorph.ordered_features`).
        block: the features of the cell's block (e.g. ``("IND", "PRS")``; ``()``: the only block).
        row: the row's features, joined by ``;`` (``"IN+ESS"``; ``""``: no row dimension).
        column: the column's features (``"SG"``; ``""``: no column dimension).
        forms: the forms of nonzero probability found, most probable first.
        certificate: the :class:`~inflect.decoding.Certificate` of the search (full support:
            the forms are every form of nonzero probability).
        more_than: N when more than N forms have nonzero probability and N are listed, else None.
        warnings: e.g. symbols of the lemma unseen in training.
        prediction: the :class:`~inflect.inference.outcomes.Prediction` the predictor returned, as
            it came.
    """

    tags: str
    features: tuple[str, ...]
    block: tuple[str, ...]
    row: str
    column: str
    forms: tuple[CellForm, ...]
    certificate: Certificate
    more_than: int | None = None
    warnings: tuple[str, ...] = ()
    prediction: Prediction | None = field(default=None, repr=False, compare=False)

    @property
    def best(self) -> CellForm | None:
        """The most probable form, or None when no form finished."""
        return self.forms[0] if self.forms else None

    @property
    def complete(self) -> bool:
        """True when the certificate says the forms are the whole support."""
        return self.certificate is Certificate.FULL_SUPPORT

    @property
    def attested(self) -> tuple[CellForm, ...]:
        """The attested forms (a lexicon's: the cell's answer), in the lexicons' order."""
        return tuple(f for f in self.forms if f.attested)

    @property
    def conflict(self) -> bool:
        """True when the sources of the cell's attested forms disagree
        (:attr:`inflect.inference.outcomes.Prediction.conflict`)."""
        return bool(getattr(self.prediction, "conflict", False))

    @property
    def uncertain(self) -> bool:
        """True when no form is attested and the model's answer is in doubt: no form finished,
        the search is not certified (no certificate), or the most probable form has less than
        :data:`inflect.defaults.PARADIGM_SURE` of the probability. (An attested form is the
        answer however little the model gives it.)"""
        best = self.best
        return not self.attested and (
            best is None
            or self.certificate is Certificate.NONE
            or best.probability < defaults.PARADIGM_SURE
        )


@dataclass(frozen=True)
class Block:
    """One block of a paradigm: a grid (rows x columns) or a list (one column).

    Attributes:
        label: the block's features (``("IND", "PST", "PFV")``; ``()`` for a paradigm of one
            block).
        rows: the row labels in order (``("NOM", "GEN", ...)``; ``("",)`` when no row dimension).
        columns: the column labels in order (``("SG", "PL")``; ``("",)``: none).
        cells: ``(row, column)`` -> the index of the cell in :attr:`Paradigm.cells`; a pair the
            data do not attest is absent (Finnish has no ``N;COM;SG``).
    """

    label: tuple[str, ...]
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    cells: Mapping[tuple[str, str], int]

    @property
    def is_grid(self) -> bool:
        """True when the block has rows and columns both."""
        return self.rows != ("",) and self.columns != ("",)


@dataclass(frozen=True)
class Paradigm:
    """The paradigm of one lemma: its cells in reading order and their layout.

    Attributes:
        lemma: the lemma as given.
        language: shared-task name of the language.
        part_of_speech: the part of speech asked for (``"N"``; ``"V"`` includes ``V.PTCP``, ...).
        cells: the cells, in reading order (block by block, row by row, column by column).
        blocks: the :class:`Block` s, in order.
        row_dimension, column_dimension, block_dimensions: as :class:`Layout`.
        cells_from: where the cells come from (``"conll2018-task1 train-high"``).
        warnings: about the whole paradigm (cells left out, ...).
        source: the ``--input`` file, or None; line: its line there, or None.
    """

    lemma: str
    language: str
    part_of_speech: str
    cells: tuple[Cell, ...]
    blocks: tuple[Block, ...]
    row_dimension: str | None
    column_dimension: str | None
    block_dimensions: tuple[str, ...]
    cells_from: str
    warnings: tuple[str, ...] = ()
    source: str | None = None
    line: int | None = None

    @property
    def where(self) -> str | None:
        """``FILE:LINE`` of the request, or None."""
        return None if self.source is None else f"{self.source}:{self.line}"

    def cell(self, tags: str | TagBundle) -> Cell:
        """The cell of a tag bundle (order-free: ``"N;SG;IN+ESS"`` finds ``N;IN+ESS;SG``; a
        multiset: ``V;PRF;PRF`` is not ``V;PRF``). A bundle the language's training data do not
        attest (Finnish ``N;COM;SG``) is an empty cell, as the grid shows it: no forms, no
        certificate (:attr:`Certificate.NONE`), placed by its features, with a note.

        Raises:
            ValueError: ``tags`` is not a tag bundle (:meth:`TagBundle.parse`).
        """
        bundle = tags if isinstance(tags, TagBundle) else TagBundle.parse(tags)
        wanted = bundle.multiset
        for c in self.cells:
            if tuple(sorted(c.features)) == wanted:
                return c
        from inflect.text.unimorph import by_dimension

        grouped = by_dimension(wanted)
        return Cell(
            tags=bundle.text,
            features=ordered_features(wanted),
            block=tuple(f for d in self.block_dimensions for f in grouped.get(d, ())),
            row=";".join(grouped.get(self.row_dimension, ())) if self.row_dimension else "",
            column=";".join(grouped.get(self.column_dimension, ()))
            if self.column_dimension else "",
            forms=(),
            certificate=Certificate.NONE,
            warnings=(f"{bundle.text}: an empty cell: {self.cells_from} does not attest it "
                      f"for {self.language} {self.part_of_speech}, so no form was asked",),
        )

    @property
    def uncertain(self) -> tuple[Cell, ...]:
        """The cells marked uncertain (:attr:`Cell.uncertain`)."""
        return tuple(c for c in self.cells if c.uncertain)

    @property
    def attested(self) -> tuple[Cell, ...]:
        """The cells a lexicon attests a form of (:attr:`Cell.attested`); the others' forms are
        the model's guesses."""
        return tuple(c for c in self.cells if c.attested)


@dataclass(frozen=True)
class ParadigmRequest:
    """One paradigm asked for: a lemma, and optionally its part of speech and language.

    Attributes:
        lemma: the lemma as typed.
        pos: the part of speech (``"N"``, ``"V"``, ...), or None (the language's only one).
        language: any name or code, or None (the default of :meth:`Paradigms.stream`).
        source, line: where it was read (``--input``), or None.
    """

    lemma: str
    pos: str | None = None
    language: str | None = None
    source: str | None = None
    line: int | None = None


def read_requests(
    path: str | os.PathLike[str],
    on_blank: Callable[[str, int], None] | None = None,
    on_header: Callable[[str, int, str], None] | None = None,
) -> Iterator[ParadigmRequest]:
    """Read paradigm requests lazily: one a line, ``lemma`` or ``lemma<TAB>pos`` (UTF-8; ``"-"``:
    standard input). Blank lines are skipped (``on_blank(source, line)`` is told), and so is a
    first line ``lemma<TAB>pos`` that names the columns (``on_header(source, 1, line)``; a
    first line ``lemma`` alone is the word).

    Yields:
        One :class:`ParadigmRequest` per line, with ``source`` and ``line``.

    Raises:
        ParadigmError: a line with more than two fields, an empty lemma or part of speech, bytes
            that are not UTF-8 or a control character (naming the file and the line).
        OSError: the file cannot be read.
    """
    from inflect.io.stdio import open_input

    with open_input(path) as (source, handle):
        for number, raw in enumerate(handle, start=1):
            text, why = decode_line(raw, number)  # the first line's byte order mark removed
            if text is None:
                raise ParadigmError(why or "", None, source, None if number == 1 and
                                    refuse_wide(raw) else number)
            text = text.removesuffix("\n").removesuffix("\r")
            if not text.strip():
                if on_blank is not None:
                    on_blank(source, number)
                continue
            fields = text.split("\t")
            if number == 1 and _is_header(fields):
                if on_header is not None:
                    on_header(source, number, text)
                continue
            if len(fields) > 2:
                raise ParadigmError(
                    f"{len(fields)} tab-separated fields; a line is lemma or lemma<TAB>pos",
                    text,
                    source,
                    number,
                )
            for what, value in zip(("lemma", "part of speech"), fields, strict=False):
                problem = control_problem(value, what)
                if problem is not None:
                    raise ParadigmError(problem, value, source, number)
                if not value.strip():
                    raise ParadigmError(f"empty {what}", text, source, number)
            pos = fields[1].strip() if len(fields) == 2 else None
            yield ParadigmRequest(fields[0], pos, None, source, number)


def _is_header(fields: list[str]) -> bool:
    """A line ``lemma<TAB>pos`` (any case; ``part of speech``, ``upos``) that names the columns
    of a file of paradigm requests."""
    names = [" ".join(f.strip().lower().replace("_", " ").split()) for f in fields]
    return len(names) == 2 and names[0] in HEADER_NAMES["lemma"] and names[1] in (
        "pos", "part of speech", "upos")


class Paradigms:
    """Paradigms of lemmas with one :class:`~inflect.inference.predictor.Predictor` (a model or an
    ensemble).

    Args:
        predictor: the predictor every cell is asked of (its public :meth:`stream`).
        setting: the training setting whose attested cells are used (``"high"``, ...); None:
            the setting the predictor's model was trained on (from its checkpoint), else the
            largest setting with data for the language.
        cells_dir: folder of the cells files (default: the shipped :mod:`inflect.corpora.cells`).

    A paradigm is one batch where the predictor's ``chunk_size`` is at least its number of
    cells (:meth:`from_default` sees to it; a predictor made elsewhere with a smaller chunk
    searches a large paradigm in several batches, with the same answers).
    """

    def __init__(
        self,
        predictor: Predictor,
        *,
        setting: str | None = None,
        cells_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.predictor = predictor
        self.setting = setting or predictor.training_setting
        #: The cells, chosen for :attr:`setting`; those a checkpoint carries first.
        self.catalogue = CellCatalogue(self.setting, cells_dir, cell_tables(
            (loaded.path, loaded.metadata) for loaded in predictor.loaded))

    @classmethod
    def from_default(
        cls,
        language: str,
        *,
        setting: str | None = None,
        models_dir: str | os.PathLike[str] | None = None,
        device: Any = "cpu",
        **options: Any,
    ) -> Paradigms:
        """The paradigms of ``language`` with its shipped default model
        (:meth:`Predictor.from_default`; ``setting`` chooses the shipped model and the cells).
        ``options`` go to the predictor (``beam_size``, ``max_forms``, ``support``, ...); its
        ``chunk_size`` is at least :data:`inflect.defaults.PARADIGM_CHUNK_SIZE`, so that a
        paradigm is one batch.

        Raises:
            UnknownLanguageError, NoDefaultModelError, RegistryError, CheckpointError: as
                :meth:`Predictor.from_default`.
        """
        options.setdefault("chunk_size", defaults.PARADIGM_CHUNK_SIZE)
        predictor = Predictor.from_default(language, models_dir, device, setting, **options)
        return cls(predictor, setting=setting)

    # ------------------------------------------------------------------ cells
    def parts_of_speech(self, language: str) -> dict[str, int]:
        """:meth:`CellCatalogue.parts_of_speech` of :attr:`catalogue`."""
        return self.catalogue.parts_of_speech(language)

    def cells(self, language: str, pos: str | None = None) -> tuple[TagBundle, ...]:
        """:meth:`CellCatalogue.cells` of :attr:`catalogue`."""
        return self.catalogue.cells(language, pos)

    # ------------------------------------------------------------------ paradigms
    def paradigm(self, lemma: str, language: str | None = None, pos: str | None = None) -> Paradigm:
        """The paradigm of one lemma (see :meth:`stream`).

        Raises:
            As :meth:`stream`.
        """
        return next(self.stream([ParadigmRequest(lemma, pos, language)]))

    def stream(
        self,
        requests: Iterable[ParadigmRequest],
        language: str | None = None,
        pos: str | None = None,
    ) -> Iterator[Paradigm]:
        """The paradigm of each request, in order, each yielded as soon as it is searched (one
        :meth:`~inflect.inference.searcher.Searcher.stream` call, one batch, per paradigm).

        Args:
            requests: the requests (a lazy iterable is read one request at a time).
            language: the language of requests without one (None: the model's only language).
            pos: the part of speech of requests without one (None: the language's only one).

        Raises:
            UnknownLanguageError: no language has the name.
            ParadigmError: a part of speech the language lacks, or none given where it has
                several (the message lists them), a language without shipped cells.
            InputError: an empty lemma, a lemma too long, a language the model does not know
                (with the request's file and line where known).
        """
        for request in requests:
            yield self._one(request, request.language or language, request.pos or pos)

    def plan(self, lemma: str, language: str | None = None, pos: str | None = None) -> ParadigmPlan:
        """The queries of one lemma's paradigm, and how their records make it
        (:meth:`ParadigmPlan.finish`), for a caller that searches them itself (``inflect serve``
        searches them in pieces, in turn with other requests); :meth:`paradigm` is
        ``plan.finish(list(predictor.stream(plan.queries)))``.

        Raises:
            As :meth:`stream`.
        """
        return self._plan(ParadigmRequest(lemma, pos, language), language, pos)

    def _plan(self, request: ParadigmRequest, language: str | None, pos: str | None) -> ParadigmPlan:
        src, line = request.source, request.line
        request = dataclasses.replace(request, lemma=clean_edges(request.lemma))
        try:
            codec = self.predictor.codec(language)
        except InputError as exc:
            raise InputError(exc.what, exc.value, src, line) from None
        name = codec.spec.name
        if not codec.encode(request.lemma) or not "".join(codec.encode(request.lemma)).strip():
            raise InputError(
                "empty lemma: give the word's citation form (e.g. talo)", request.lemma, src, line
            )
        pos = self.catalogue.part_of_speech(name, pos, src, line)
        table = self.catalogue.table(name)
        bundles = list(table.bundles(name, pos))
        reads = self.predictor.reads
        unknown = [b for b in bundles if not all(reads(f) for f in b.features)]
        notes = []
        if unknown:
            missing = sorted({f for b in unknown for f in b.features if not reads(f)})
            notes.append(
                f"{len(unknown)} cell(s) left out: the model does not know the UniMorph "
                f"feature(s) {', '.join(missing)} ({', '.join(b.text for b in unknown[:5])}"
                f"{', ...' if len(unknown) > 5 else ''})"
            )
            bundles = [b for b in bundles if all(reads(f) for f in b.features)]
        placed = layout([b.multiset for b in bundles])
        bundles = [bundles[i] for i in placed.order]
        return ParadigmPlan(
            request=request,
            language=name,
            part_of_speech=pos,
            bundles=tuple(bundles),
            places=tuple(placed.places[i] for i in placed.order),
            queries=tuple(make_query(request.lemma, b, name) for b in bundles),
            placed=placed,
            cells_from=table.described,
            notes=tuple(notes),
        )

    def _one(self, request: ParadigmRequest, language: str | None, pos: str | None) -> Paradigm:
        plan = self._plan(request, language, pos)
        try:
            predictions = list(self.predictor.stream(plan.queries))
        except InputError as exc:
            raise InputError(exc.what, exc.value, request.source, request.line) from None
        return plan.finish(predictions)


@dataclass(frozen=True)
class ParadigmPlan:
    """One paradigm before its search (:meth:`Paradigms.plan`): its cells' queries, in reading
    order, and what :meth:`finish` needs to make the :class:`Paradigm` of their records.

    Attributes:
        request: the request (its lemma with the edges cleaned).
        language, part_of_speech: the language's name and the part of speech chosen.
        bundles, places: each cell's tag bundle and its place ``(block, row, column)``.
        queries: each cell's query (lemma, bundle, language), in the order of ``bundles``.
        placed: the layout (:func:`~inflect.inference.paradigm_cells.layout`).
        cells_from: where the cells come from (``"conll2018-task1 german-train-high"``).
        notes: the paradigm's warnings so far (cells left out).
    """

    request: ParadigmRequest
    language: str
    part_of_speech: str
    bundles: tuple[TagBundle, ...]
    places: tuple[tuple[tuple[str, ...], str, str], ...]
    queries: tuple[Any, ...]
    placed: Any
    cells_from: str
    notes: tuple[str, ...]

    def finish(self, predictions: Sequence[Any]) -> Paradigm:
        """The paradigm of the cells' records (one per query, in order).

        Raises:
            InputError: a record that is an error (the lemma itself: too long, ...; every cell
                would fail alike), with the request's file and line.
        """
        src, line = self.request.source, self.request.line
        failed = next((p for p in predictions if not isinstance(p, Prediction)), None)
        if failed is not None:  # the lemma itself (too long, ...): every cell would fail alike
            raise InputError(failed.message, None, src, line)
        cells = tuple(
            _cell(b, place, p)
            for b, place, p in zip(self.bundles, self.places, predictions, strict=True)
        )
        notes = list(self.notes)
        notes += dict.fromkeys(w for c in cells for w in c.warnings)  # once, not once a cell
        return Paradigm(
            lemma=self.request.lemma,
            language=self.language,
            part_of_speech=self.part_of_speech,
            cells=cells,
            blocks=_blocks(cells),
            row_dimension=self.placed.row_dimension,
            column_dimension=self.placed.column_dimension,
            block_dimensions=self.placed.block_dimensions,
            cells_from=self.cells_from,
            warnings=tuple(notes),
            source=src,
            line=line,
        )


def _cell(bundle: TagBundle, place: tuple[tuple[str, ...], str, str], pred: Prediction) -> Cell:
    """A cell of the predictor's record: each form keeps the ``source`` the record gives it."""
    forms = tuple(Form(f.form, float(f.probability), f.source) for f in pred.forms)
    block, row, column = place
    return Cell(
        tags=bundle.text,
        features=ordered_features(bundle.multiset),
        block=block,
        row=row,
        column=column,
        forms=forms,
        certificate=pred.certificate,
        more_than=pred.more_than,
        warnings=tuple(pred.warnings),
        prediction=pred,
    )


def _blocks(cells: Sequence[Cell]) -> tuple[Block, ...]:
    """The blocks of cells already in reading order (rows and columns in first-seen order,
    which is their sorted order within a block)."""
    blocks: dict[tuple[str, ...], tuple[dict[str, None], dict[str, None], dict]] = {}
    for i, c in enumerate(cells):
        rows, columns, where = blocks.setdefault(c.block, ({}, {}, {}))
        rows.setdefault(c.row, None)
        columns.setdefault(c.column, None)
        where[(c.row, c.column)] = i
    out = []
    for label, (rows, columns, where) in blocks.items():
        # columns: in value order across the whole block (first-seen order may differ by row)
        cols = sorted(columns, key=lambda c: features_key(c.split(";")) if c else ())
        out.append(Block(label, tuple(rows), tuple(cols), where))
    return tuple(out)
