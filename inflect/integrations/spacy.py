"""A spaCy component: ``nlp.add_pipe("inflect")``, then ``token._.inflect("Case=Dat")``.

The factory ``inflect`` is registered through spaCy's entry points (``spacy_factories`` in
``pyproject.toml``), so a pipeline adds it without importing this module. Its token extensions:

- ``token._.inflect(features)`` -> the best form (a str): the token's lemma inflected for its
  UPOS and Universal Dependencies features, those given replacing the token's own of the same
  name (``doc[1]._.inflect("Case=Dat")`` on *Häuser*, ``NOUN`` with ``Case=Nom|Gender=Neut|
  Number=Plur``, gives *Häusern*); a feature given the value ``None`` (in a dict) is removed;
- ``token._.inflections(features)`` -> the whole record
  (:class:`inflect.inference.api.Inflection`: ``.best``, ``.forms``, ``.certificate``).

``features`` is UD's ``Name=Value|...`` (a UPOS first replaces the token's, ``"VERB|Tense=Past"``)
or a dict. The tags are read as UD (``tag_format="ud"``, a bare UPOS too) as the language's 2018
bundle (:mod:`inflect.text.dialects`) and answered as ``inflect predict`` answers them: the
language's shipped model, the lexicons first. The language is ``nlp.lang`` unless the config's
``lang`` names one. Answers are kept per lemma and tags (``cache_size`` of them); ``inflect``
returns a lexicon's attested form without a search where one holds the input
(:func:`inflect.inference.api.first_form`).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Token

__all__ = ["InflectComponent", "make_inflect", "token_tags"]

#: Where a Doc that went through the component names it (``doc.user_data``).
_USER_DATA_KEY = ("inflect", "component")
#: The components alive, by key (``"last"``: the last one made, which answers a Doc that went
#: through none).
_COMPONENTS: weakref.WeakValueDictionary[str, InflectComponent] = weakref.WeakValueDictionary()


def token_tags(token: Token, features: str | Mapping[str, str | None] = "") -> str:
    """The UD tags ``UPOS|Name=Value|...`` of ``token`` with ``features`` replacing its own of the
    same name (names sorted, as CoNLL-U writes them).

    Raises:
        ValueError: a feature given without ``=``, or a token without a UPOS (no tagger ran) and
            none given.
    """
    upos = token.pos_
    given: dict[str, str | None] = {}
    if isinstance(features, Mapping):
        given = dict(features)
    else:
        for i, item in enumerate(p.strip() for p in features.split("|") if p.strip()):
            if "=" not in item:
                if i:
                    raise ValueError(f"UD feature {item!r} is not Name=Value (in {features!r})")
                upos = item
                continue
            name, value = item.split("=", 1)
            given[name.strip()] = value.strip()
    if not upos:
        raise ValueError(f"the token {token.text!r} has no UPOS (token.pos_: no tagger ran); "
                         "give it first in the features, e.g. 'NOUN|Case=Dat'")
    merged = {**token.morph.to_dict(), **given}
    pairs = sorted((k, v) for k, v in merged.items() if v)
    return "|".join([upos, *(f"{k}={v}" for k, v in pairs)])


class InflectComponent:
    """The pipeline component (see the module docstring); made by :func:`make_inflect`.

    Raises:
        UnknownLanguageError: a language (``lang``, or ``nlp.lang``) no spec has, at the first
            inflection.
    """

    def __init__(self, nlp: Language, name: str, lang: str | None = None,
                 cache_size: int = 4096, **options: Any) -> None:
        self.name, self.lang = name, lang or nlp.lang
        # the tags are always UD (token_tags): read as UD, also a bare UPOS ("NOUN"), which
        # detection by look would read as a UniMorph feature
        self.options = {**{k: v for k, v in options.items() if v is not None}, "tag_format": "ud"}
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str, bool], Any] = OrderedDict()
        self._predictor: Any = None
        self.key = f"{name}@{id(self)}"
        _COMPONENTS[self.key] = _COMPONENTS["last"] = self

    def __call__(self, doc: Doc) -> Doc:
        """Mark the Doc as this component's (its tokens' extensions ask it)."""
        doc.user_data[_USER_DATA_KEY] = self.key
        return doc

    @property
    def predictor(self) -> Any:
        """The predictor of the language (:func:`inflect.inference.api.predictor_for`), made at
        the first inflection and kept."""
        if self._predictor is None:
            from inflect.inference.api import predictor_for
            from inflect.text.languages import resolve

            self._predictor = predictor_for(resolve(self.lang).name, **self.options)
        return self._predictor

    def inflect(self, lemma: str, tags: str, whole: bool = False) -> Any:
        """The best form (``whole``: the :class:`~inflect.inference.api.Inflection`) of ``lemma``
        for the UD ``tags``, kept for the next ask."""
        key = (lemma, tags, whole)
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            return found
        from inflect.inference.api import Inflection, first_form
        from inflect.inference.queries import make_query

        predictor = self.predictor
        if whole:
            record = predictor.run([predictor.prepare(make_query(lemma, tags, self.lang))])[0]
            found = Inflection(record, record.best.form if record.best is not None else None)
        else:
            found = first_form(predictor, lemma, tags, self.lang)
        self._cache[key] = found
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return found


def _component(token: Token) -> InflectComponent:
    key = token.doc.user_data.get(_USER_DATA_KEY, "last")
    found = _COMPONENTS.get(key) or _COMPONENTS.get("last")
    if found is None:
        raise ValueError("no inflect component: add it to the pipeline first, "
                         "nlp.add_pipe('inflect')")
    return found


def _inflect(token: Token, features: str | Mapping[str, str | None] = "") -> str | None:
    return _component(token).inflect(token.lemma_ or token.text, token_tags(token, features))


def _inflections(token: Token, features: str | Mapping[str, str | None] = "") -> Any:
    return _component(token).inflect(token.lemma_ or token.text, token_tags(token, features),
                                     whole=True)


def _register() -> None:
    """Set the token extensions. LemmInflect (the English field dictionary) sets its own
    ``token._.inflect`` when it is imported where spaCy is installed, and its import fails when
    the extension exists: it is imported first (where installed), and its extension replaced by
    this one (its inflections stay reachable as ``lemminflect.getInflection``)."""
    import importlib.util

    if importlib.util.find_spec("lemminflect") is not None:
        import lemminflect  # noqa: F401

    Token.set_extension("inflect", method=_inflect, force=True)
    Token.set_extension("inflections", method=_inflections, force=True)


_register()


@Language.factory(
    "inflect",
    default_config={"lang": None, "model": None, "setting": None, "lexicon": [],
                    "no_lexicon": False, "beam": 5, "max_forms": 100, "support": "auto",
                    "strict": False, "models_dir": None, "device": "cpu", "cache_size": 4096},
)
def make_inflect(nlp: Language, name: str, lang: str | None, model: str | None,
                 setting: str | None, lexicon: list[str], no_lexicon: bool, beam: int,
                 max_forms: int, support: str, strict: bool, models_dir: str | None,
                 device: str, cache_size: int) -> InflectComponent:
    """The ``inflect`` component: ``nlp.add_pipe("inflect", config={"lang": "german"})``; the
    options are ``inflect predict``'s (:func:`inflect.inference.api.inflect`)."""
    return InflectComponent(nlp, name, lang, cache_size, model=model, setting=setting,
                            lexicon=tuple(lexicon), no_lexicon=no_lexicon, beam=beam,
                            max_forms=max_forms, support=support, strict=strict,
                            models_dir=models_dir, device=device)
