"""The models a service answers with, loaded on first use and kept.

A language is answered by its shipped default model (:func:`inflect.inference.registry.default_model`,
as ``inflect predict --lang`` chooses it); a multilingual model loaded for one language serves
the others it knows. At most ``max_models`` models stay loaded: loading one more gives up the
least recently used (requests already holding it finish with it). Each model gives one
:class:`~inflect.inference.predictor.Predictor` per choice of search options and lexicons
(:class:`SearchOptions`), sharing the loaded weights; requests with the same choice share one
predictor, and so one batch.

Lexicons: the service offers the layers ``inflect predict`` consults
(:func:`inflect.lexicon.load_lexicons`): the user's files given at its start (``inflect serve
--lexicon FILE``), each by its file name, then the field dictionaries installed (by their
library's name), ``unimorph`` and ``shipped`` (the shared-task data), consulted in that order by
default; a request may name the ones to consult, or none. A request never names a path: the
service reads no file a client chooses.

Threads: :meth:`ModelPool.load` runs on a loader thread (the weights read and dequantized); every
other method runs on the event loop's thread, so the pool's tables need no lock.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inflect import defaults
from inflect.inference.paradigm import Paradigms
from inflect.inference.predictor import Predictor
from inflect.inference.registry import ShippedModel, default_model, list_models
from inflect.inference.siblings import siblings_choice
from inflect.inference.user_models import (
    cell_tables,
    checkpoint_languages,
    checkpoint_metadata,
    user_model,
)
from inflect.lexicon import FileLexicon, Lexicon, Lexicons, load_lexicons

__all__ = ["SHIPPED_LEXICON", "ModelPool", "SearchOptions", "UnknownLexiconError"]

#: The name a request gives the shipped lexicon (the shared-task data), as ``inflect evaluate
#: --lexicon`` does.
SHIPPED_LEXICON = "shipped"
#: Names of layers other than the user's files (the rest go by their own ``name``).
_KEYS = {"shared-task data": SHIPPED_LEXICON, "UniMorph": "unimorph"}


class UnknownLexiconError(LookupError):
    """A request names a lexicon the service does not offer; the message lists those it does."""


@dataclass(frozen=True)
class SearchOptions:
    """A request's choice of search options and lexicons (``inflect predict``'s options).

    Attributes:
        beam: beam size k (1 to :data:`inflect.defaults.MAX_BEAM_SIZE`).
        support: ``"auto"``, ``"always"`` or ``"never"`` (see
            :data:`inflect.inference.searcher.SupportMode`).
        max_forms: forms listed per input at most.
        lexicons: names of the lexicons to consult, in order (:attr:`ModelPool.lexicon_names`);
            None: every one the service offers, its files then the shipped one; ``()``: the model
            alone (``--no-lexicon``).
        tag_format: the dialect of the inputs' tags, one of
            :data:`inflect.text.dialects.TAG_FORMATS` (``--tag-format``; ``"auto"``: each
            bundle's, detected), as :class:`~inflect.inference.predictor.Predictor` reads it.
        siblings: ``"auto"``, ``"on"`` or ``"off"``: re-rank the model's forms by the lemma's
            other forms in the lexicons that list their pairs (``inflect predict --siblings``).
    """

    beam: int = defaults.BEAM_SIZE
    support: str = "auto"
    max_forms: int = defaults.MAX_FORMS
    lexicons: tuple[str, ...] | None = None
    tag_format: str = "auto"
    siblings: str = "auto"


class ModelPool:
    """The shipped models of a service, loaded on first use, at most ``max_models`` at once.

    Args:
        max_models: models kept loaded at once (≥ 1).
        device: where the models run (``"cpu"``, ``"cuda"``, ...).
        models_dir: a folder replacing the shipped models (as ``--models-dir``), or None.
        lexicon_files: the user's lexicon files offered (each by its file name), consulted first.
        lexicons: offer lexicons at all (False: ``inflect serve --no-lexicon``, the model
            alone).
        lexicon_language: the language of lexicon files whose name gives none.
        user_models: the user's models, ``(language, path)`` each (``inflect serve --model
            NAME=PATH``): served beside the shipped ones, and instead of them for their
            languages.

    Raises:
        ValueError: ``max_models`` below 1, or two lexicon files of the same name.
        DataFormatError, LexiconError, OSError: a lexicon file that cannot be read.
        FileNotFoundError, CheckpointError: a user's model that cannot be read.
    """

    def __init__(
        self,
        *,
        max_models: int = defaults.SERVE_MAX_MODELS,
        device: str = "cpu",
        models_dir: str | os.PathLike[str] | None = None,
        lexicon_files: Sequence[str | os.PathLike[str]] = (),
        lexicons: bool = True,
        lexicon_language: str | None = None,
        user_models: Sequence[tuple[str, str]] = (),
    ) -> None:
        if isinstance(max_models, bool) or not isinstance(max_models, int) or max_models < 1:
            raise ValueError(f"max_models must be a positive integer, got {max_models!r}")
        self.max_models, self.device, self.models_dir = max_models, device, models_dir
        layers: dict[str, Lexicon] = {}
        if lexicons:
            rest = load_lexicons((), language=lexicon_language).layers
            names = [_KEYS.get(layer.name, layer.name) for layer in rest]
            for path in lexicon_files:
                name = Path(path).name
                if name in layers or name in names:
                    raise ValueError(f"{path}: two lexicons named {name!r}; rename the file")
                layers[name] = FileLexicon([path], language=lexicon_language)
            layers.update(zip(names, rest, strict=True))
        self._lexicons = layers
        self._user: dict[str, ShippedModel] = {}
        for language, path in user_models:
            checkpoint_languages([path])  # its languages known by name, however new
            self._user[language] = user_model(language, path)
        #: the paradigm cells the user's models carry (their training data's)
        self.cell_tables = cell_tables(
            pair for entry in {m.name: m for m in self._user.values()}.values()
            for pair in checkpoint_metadata(entry.members))
        self._entries: dict[str, ShippedModel] = dict(self._user)
        self._loaded: OrderedDict[str, Predictor] = OrderedDict()
        self._made: dict[tuple[Any, ...], Any] = {}

    # ------------------------------------------------------------------ catalogue
    @property
    def lexicon_names(self) -> tuple[str, ...]:
        """The lexicons offered, in the order they are consulted by default."""
        return tuple(self._lexicons)

    def catalogue(self) -> list[ShippedModel]:
        """Each language's model: the user's where one was given, else the default shipped one
        (:func:`~inflect.inference.registry.list_models`), sorted by language.

        Raises:
            RegistryError: a broken models folder.
        """
        shipped = [m for m in list_models(self.models_dir) if m.language not in self._user]
        return sorted([*shipped, *self._user.values()], key=lambda m: m.language)

    def entry(self, language: str) -> ShippedModel:
        """The model that answers ``language`` (any name or code): the user's model of it, else
        its shipped one, kept once asked.

        Raises:
            UnknownLanguageError: no language has this name (the closest are listed).
            NoDefaultModelError: nothing shipped for it.
            RegistryError: a broken models folder or a missing member file.
        """
        from inflect.text.languages import resolve

        name = resolve(language).name
        found = self._entries.get(name)
        if found is None:
            found = self._entries[name] = default_model(name, self.models_dir)
        return found

    @property
    def loaded(self) -> tuple[str, ...]:
        """The names of the models loaded now, the least recently used first."""
        return tuple(self._loaded)

    # ------------------------------------------------------------------ loading
    def load(self, entry: ShippedModel) -> Predictor:
        """Load ``entry``'s weights: its predictor with the default options and lexicons, the
        one ``inflect predict --lang`` makes (:meth:`Predictor.from_default`). Thread-safe (it
        touches nothing of the pool); :meth:`keep` records it.

        Raises:
            CheckpointError, FileNotFoundError: a broken installation.
        """
        predictor = Predictor.from_checkpoints(
            entry.members, device=self.device, lexicons=self._layers(None)
        )
        predictor.model_name = entry.name
        return predictor

    def get(self, entry: ShippedModel) -> Predictor | None:
        """The loaded predictor of ``entry`` (now the most recently used), or None."""
        found = self._loaded.get(entry.name)
        if found is not None:
            self._loaded.move_to_end(entry.name)
        return found

    def keep(self, entry: ShippedModel, predictor: Predictor) -> None:
        """Record a loaded model; beyond :attr:`max_models`, give up the least recently used
        (and the predictors made of it)."""
        self._loaded[entry.name] = predictor
        self._loaded.move_to_end(entry.name)
        while len(self._loaded) > self.max_models:
            gone, _ = self._loaded.popitem(last=False)
            self._made = {k: v for k, v in self._made.items() if k[0] != gone}

    # ------------------------------------------------------------------ predictors
    def _layers(self, names: tuple[str, ...] | None) -> Lexicons:
        if names is None:
            return Lexicons(self._lexicons.values())
        unknown = [n for n in names if n not in self._lexicons]
        if unknown:
            offered = ", ".join(self._lexicons) or "none (the service runs with --no-lexicon)"
            raise UnknownLexiconError(f"no lexicon named {unknown[0]!r}; this service offers: {offered}")
        return Lexicons(self._lexicons[n] for n in dict.fromkeys(names))

    def check(self, options: SearchOptions) -> None:
        """Refuse a choice of lexicons the service does not offer.

        Raises:
            UnknownLexiconError: the first name not offered (those offered listed).
        """
        if options.lexicons:
            self._layers(options.lexicons)

    def predictor(self, base: Predictor, options: SearchOptions) -> Predictor:
        """The predictor of a loaded model (``base``, from :meth:`load`) for ``options``; one
        per model and choice, kept while the model is.

        Raises:
            UnknownLexiconError: as :meth:`check`.
            ValueError: a bad search option (as :class:`~inflect.inference.searcher.Searcher`)
                or tag format (as :class:`~inflect.inference.predictor.Predictor`).
        """
        if options == SearchOptions():
            return base
        key = (base.model_name, "predict", options)
        made = self._made.get(key)
        if made is None:
            made = self._searcher(base, options)
            self._keep(key, made)
        return made

    def _keep(self, key: tuple[Any, ...], made: Any) -> None:
        """Cache what was made for a model only while the model is loaded (a request for more
        languages than :attr:`max_models` may have given up one it loaded: its predictor then
        serves that request and is not kept)."""
        if key[0] in self._loaded:
            self._made[key] = made

    def _searcher(self, base: Predictor, options: SearchOptions, **extra: Any) -> Predictor:
        """A new predictor of ``base``'s loaded model with ``options`` (and ``extra`` keyword
        arguments of :class:`~inflect.inference.predictor.Predictor`), named as ``base``."""
        made = Predictor(
            base.loaded,
            lexicons=self._layers(options.lexicons),
            beam_size=options.beam,
            support=options.support,  # type: ignore[arg-type]
            max_forms=options.max_forms,
            tag_format=options.tag_format,
            siblings=siblings_choice(options.siblings, options.lexicons == ()),
            **extra,
        )
        made.model_name = base.model_name
        return made

    def paradigms(self, base: Predictor, options: SearchOptions) -> Paradigms:
        """The :class:`~inflect.inference.paradigm.Paradigms` of a loaded model for ``options``,
        as ``inflect paradigm`` makes them: the lexicons of :meth:`predictor`, a chunk as large
        as :data:`inflect.defaults.PARADIGM_CHUNK_SIZE` (a paradigm is one batch).

        Raises:
            As :meth:`predictor`.
        """
        key = (base.model_name, "paradigm", options)
        made = self._made.get(key)
        if made is None:
            predictor = self._searcher(base, options, chunk_size=defaults.PARADIGM_CHUNK_SIZE)
            made = Paradigms(predictor)
            self._keep(key, made)
        return made
