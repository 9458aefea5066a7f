"""What the routes ask of the service, without HTTP: the inputs of a request read and checked,
their models loaded on first use (:class:`~inflect.serve.models.ModelPool`), their search
gathered with other requests' (:class:`~inflect.serve.batching.Batcher`), and every refusal as a
:class:`~inflect.serve.errors.RequestError` naming the field and the value.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from inflect import defaults
from inflect.inference.outcomes import Prediction
from inflect.inference.paradigm import Paradigm
from inflect.inference.paradigm_cells import ParadigmError
from inflect.inference.queries import InputError, make_query, strip_lemma
from inflect.inference.registry import NoDefaultModelError, RegistryError, ShippedModel
from inflect.serve.batching import Batcher, QueueFull, Rejected
from inflect.serve.errors import RequestError
from inflect.serve.models import ModelPool, SearchOptions, UnknownLexiconError
from inflect.text.languages import UnknownLanguageError, resolve
from inflect.text.records import Example, TagBundle, control_problem

__all__ = ["SETTINGS_ENV", "ServeSettings", "Service"]

log = logging.getLogger("inflect.serve")

#: The environment variable that hands the settings to the worker processes (``--workers``).
SETTINGS_ENV = "INFLECT_SERVE_SETTINGS"


@dataclass(frozen=True)
class ServeSettings:
    """A service's settings (``inflect serve``'s options).

    Attributes:
        languages: languages whose models are loaded at the start (the others on first use).
        max_models: models kept loaded at once.
        device: where the models run.
        models_dir: a folder replacing the shipped models, or None.
        lexicon_files: the user's lexicon files offered (by file name), before the shipped one.
        no_lexicon: offer no lexicon: the model alone.
        threads: torch's threads on the search thread (None: the process's count).
        window, max_batch, max_queue, max_wait, batch_seconds: as
            :class:`~inflect.serve.batching.Batcher`.
        max_inputs: inputs of one request at most.
        max_body_bytes: bytes of a request body at most.
        read_seconds: seconds a client has to send a request's headers, and then its body (408
            beyond: :mod:`inflect.serve.protocol`, :class:`inflect.serve.guard.RequestGuard`).
        models: the user's models, ``(language, path)`` each (``--model NAME=PATH``), served
            beside the shipped ones (see :class:`~inflect.serve.models.ModelPool`).
    """

    languages: tuple[str, ...] = ()
    max_models: int = defaults.SERVE_MAX_MODELS
    device: str = "cpu"
    models_dir: str | None = None
    lexicon_files: tuple[str, ...] = ()
    no_lexicon: bool = False
    threads: int | None = None
    window: float = defaults.SERVE_BATCH_WINDOW
    max_batch: int = defaults.SERVE_MAX_BATCH
    max_queue: int = defaults.SERVE_MAX_QUEUE
    max_wait: float = defaults.SERVE_MAX_WAIT
    batch_seconds: float = defaults.SERVE_BATCH_SECONDS
    max_inputs: int = defaults.SERVE_MAX_INPUTS
    max_body_bytes: int = defaults.SERVE_MAX_BODY_BYTES
    read_seconds: float = defaults.SERVE_READ_SECONDS
    models: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> str:
        """The settings as JSON (for :data:`SETTINGS_ENV`)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_environment(cls) -> ServeSettings:
        """The settings :meth:`to_json` put in :data:`SETTINGS_ENV` (defaults where unset)."""
        text = os.environ.get(SETTINGS_ENV)
        if not text:
            return cls()
        fields = json.loads(text)
        for key in ("languages", "lexicon_files"):
            fields[key] = tuple(fields.get(key, ()))
        fields["models"] = tuple(tuple(pair) for pair in fields.get("models", ()))
        return cls(**fields)


def options_of(
    beam: int, support: str, max_forms: int, lexicon: Sequence[str] | None, no_lexicon: bool,
    tag_format: str = "auto", siblings: str = "auto",
) -> SearchOptions:
    """A request's search options (``tag_format``: the dialect of its tags, one of
    :data:`~inflect.text.dialects.TAG_FORMATS`, as ``inflect predict --tag-format``; the routes
    validate it; ``siblings``: as ``inflect predict --siblings``); ``no_lexicon`` with
    ``lexicon`` or ``siblings`` is refused (field ``no_lexicon``)."""
    if no_lexicon and lexicon:
        raise RequestError(422, "no_lexicon asks the model alone; drop it or lexicon",
                           "no_lexicon", True)
    if no_lexicon and siblings == "on":
        raise RequestError(422, "siblings 'on' re-ranks by the lemma's forms in the lexicons; "
                           "no_lexicon turns them off (drop one of them)", "no_lexicon", True)
    chosen = () if no_lexicon else (tuple(lexicon) if lexicon is not None else None)
    return SearchOptions(beam=beam, support=support, max_forms=max_forms, lexicons=chosen,
                         tag_format=tag_format, siblings=siblings)


def _warm(lexicons: Any, language: str, parts_of_speech: Sequence[str]) -> None:
    """Read what ``lexicons`` read at their first lookup of ``language``: the shipped lexicon's
    language, and each field dictionary of one of its parts of speech (German nouns: the index
    of the table, about 0.3 s), so that no request pays for it."""
    for pos in ("_", *parts_of_speech):
        lexicons.lookup(language, "_", TagBundle.parse(pos))


def _query_of_item(item: tuple[str, str, str, str]) -> Example:
    """:func:`query_of` of ``(lemma, tags, lang, field)`` (on the search thread)."""
    return query_of(*item)


def query_of(lemma: str, tags: str, lang: str, field: str) -> Example:
    """One input as a query (:func:`~inflect.inference.queries.make_query`); ``field`` prefixes
    the field named in the error (``""`` or ``"inputs[3]."``)."""
    try:
        return make_query(lemma, tags, lang)
    except InputError as exc:
        at_lemma = exc.value == lemma or "lemma" in exc.what
        name, value = ("lemma", lemma) if at_lemma else ("tags", tags)
        raise RequestError(422, str(exc), f"{field}{name}", value) from None


class Service:
    """The service's state: its settings, models, search thread and model loader.

    ``await start()`` in the application's lifespan (it loads :attr:`ServeSettings.languages`),
    ``await close()`` at its end (it answers the requests queued, then stops).
    """

    def __init__(self, settings: ServeSettings) -> None:
        self.settings = settings
        self.pool = ModelPool(
            max_models=settings.max_models,
            device=settings.device,
            models_dir=settings.models_dir,
            lexicon_files=settings.lexicon_files,
            lexicons=not settings.no_lexicon,
            user_models=settings.models,
        )
        self.batcher = Batcher(window=settings.window, max_batch=settings.max_batch,
                               max_queue=settings.max_queue, max_wait=settings.max_wait,
                               batch_seconds=settings.batch_seconds, threads=settings.threads)
        #: each language's default shipped model (the registry, read once)
        self.catalogue = self.pool.catalogue()
        self._loader = ThreadPoolExecutor(1, thread_name_prefix="inflect-load")
        self._loading: dict[str, asyncio.Future] = {}

    async def start(self) -> None:
        """Start the search thread, load the models of :attr:`ServeSettings.languages` and read
        their lexicons (on the search thread, which owns them: :meth:`_warm`)."""
        await self.batcher.start()
        for language in self.settings.languages:
            base = await self.model(language, "lang")
            name = resolve(language).name
            try:
                parts = tuple(self.pool.paradigms(base, SearchOptions()).parts_of_speech(name))
            except ParadigmError:  # a language without shipped cells
                parts = ()
            await self.batcher.call(lambda b=base, n=name, p=parts: _warm(b.lexicons, n, p))

    async def close(self) -> None:
        """Answer every request queued, then stop the threads."""
        await self.batcher.close()
        self._loader.shutdown(wait=True)

    # ------------------------------------------------------------------ models
    def entry(self, language: str, field: str) -> ShippedModel:
        """The shipped model of ``language``; an unknown language or one without a model is a
        422 naming ``field``."""
        try:
            return self.pool.entry(language)
        except (UnknownLanguageError, NoDefaultModelError) as exc:
            raise RequestError(422, str(exc), field, language) from None
        except RegistryError as exc:
            raise RequestError(500, str(exc), field, language) from None

    async def model(self, language: str, field: str) -> Any:
        """The loaded predictor of ``language``'s model (loaded now, on the loader thread, if it
        is not; one load however many requests wait for it)."""
        entry = self.entry(language, field)
        found = self.pool.get(entry)
        if found is not None:
            return found
        loading = self._loading.get(entry.name)
        if loading is None:
            loop = asyncio.get_running_loop()
            loading = asyncio.ensure_future(loop.run_in_executor(self._loader, self.pool.load, entry))
            self._loading[entry.name] = loading
        try:
            predictor = await asyncio.shield(loading)
        except Exception as exc:
            log.exception("loading %s failed", entry.name)
            raise RequestError(500, f"the model {entry.name} could not be loaded: {exc}", field,
                               language) from None
        finally:
            if loading.done():
                self._loading.pop(entry.name, None)
        if self.pool.get(entry) is None:
            self.pool.keep(entry, predictor)
        return predictor

    def check_options(self, options: SearchOptions) -> None:
        """Refuse lexicon names the service does not offer (field ``lexicon``)."""
        try:
            self.pool.check(options)
        except UnknownLexiconError as exc:
            raise RequestError(422, str(exc), "lexicon", ",".join(options.lexicons or ())) from None

    # ------------------------------------------------------------------ answers
    async def _searched(self, coroutine: Any, fields: Sequence[tuple[str, Any]]) -> Any:
        """Await a batcher call; its refusals as :class:`RequestError` (``fields[i]``: the
        prefix and index of input ``i``)."""
        try:
            return await coroutine
        except QueueFull as exc:
            raise RequestError(503, str(exc), None, None,
                               {"Retry-After": str(exc.retry_after)}) from None
        except Rejected as exc:
            prefix, _ = fields[exc.index]
            raise RequestError(422, str(exc.error), f"{prefix}{exc.field}", exc.value) from None

    async def inflect(
        self, inputs: Sequence[tuple[str, str, str | None]], lang: str | None,
        options: SearchOptions, prefix: bool = True,
        render: Callable[[Prediction], Any] | None = None,
    ) -> list[Any]:
        """The records of ``inputs`` (``(lemma, tags, lang or None)`` each; ``lang`` for those
        without), in order: the inputs of one model searched as one request of the batcher.
        Each input is read (:func:`query_of`) and, with ``render``, its record rendered on the
        search thread, as part of the request's measured work (a 1,000-input request costs
        about 0.1 s to read and 0.3 s to render on a busy core: on the event loop they would
        hold up every other request).

        Raises:
            RequestError: a bad input (422 naming ``inputs[i].FIELD``, or ``FIELD`` where
                ``prefix`` is False), too many inputs (413), a full queue (503).
        """
        if len(inputs) > self.settings.max_inputs:
            raise RequestError(413, f"{len(inputs)} inputs; at most {self.settings.max_inputs} "
                               "a request (send several requests)", "inputs", len(inputs))
        self.check_options(options)
        by_model: dict[str, list[int]] = {}
        entries: dict[str, tuple[ShippedModel, str, str]] = {}
        known: dict[str, ShippedModel] = {}
        items = []
        for i, (lemma, tags, own) in enumerate(inputs):
            field = f"inputs[{i}]." if prefix else ""
            language = own or lang
            lang_field = f"{field}lang" if own else "lang"
            if not language:
                raise RequestError(422, "give the language (lang): any name or code, e.g. german",
                                   lang_field, None)
            entry = known.get(language)
            if entry is None:
                entry = known[language] = self.entry(language, lang_field)
            entries.setdefault(entry.name, (entry, language, lang_field))
            by_model.setdefault(entry.name, []).append(i)
            items.append((lemma, tags, language, field))
        predictors = {name: await self.model(*entries[name][1:]) for name in by_model}

        def rendered(records: list[Prediction]) -> list[Any]:
            return [render(r) for r in records]  # type: ignore[misc]

        calls = [
            self._searched(
                self.batcher.inflect(self.pool.predictor(predictors[name], options),
                                     [items[i] for i in where], make=_query_of_item,
                                     finish=rendered if render is not None else None),
                [(items[i][3], i) for i in where],
            )
            for name, where in by_model.items()
        ]
        answers = await asyncio.gather(*calls)
        records: list[Any] = [None] * len(inputs)
        for where, found in zip(by_model.values(), answers, strict=True):
            for i, record in zip(where, found, strict=True):
                records[i] = record
        return records

    async def paradigm(self, lang: str | None, lemma: str, pos: str | None,
                       options: SearchOptions,
                       render: Callable[[Paradigm, str | None], Any] | None = None) -> Any:
        """The paradigm of ``lemma`` (``inflect paradigm``'s), its cells searched in pieces in
        turn with other requests; with ``render``, ``render(paradigm, model name)`` made on the
        search thread (part of the request's measured work).

        Raises:
            RequestError: a bad language, lemma or part of speech (422 naming it), a full queue.
        """
        if not lang:
            raise RequestError(422, "give the language (lang): any name or code, e.g. finnish",
                               "lang", None)
        problem = control_problem(lemma, "lemma")
        try:
            if problem is not None:
                raise InputError(problem, lemma)
            lemma = strip_lemma(lemma)
        except InputError as exc:
            raise RequestError(422, str(exc), "lemma", lemma) from None
        self.check_options(options)
        base = await self.model(lang, "lang")
        paradigms = self.pool.paradigms(base, options)
        name = resolve(lang).name
        try:
            paradigms.parts_of_speech(name)
        except ParadigmError as exc:
            raise RequestError(422, str(exc), "lang", lang) from None
        try:
            plan = paradigms.plan(lemma, name, pos)
        except ParadigmError as exc:  # worded for the command line: its --pos is our pos
            message = str(exc).replace(" (or a second column in --input)", "")
            raise RequestError(422, message.replace("--pos", "pos"), "pos", pos) from None
        except InputError as exc:
            raise RequestError(422, str(exc), "lemma", lemma) from None
        # the cells searched in pieces, in turn with other requests, by the predictor of the
        # same options as GET /v1/inflect's (the same records: batch composition changes none)
        def finish(records: list[Any]) -> Any:
            found = plan.finish(records)
            return found if render is None else render(found, base.model_name)

        searching = self.batcher.inflect(self.pool.predictor(base, options), plan.queries,
                                         finish=finish)
        try:
            return await self._searched(searching, [("", i) for i in range(len(plan.queries))])
        except RequestError as exc:
            if exc.status != 422:
                raise
            raise RequestError(422, exc.message, "lemma", lemma) from None
        except InputError as exc:  # finish: a record that is an error (the lemma itself)
            raise RequestError(422, str(exc), "lemma", lemma) from None
