"""Prediction: lemma + UniMorph tag bundle + language -> every form of nonzero probability.

The path of one input (a *query*, :mod:`inflect.inference.queries`: an
:class:`inflect.text.records.Example` whose form is ignored):

1. the language: any name or code (:func:`inflect.text.languages.resolve`), checked against the
   languages the model was trained on; left empty, the model's only language;
2. the lemma: text -> model symbols by the language's codec (:class:`inflect.text.codec.CharCodec`:
   the data's normalisation, then the spec's symbols); a symbol unseen in training becomes the
   unknown symbol, with one warning (kept in the record);
3. the tag bundle: a multiset of UniMorph features, each of which the model must know (or is
   read as the unknown feature, with a note);
4. batching, one encoder pass per chunk, beam search with its certificate widened towards the
   full support, output text: :class:`inflect.inference.searcher.Searcher`, which translation
   (:mod:`inflect.inference.translator`) shares;
5. attested forms (:class:`Predictor` with ``lexicons``, :mod:`inflect.lexicon`): the forms a
   lexicon holds for the input lead the record, marked with their source; the model's forms
   follow.

Several checkpoints form an :class:`inflect.decoding.Ensemble`. With no checkpoint, the
shipped default model of the language is used (:mod:`inflect.inference.registry`). Results are
:class:`inflect.inference.outcomes.Prediction` records, one per input, in input order.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import torch

from inflect import defaults
from inflect.inference.outcomes import Form, Outcome, Prediction
from inflect.inference.queries import InputError, Prepared, make_query
from inflect.inference.searcher import Searcher
from inflect.inference.siblings import SiblingEvidence, re_ranks
from inflect.lexicon import Consultation, Lexicon, Lexicons
from inflect.nn.batching import Vocabularies
from inflect.nn.checkpoint import LoadedModel
from inflect.nn.config import COPY_FEATURE
from inflect.nn.vocab import UnknownSymbolWarning
from inflect.text.codec import CharCodec
from inflect.text.languages import resolve
from inflect.text.layers import feature_symbols, is_layer
from inflect.text.records import Example, TagBundle, quoted

__all__ = ["Predictor", "load_predictor"]


def _with_hint(feature: str, known: Iterable[str]) -> str:
    """``'nom'`` → ``"'nom' (did you mean 'NOM'?)"``: the known feature equal up to case, else the
    closest by :func:`difflib.get_close_matches` (cutoff 0.75); the bare quoted name if none."""
    import difflib

    known = sorted(known)
    match = next((k for k in known if k.casefold() == feature.casefold()), None)
    if match is None:
        close = difflib.get_close_matches(feature, known, n=1, cutoff=0.75)
        match = close[0] if close else None
    name = quoted(feature, 40)
    return f"{name} (did you mean {match!r}?)" if match else name


def _known_features(network: Any) -> set[str]:
    if network.feature_vocab is None:
        return set()
    specials = set(network.feature_vocab.specials)
    return {f for f in network.feature_vocab.symbols if f not in specials and f != COPY_FEATURE}


def _known_languages(loaded: LoadedModel) -> set[str]:
    vocab = loaded.network.language_vocab
    return set(vocab.symbols) if vocab is not None else set(loaded.languages)


class Predictor(Searcher):
    """An inflection model (or an ensemble) ready to predict forms with certificates.

    Attested forms first: with ``lexicons``, each input is looked up (language, lemma in the
    language's data normalisation, tag bundle order-free) before its record is made; the forms
    the first lexicon holding it gives lead the record's ``forms``, marked with their
    :attr:`Form.source`, and the model's whole distribution follows with its certificate (the
    model is searched either way: the lexicon is consulted beside the search, not inside it).

    Args:
        models: one or more :class:`~inflect.nn.checkpoint.LoadedModel` of inflection models.
        lexicons: the lexicons to consult, the one that takes precedence first (e.g.
            ``[FileLexicon(["mine.tsv"]), ShippedLexicon()]``, or one
            :class:`inflect.lexicon.Lexicons`; see :func:`inflect.lexicon.load_lexicons`);
            None or empty: the model alone.
        tag_format: the dialect of the inputs' tags: ``"auto"`` (each bundle's, detected:
            :func:`inflect.text.dialects.detect_dialect`), ``"unimorph"`` (the 2018 data's),
            ``"unimorph4"`` (layered) or ``"ud"`` (``UPOS|Name=Value|...``); foreign tags are
            read as the language's 2018 bundle, the record keeping both (``tags``, ``asked``).
        siblings: per language name, the attested paradigms that re-rank the model's forms
            of an input whose lemma they inflect in other cells
            (:class:`~inflect.inference.siblings.SiblingEvidence`: the order changes, the
            probabilities and the certificate stay the model's); True: those of ``lexicons``
            that list their pairs (the shipped lexicon of the shared-task data), read per
            language at its first input; ``"auto"``: the same for a shipped model (a
            :attr:`model_name`) of a language whose dev accuracy gained from it
            (:func:`~inflect.inference.siblings.re_ranks`), else the model's order; None: the
            model's order.
        **options: as :class:`Searcher` (``beam_size``, ``max_forms``, ``support``,
            ``max_input_len``, ``chunk_size``, ``max_beam``).

    Raises:
        ValueError: a translation model (the message says to use ``inflect translate``), or as
            :class:`Searcher`.
    """

    def __init__(
        self,
        models: Sequence[LoadedModel],
        *,
        lexicons: Lexicons | Sequence[Lexicon] | None = None,
        tag_format: str = "auto",
        siblings: Mapping[str, SiblingEvidence] | bool | str | None = None,
        **options: Any,
    ) -> None:
        from inflect.text.dialects import TAG_FORMATS

        if tag_format not in TAG_FORMATS:
            raise ValueError(f"unknown tag format {tag_format!r}; choose one of "
                             f"{', '.join(TAG_FORMATS)}")
        super().__init__(models, **options)
        self.tag_format = tag_format
        if isinstance(siblings, str) and siblings != "auto":
            raise ValueError(f"siblings: unknown value {siblings!r}; give 'auto', True, a "
                             "mapping of languages to SiblingEvidence, or None")
        self._siblings_mode = siblings if siblings in (True, "auto") else None
        self.siblings: dict[str, SiblingEvidence | None] = (
            dict(siblings) if isinstance(siblings, Mapping) else {})
        self._readings: dict[tuple[str, str], Any] = {}
        if lexicons is None:
            lexicons = ()
        self.lexicons: Lexicons = lexicons if isinstance(lexicons, Lexicons) else Lexicons(lexicons)
        for loaded in self.loaded:
            if loaded.is_translation:
                raise ValueError(
                    f"{loaded.path}: a translation model (sentence pairs, with a subword codec), "
                    f"not an inflection model; translate with `inflect translate --model "
                    f"{loaded.path}`, or give `inflect predict` a model trained by `inflect train`"
                )
        self.features: frozenset[str] = frozenset.intersection(
            *(frozenset(_known_features(m)) for m in self.members)
        )
        self._feature_parts = [
            (frozenset(_known_features(m)), Vocabularies.of(m).parts) for m in self.members
        ]
        langs = [_known_languages(m) for m in self.loaded]
        nonempty = [s for s in langs if s]
        self.languages: tuple[str, ...] = tuple(
            sorted(set.intersection(*nonempty)) if nonempty else ()
        )
        self._codecs: dict[str, CharCodec] = {}
        self._warned_features: set[str] = set()
        #: the registry name of the shipped model (:meth:`from_default`), named in every
        #: record (:attr:`Prediction.model`); None for checkpoints given by path.
        self.model_name: str | None = None

    def reads(self, feature: str) -> bool:
        """Whether every member saw ``feature`` in training: the feature itself, or for a model
        that reads layered features as their parts (``layered_features = "parts"``), each of its
        parts (``NOM(1,PL)`` after training on ``NOM(1,SG)`` and ``NOM(3,PL)``)."""
        return all(
            set(feature_symbols(feature, parts)) <= known for known, parts in self._feature_parts
        )

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_checkpoints(
        cls,
        paths: Sequence[str | os.PathLike[str]],
        device: str | torch.device = "cpu",
        **options: Any,
    ) -> Predictor:
        """Load one checkpoint, or several as an ensemble (folders of members are expanded by
        :func:`inflect.nn.checkpoint.checkpoint_members`; options as :class:`Searcher`).

        Raises:
            FileNotFoundError: a path that is not there.
            CheckpointError: a file is not a sparse-inflect model checkpoint.
            ValueError: the members' target vocabularies differ, or a translation model.
        """
        paths = list(paths)
        if not paths:
            raise ValueError("no checkpoint given")
        models = cls.load(paths, device)
        try:
            return cls(models, **options)
        except ValueError as exc:
            if "ensemble members" in str(exc):
                names = ", ".join(str(m.path) for m in models)
                raise ValueError(f"{exc} (checkpoints: {names})") from None
            raise

    @classmethod
    def from_default(
        cls,
        language: str,
        models_dir: str | os.PathLike[str] | None = None,
        device: str | torch.device = "cpu",
        setting: str | None = None,
        **options: Any,
    ) -> Predictor:
        """Load the shipped default model of ``language`` (see :mod:`inflect.inference.registry`),
        or its model of ``setting``.

        Raises:
            UnknownLanguageError: no language has this name (closest names listed).
            NoDefaultModelError: nothing shipped for the language (those shipped listed), or
                nothing of ``setting`` (the settings shipped listed).
            RegistryError, CheckpointError: a broken installation.
        """
        from inflect.inference.registry import default_model

        entry = default_model(language, models_dir, setting)
        predictor = cls.from_checkpoints(entry.members, device=device, **options)
        predictor.model_name = entry.name
        return predictor

    # ------------------------------------------------------------------ inputs
    def codec(self, name: str | None) -> CharCodec:
        """The codec (text <-> symbols) of a language the model was trained on: a
        :class:`~inflect.text.codec.CharCodec` of its :class:`~inflect.text.languages.LanguageSpec`
        (the one stored in the checkpoint where there is one).

        Args:
            name: any name or code; None or ``""`` for the model's only language.

        Raises:
            UnknownLanguageError: no language has this name (the closest are listed).
            InputError: the model was not trained on it, or it is needed and not given.
        """
        key = name or ""
        codec = self._codecs.get(key)
        if codec is not None:
            return codec
        if not key:
            if len(self.languages) != 1:
                raise InputError(
                    "give the language (--lang): "
                    + (
                        f"the model knows {', '.join(self.languages)}"
                        if self.languages
                        else "the model does not record its language"
                    )
                )
            key_name = self.languages[0]
        else:
            key_name = resolve(key).name
            if self.languages and key_name not in self.languages:
                raise InputError(
                    f"the model was not trained on {key_name}; it knows {', '.join(self.languages)}"
                )
        spec = self.loaded[0].languages.get(key_name) or resolve(key_name)
        codec = self._codecs[key] = CharCodec(spec)
        return codec

    def prepare(self, query: Example) -> Prepared:
        """Validate one query and turn it into model symbols.

        The lexicons are consulted here (:meth:`_consult`); where they answer for another
        spelling of the lemma than the one given (``Haus`` for ``haus``), the model is asked
        for that word too, and a note says so.

        A UniMorph feature the model has not seen is read as the unknown feature (a note in
        the record, one warning per feature; :meth:`_unknown_features`), or refused where
        :attr:`strict`.

        Raises:
            InputError: empty lemma, (strict) unknown UniMorph feature (the message lists the
                known ones), a lemma longer than :attr:`max_input_len`, a language the model
                does not know.
            UnknownLanguageError: no language has the query's language name.
        """
        src, line = query.source, query.line
        try:
            codec = self.codec(query.language)
        except InputError as exc:
            raise InputError(exc.what, exc.value, src, line) from None
        symbols = codec.encode(query.lemma)
        if not "".join(symbols).strip():
            raise InputError("empty lemma", query.lemma, src, line)
        asked, notes = self._read_tags(query, codec.spec.name)
        unknown = sorted(f for f in asked.features if not self.reads(f))
        if unknown and self.strict:
            known = ", ".join(sorted(self.features)) or "none"
            plural = "s" if len(unknown) > 1 else ""
            named = ", ".join(_with_hint(f, self.features) for f in unknown)
            raise InputError(
                f"unknown UniMorph feature{plural} {named} in tag bundle "
                f"{quoted(asked.text)}; the model knows {len(self.features)} features: {known}",
                None,
                src,
                line,
            )
        notes.extend(self._unknown_features(unknown))
        spec = codec.spec
        consulted = self._consult(query, spec, asked)
        if consulted is not None and consulted.read_as is not None:
            symbols = codec.encode(consulted.read_as)  # the model asked for the word listed
        if len(symbols) > self.max_input_len:
            raise InputError(
                f"lemma of {len(symbols)} symbols is longer than the model's limit of "
                f"{self.max_input_len} symbols",
                query.lemma,
                src,
                line,
            )
        notes = [*self._unseen(symbols, f"lemma {query.lemma!r}"), *notes]
        if consulted is not None:
            notes.extend(consulted.notes)
        return Prepared(
            query, symbols, codec, asked.multiset, spec.name, spec.direction, notes,
            tuple(unknown), None if asked is query.tags else asked, consulted,
        )

    def _consult(
        self, query: Example, spec: Any, asked: TagBundle | None = None
    ) -> Consultation | None:
        """What :attr:`lexicons` say about ``query``, asked as the bundle ``asked`` (the tags as
        read, :meth:`_read_tags`; None: the query's own), or None without a lexicon.

        Raises:
            InputError: (strict) the lemma is not listed as written and would be answered for
                another spelling (``haus`` for ``Haus``).
            DataFormatError, LexiconError: a lexicon read at its first use fails.
        """
        if not self.lexicons:
            return None
        found = self.lexicons.consult(
            spec.name, spec.normalize_input(query.lemma), asked or query.tags
        )
        if found.read_as is not None and self.strict:
            raise InputError(
                f"the lemma is not listed as written; the dictionaries list {found.read_as!r} "
                "(--strict refuses a lemma read as another spelling; without it, the answer is "
                f"for {found.read_as!r}, with a note)", query.lemma, query.source, query.line)
        return found

    def _read_tags(self, query: Example, language: str) -> tuple[TagBundle, list[str]]:
        """The tag bundle asked for ``query`` and the notes on it (cached per language and text).

        Tags in UniMorph 4 or UD (:attr:`tag_format`) are read as the bundle of ``language``'s
        2018 data (:func:`inflect.text.dialects.read_tags`), also for a model given by path
        unless it knows every feature as written. For a shipped model (trained on the shared
        task's data), a 2018 bundle is checked against the bundles of the language's training
        data (:mod:`inflect.corpora.bundles`): a lowercase bundle, one with a redundant
        part-of-speech feature (English ``V;V.PTCP;PST``, French ``V.PTCP;PST``) or a synonym
        (``INS``/``INST``) reads as the one it spells, with a note; another bundle the data never
        use gets a note naming the nearest ones, or (``strict``) is refused; so do foreign tags
        whose conversion the SIGMORPHON 2023 data do not support
        (:attr:`inflect.text.dialects.TagReading.refused`: asked as read, with its note).

        Raises:
            InputError: tags that cannot be read (the message names the part at fault), or
                (strict) a bundle the language's data never use, or tags not converted.
        """
        key = (language, query.tags.text)
        found = self._readings.get(key)
        if found is None:
            found = self._readings[key] = self._reading(query.tags, language)
        if isinstance(found, Exception):
            raise InputError(found.what, found.text, query.source, query.line)
        asked, notes, unknown = found
        if unknown is not None and self.strict:
            raise InputError(unknown + " (--strict refuses it)", None, query.source, query.line)
        notes = [*notes, unknown] if unknown is not None else list(notes)
        same = asked == query.tags and asked.text == query.tags.text
        return (query.tags if same else asked), notes

    def tag_note(self, query: Example) -> str | None:
        """The note on ``query``'s tags that ``strict`` refuses, read as :meth:`prepare` reads
        them (cached): a bundle the language's 2018 data never use, or UniMorph 4 or UD tags
        whose conversion the SIGMORPHON 2023 data do not support; None for tags read as one of
        the language's bundles, tags that cannot be read, or a language the model does not take
        (:meth:`prepare` raises for those)."""
        try:
            language = self.codec(query.language).spec.name
        except (InputError, ValueError):
            return None
        key = (language, query.tags.text)
        found = self._readings.get(key)
        if found is None:
            found = self._readings[key] = self._reading(query.tags, language)
        return None if isinstance(found, Exception) else found[2]

    def _reading(self, tags: TagBundle, language: str) -> Any:
        """``(asked, notes, unknown)`` for :meth:`_read_tags` (``unknown``: the note on a bundle
        the language's data never use, or None), or the
        :class:`~inflect.text.dialects.TagError`."""
        from inflect.corpora.bundles import language_bundles
        from inflect.text.dialects import TagError, detect_dialect, read_tags

        dialect = detect_dialect(tags.text) if self.tag_format == "auto" else self.tag_format
        shipped = self.model_name is not None
        # a model trained on UniMorph 4 layers (served, or by path); the 2018 data's own
        # (non)NOM, which the multilingual models know, is no layer
        if dialect == "unimorph4" and any(map(is_layer, self.features)):
            return tags, (), None
        if not shipped and (dialect == "unimorph" or all(map(self.reads, tags.features))):
            return tags, (), None  # a model given by path, trained on tags written this way
        known = language_bundles(language)
        try:
            reading = read_tags(tags.text, dialect, known, language)
        except TagError as exc:
            return exc
        unknown = None
        if not reading.known and known is not None:
            # tags whose conversion the 2023 data do not support: their note, as a bundle the
            # language does not have (strict refuses both)
            unknown = reading.refused or known.unknown_bundle_note(reading.asked)
        notes = tuple(n for n in reading.notes if n != unknown)
        return reading.asked, notes, unknown

    def _unknown_features(self, unknown: Sequence[str]) -> list[str]:
        """One note per UniMorph feature unseen in training: the model reads it as the unknown
        feature, the padding id, whose embedding is zero (it adds nothing to the condition
        vector), as an unseen lemma symbol is read as the unknown symbol. Each feature is warned
        once per predictor (:class:`~inflect.nn.vocab.UnknownSymbolWarning`)."""
        notes = []
        for feature in unknown:
            note = (
                f"UniMorph feature {_with_hint(feature, self.features)} was not seen in training; "
                "the model reads it as the unknown feature (the answer may miss what it marks)"
            )
            notes.append(note)
            if feature not in self._warned_features:
                self._warned_features.add(feature)
                warnings.warn(note, UnknownSymbolWarning, stacklevel=4)
        return notes

    def attested(self, item: Prepared, model_forms: Sequence[Form] = ()) -> tuple[Form, ...]:
        """The attested forms of a prepared input by :attr:`lexicons` (as looked up when it was
        prepared; empty without a lexicon), each with its source and the probability
        ``model_forms`` give the same text (0.0 if none).

        Raises:
            DataFormatError, LexiconError: a lexicon read at its first use fails.
        """
        found = item.attested
        if found is None:
            found = self._consult(item.query, item.codec.spec, item.asked)
        if found is None:
            return ()
        model = {f.form: f.probability for f in model_forms}
        return tuple(Form(a.form, model.get(a.form, 0.0), a.source) for a in found.forms)

    def _sibling_evidence(self, language: str) -> SiblingEvidence | None:
        """The paradigms that re-rank ``language``'s forms (see ``siblings``), or None."""
        if language in self.siblings or self._siblings_mode is None:
            return self.siblings.get(language)
        if self._siblings_mode == "auto" and not (
                self.model_name is not None
                and re_ranks(language, self.training_setting, self.model_name)):
            self.siblings[language] = None
        else:
            pairs = [pair for layer in self.lexicons.layers
                     if hasattr(layer, "attested_pairs") and language in layer.languages()
                     for pair in layer.attested_pairs(language)]
            self.siblings[language] = SiblingEvidence.from_pairs(pairs) if pairs else None
        return self.siblings[language]

    @property
    def training_setting(self) -> str | None:
        """The training setting of the (first) model, from its checkpoint (``"high"``, ...), or
        None."""
        for loaded in self.loaded:
            data = loaded.metadata.get("training", {}).get("data", {})
            setting = data.get("setting") if isinstance(data, dict) else None
            if setting in defaults.SETTINGS:
                return setting
        return None

    def record(self, item: Prepared, outcome: Outcome) -> Prediction:
        """The :class:`Prediction` of one searched input: the attested forms (:meth:`attested`)
        first, then the model's (re-ranked by :attr:`siblings` where they hold the language)."""
        q = item.query
        fields = outcome.outcome()
        forms = tuple(outcome.forms)
        evidence = self._sibling_evidence(item.language or "")
        if evidence is not None:
            lemma = item.codec.spec.normalize_input(q.lemma)
            forms = tuple(evidence.rerank(lemma, item.asked or q.tags, forms))
        fields["forms"] = self.attested(item, forms) + forms
        return Prediction(
            q.lemma,
            q.tags.text,
            item.language or "",
            q.source,
            self.model_name,
            asked=(item.asked or q.tags).text,
            conflict=bool(item.attested is not None and item.attested.conflict),
            warnings=tuple(item.warnings),
            line=q.line,
            **fields,
        )

    def predict(self, lemma: str, tags: str | TagBundle, language: str | None = None) -> Prediction:
        """Predict for one lemma and tag bundle (see :meth:`Searcher.stream`).

        Raises:
            InputError, UnknownLanguageError: as :meth:`prepare`.
        """
        return self.run([self.prepare(make_query(lemma, tags, language))])[0]

    def predict_many(self, queries: Iterable[Example]) -> list[Prediction]:
        """``list(self.stream(queries))``."""
        return list(self.stream(queries))


def load_predictor(
    models: Sequence[str | os.PathLike[str]] | None = None,
    language: str | None = None,
    *,
    models_dir: str | os.PathLike[str] | None = None,
    device: str | torch.device = "cpu",
    setting: str | None = None,
    **options: Any,
) -> Predictor:
    """The predictor of the given checkpoints (or folders of members), else of ``language``'s
    shipped default model (or its shipped model of ``setting``).

    When both are given, the checkpoints must know the language.

    Raises:
        ValueError: neither checkpoints nor a language.
        UnknownLanguageError, NoDefaultModelError, RegistryError, CheckpointError, InputError.
    """
    if models:
        predictor = Predictor.from_checkpoints([Path(m) for m in models], device, **options)
    elif language:
        predictor = Predictor.from_default(language, models_dir, device, setting, **options)
    else:
        raise ValueError("give a language (--lang) or a checkpoint (--model)")
    if language:
        predictor.codec(language)  # fail now, not at the first input
    return predictor
