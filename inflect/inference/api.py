"""One call: ``inflect.inflect("Haus", "N;DAT;PL", lang="german").best == "Häusern"``.

:func:`inflect` answers one lemma and its tags (any dialect: UniMorph ``N;DAT;PL``, UniMorph 4
``N;DAT(PL)``, UD ``NOUN|Case=Dat|Number=Plur``; :mod:`inflect.text.dialects`) as ``inflect
predict`` does: the same shipped model of the language, the same lexicons consulted first (the
user's files, the field dictionaries installed, UniMorph, the shipped lexicon) and the same
search options. The model of a language is loaded once and kept (per language, whichever of its
names is given, model, setting, models folder and device), so a second call costs a search, not
a load; lexicons are kept per choice of files. Thread-safe: loading is done under a lock, searches run on the caller's thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inflect import defaults
from inflect.inference.outcomes import Form, Prediction
from inflect.inference.predictor import Predictor, load_predictor

__all__ = ["Inflection", "clear_cache", "first_form", "inflect", "predictor_for"]

_LOCK = threading.Lock()
#: loaded models: (language, models, setting, models_dir, device) -> the base predictor
_LOADED: dict[tuple[Any, ...], Predictor] = {}
#: lexicons: (files, language, no_lexicon) -> Lexicons (or None)
_LEXICONS: dict[tuple[Any, ...], Any] = {}
#: predictors of a loaded model for one choice of lexicons and options
_MADE: dict[tuple[Any, ...], Predictor] = {}


@dataclass(frozen=True)
class Inflection:
    """The answer of :func:`inflect`: its :class:`~inflect.inference.outcomes.Prediction`
    record, with the first form as text.

    Attributes:
        record: the record ``inflect predict`` writes (``forms``, ``certificate``, ``tags`` as
            written, ``asked``, ``warnings``, ``model``, ...); its attributes are this object's
            too (``result.certificate``, ``result.warnings``).
        best: the first form (an attested one where a lexicon holds the input, else the model's
            most probable), or None where there is none.
    """

    record: Prediction
    best: str | None

    @property
    def forms(self) -> tuple[Form, ...]:
        """Every form, attested ones first, each with ``form``, ``probability``, ``source``
        (None for the model's) and ``attested``."""
        return self.record.forms

    def __getattr__(self, name: str) -> Any:
        return getattr(self.record, name)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON Lines writes it."""
        return self.record.to_dict()


def _lexicons(files: tuple[str, ...], language: str, no_lexicon: bool) -> Any:
    from inflect.lexicon import load_lexicons

    key = (files, language, no_lexicon)
    if key not in _LEXICONS:
        _LEXICONS[key] = None if no_lexicon else load_lexicons(files, language=language)
    return _LEXICONS[key]


def _language_key(lang: str | None) -> str:
    """The language's shared-task name (``german`` for ``de``, ``deu``, ``German``), so that its
    names share one loaded model and lexicon; a name no language has (yet: a checkpoint's own
    language is known once it is loaded), as given."""
    from inflect.text.languages import UnknownLanguageError, resolve

    if not lang:
        return ""
    try:
        return resolve(lang).name
    except UnknownLanguageError:
        return lang


def predictor_for(
    lang: str | None = None,
    *,
    model: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    setting: str | None = None,
    lexicon: Sequence[str | os.PathLike[str]] = (),
    no_lexicon: bool = False,
    siblings: str | bool = "auto",
    beam: int = defaults.BEAM_SIZE,
    max_forms: int = defaults.MAX_FORMS,
    support: str = "auto",
    strict: bool = False,
    tag_format: str = "auto",
    models_dir: str | os.PathLike[str] | None = None,
    device: str = "cpu",
    threads: int | None = None,
) -> Predictor:
    """The predictor :func:`inflect` asks (arguments as there), made once per choice of model,
    lexicons and options and kept; the model itself is loaded once per language, model,
    setting, models folder and device, and shared by the predictors made of it. The first load
    sets torch's CPU threads as ``inflect predict`` does (``threads``, else
    ``$INFLECT_THREADS``, else the idle cores: :func:`inflect.nn.threads.set_threads`).

    Raises:
        as :func:`inflect`.
    """
    from inflect.inference.siblings import siblings_choice
    from inflect.nn.threads import set_threads

    chosen_siblings = siblings_choice(siblings, no_lexicon)
    models = (model,) if isinstance(model, str | os.PathLike) else tuple(model or ())
    language = _language_key(lang)
    place = (language, tuple(str(m) for m in models), setting,
             None if models_dir is None else str(models_dir), device)
    files = tuple(str(f) for f in lexicon)
    options = {"beam_size": beam, "max_forms": max_forms, "support": support, "strict": strict,
               "tag_format": tag_format, "siblings": chosen_siblings}
    key = (place, files, no_lexicon, tuple(sorted(options.items())))
    with _LOCK:
        made = _MADE.get(key)
        if made is not None:
            return made
        base = _LOADED.get(place)
        if base is None:
            if not _LOADED:
                set_threads(threads)
            base = _LOADED[place] = load_predictor(
                list(place[1]) or None, lang, models_dir=place[3], device=device, setting=setting
            )
        made = Predictor(base.loaded, lexicons=_lexicons(files, language, no_lexicon), **options)
        made.model_name = base.model_name
        _MADE[key] = made
        return made


def inflect(lemma: str, tags: str, lang: str | None = None, **options: Any) -> Inflection:
    """The forms of ``lemma`` for ``tags`` in ``lang``: ``inflect predict LEMMA TAGS --lang LANG``
    as one call (``inflect("Haus", "N;DAT;PL", lang="german").best == "Häusern"``).

    Args:
        lemma: the lemma (surrounding whitespace removed).
        tags: the tags, in any dialect (``"N;DAT;PL"``, ``"N;DAT(PL)"``,
            ``"NOUN|Case=Dat|Number=Plur"``).
        lang: any name or code of the language (``"german"``, ``"de"``, ``"deu"``); optional
            with a ``model`` of one language.
        **options: ``model`` (a checkpoint, a folder of members, or several: an ensemble;
            default the shipped model of ``lang``), ``setting`` (the shipped model of ``"high"``,
            ``"medium"`` or ``"low"``), ``lexicon`` (the user's lexicon files, consulted first;
            then the field dictionaries, UniMorph and the shipped lexicon, as ``inflect
            predict``), ``no_lexicon`` (the model alone), ``siblings`` (``"auto"``, ``"on"``,
            ``"off"``: re-rank the model's forms by the lemma's other forms in the shipped
            lexicon), ``beam``, ``max_forms``,
            ``support``, ``strict``, ``tag_format``, ``models_dir``, ``device``, ``threads``:
            as ``inflect predict``'s options of those names (:func:`predictor_for`).

    Returns:
        An :class:`Inflection`: ``.best`` (the first form, a str), ``.forms`` (each with its
        probability, source and whether it is attested), ``.certificate``, ``.record``.

    Raises:
        InputError: tags or a lemma the model cannot take (an unknown UD value, a layer with no
            2018 cell, an empty lemma, ...), the message naming it.
        UnknownLanguageError, NoDefaultModelError, CheckpointError, LexiconError: as
            ``inflect predict``.
        ValueError: neither ``lang`` nor ``model``; a bad option.
        TypeError: an unknown option.
    """
    from inflect.inference.queries import make_query

    predictor = predictor_for(lang, **options)
    record = predictor.run([predictor.prepare(make_query(lemma, tags, lang))])[0]
    return Inflection(record, record.best.form if record.best is not None else None)


def first_form(predictor: Predictor, lemma: str, tags: str, lang: str | None = None) -> str | None:
    """The first form of ``inflect predict``'s answer without searching where it need not: a
    lexicon's attested form where one holds the input (the answer's first form then), else the
    model's most probable form (a search).

    Raises:
        InputError: as :func:`inflect`.
    """
    from inflect.inference.queries import make_query

    prepared = predictor.prepare(make_query(lemma, tags, lang))
    attested = predictor.attested(prepared)
    if attested:
        return attested[0].form
    best = predictor.run([prepared])[0].best
    return None if best is None else best.form


def clear_cache() -> None:
    """Forget the models, lexicons and predictors kept (their memory is freed once unused)."""
    with _LOCK:
        _LOADED.clear()
        _LEXICONS.clear()
        _MADE.clear()
