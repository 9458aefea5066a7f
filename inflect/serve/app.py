"""The ASGI application of ``inflect serve`` (FastAPI): the JSON API under ``/v1``, its OpenAPI
schema, the health check and the lookup page.

| route | answer |
|---|---|
| ``POST /v1/inflect`` | ``{"results": [record, ...]}``, a record per input in order |
| ``GET /v1/inflect?lang=&lemma=&tags=`` | the record of one input |
| ``GET /v1/paradigm?lang=&lemma=&pos=`` | the paradigm, its cells as ``inflect paradigm`` writes them |
| ``GET /v1/models`` | each language's model, those loaded, the lexicons offered |
| ``GET /healthz`` | ready: ``{"status": "ok", "ready": true, ...}``; busy: the same, 503 |
| ``GET /livez`` | ``{"status": "alive"}`` while the process serves |
| ``GET /openapi.json`` | the schema of all of the above |
| ``GET /`` | the lookup page (:mod:`inflect.serve.page`) |

A record is written by :func:`inflect.render.jsonl.prediction_jsonl`, byte for byte the line
``inflect predict --format jsonl`` writes; a cell by :func:`inflect.render.jsonl.paradigm_jsonl`.
A refused request is a 4xx JSON object naming the field and the value
(:mod:`inflect.serve.errors`), an unknown query parameter too (422); what every request must be
before it is read (UTF-8 text, JSON numbers, a bounded body sent in a bounded time) is checked by
:class:`inflect.serve.guard.RequestGuard`, which also answers HEAD as GET; a method a path does
not take is a 405 with ``Allow``; a full queue answers 503 with ``Retry-After``; an unexpected
failure is a 500 with a one-line message (the traceback goes to the log only). The app holds no state a request leaves behind
(the models it loads are a cache), so replicas behind a load balancer answer alike.
"""

from __future__ import annotations

import difflib
import json
import logging
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.routing import Match

from inflect import __version__, defaults
from inflect.inference.paradigm import Paradigm
from inflect.render.jsonl import paradigm_jsonl, prediction_jsonl
from inflect.serve.errors import RequestError, error_body, validation_error
from inflect.serve.guard import READ_SECONDS, RequestGuard
from inflect.serve.page import Lookup, lookup_page
from inflect.serve.schema import (
    SIBLINGS_HELP,
    TAG_FORMAT_HELP,
    ErrorAnswer,
    Health,
    InflectAnswer,
    InflectRequest,
    Live,
    ModelsAnswer,
    ParadigmAnswer,
    PredictionRecord,
    Siblings,
)
from inflect.serve.service import ServeSettings, Service, options_of
from inflect.text.dialects import TagFormat

__all__ = ["app_from_environment", "create_app"]

log = logging.getLogger("inflect.serve")

_ERRORS: dict[int | str, dict[str, Any]] = {
    422: {"model": ErrorAnswer, "description": "A value that cannot be answered (field named)"},
    413: {"model": ErrorAnswer, "description": "Too many inputs, or a body too large"},
    503: {"model": ErrorAnswer, "description": "The queue is full (see Retry-After)"},
}

Beam = Annotated[int, Query(ge=1, le=defaults.MAX_BEAM_SIZE, description="Beam size k.")]
Support = Annotated[Literal["auto", "always", "never"], Query(description="As inflect predict's.")]
MaxForms = Annotated[int, Query(ge=1, le=defaults.MAX_FORMS_LIMIT, description="Forms at most.")]
Text = Annotated[str, Query(min_length=1, max_length=defaults.SERVE_MAX_TEXT_CHARS)]
Lexicon = Annotated[list[str] | None, Query(description="A lexicon to consult (repeatable).")]
TagFormatQuery = Annotated[TagFormat, Query(description=TAG_FORMAT_HELP)]
SiblingsQuery = Annotated[Siblings, Query(description=SIBLINGS_HELP)]


def _json(text: str) -> Response:
    return Response(content=text, media_type="application/json")


def _paradigm_json(paradigm: Paradigm, model: str | None) -> str:
    """A paradigm as ``{"lemma", "language", "pos", "model", "cells_from", "warnings", "cells"}``,
    each cell the JSON Lines record of ``inflect paradigm`` as written there."""
    head = json.dumps(
        {
            "lemma": paradigm.lemma,
            "language": paradigm.language,
            "pos": paradigm.part_of_speech,
            "model": model,
            "cells_from": paradigm.cells_from,
            "warnings": list(paradigm.warnings),
        },
        ensure_ascii=False,
    )
    lines = paradigm_jsonl(paradigm).split("\n") if paradigm.cells else []
    return head[:-1] + ', "cells": [' + ", ".join(lines) + "]}"


def _allowed(app: FastAPI, scope: Any) -> str:
    """The ``Allow`` header of a path: the methods of every route at it (HEAD with GET)."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches(scope)
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


async def _known_parameters(request: Request) -> None:
    """Refuse a query parameter the route does not take (422 naming it), as a POST body's
    unknown field is refused: ``bea=3`` is a typo, not a request for the default beam."""
    route = request.scope.get("route")
    if route is None or not isinstance(route, APIRoute):
        return
    known = _parameter_names(route)
    for name in request.query_params:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise RequestError(422, f"unknown parameter {name!r}; {hint}{request.url.path} takes "
                               f"{', '.join(sorted(known)) or 'none'}", name,
                               request.query_params[name])


_NAMES: dict[int, frozenset[str]] = {}


def _parameter_names(route: APIRoute) -> frozenset[str]:
    """The query parameters of a route and its dependencies (by the name a client gives)."""
    found = _NAMES.get(id(route))
    if found is None:
        names, todo = set(), [route.dependant]
        while todo:
            dependant = todo.pop()
            names |= {p.alias for p in dependant.query_params}
            todo += dependant.dependencies
        found = _NAMES[id(route)] = frozenset(names)
    return found


KnownParameters = Depends(_known_parameters)


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestError)
    async def refused(request: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse(error_body(exc), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        error = validation_error(exc.errors())
        return JSONResponse(error_body(error), status_code=error.status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        headers = dict(exc.headers or {})
        message = str(exc.detail)
        if exc.status_code == 405:  # every method of the path, not only the first route's
            headers["Allow"] = _allowed(app, request.scope)
            message = f"{request.method} is not allowed here; {request.url.path} takes " + \
                headers["Allow"]
        error = RequestError(exc.status_code, message, None, request.url.path)
        return JSONResponse(error_body(error), status_code=exc.status_code, headers=headers)

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        error = RequestError(500, f"internal error: {type(exc).__name__}: {exc}")
        return JSONResponse(error_body(error), status_code=500)


def _api_routes(app: FastAPI, service: Service) -> None:
    @app.post("/v1/inflect", response_model=InflectAnswer, responses=_ERRORS, tags=["inflect"],
              dependencies=[KnownParameters], summary="Every form of nonzero probability of each input, with its certificate")
    async def inflect_many(request: InflectRequest) -> Response:
        options = options_of(request.beam, request.support, request.max_forms, request.lexicon,
                             request.no_lexicon, request.tag_format, request.siblings)
        inputs = [(i.lemma, i.tags, i.lang) for i in request.inputs]
        lines = await service.inflect(inputs, request.lang, options, render=prediction_jsonl)
        return _json('{"results": [' + ", ".join(lines) + "]}")

    @app.get("/v1/inflect", response_model=PredictionRecord, responses=_ERRORS,
             tags=["inflect"], dependencies=[KnownParameters], summary="One input: the record inflect predict writes")
    async def inflect_one(lang: Text, lemma: Text, tags: Text, beam: Beam = defaults.BEAM_SIZE,
                          support: Support = "auto", max_forms: MaxForms = defaults.MAX_FORMS,
                          lexicon: Lexicon = None, no_lexicon: bool = False,
                          tag_format: TagFormatQuery = "auto",
                          siblings: SiblingsQuery = "auto") -> Response:
        options = options_of(beam, support, max_forms, lexicon, no_lexicon, tag_format, siblings)
        [line] = await service.inflect([(lemma, tags, None)], lang, options, prefix=False,
                                       render=prediction_jsonl)
        return _json(line)

    @app.get("/v1/paradigm", response_model=ParadigmAnswer, responses=_ERRORS,
             tags=["paradigm"], dependencies=[KnownParameters], summary="Every cell of a lemma's paradigm")
    async def paradigm(lang: Text, lemma: Text, pos: str | None = None,
                       beam: Beam = defaults.BEAM_SIZE, support: Support = "auto",
                       max_forms: MaxForms = defaults.MAX_FORMS,
                       lexicon: Lexicon = None, no_lexicon: bool = False,
                       siblings: SiblingsQuery = "auto") -> Response:
        options = options_of(beam, support, max_forms, lexicon, no_lexicon, siblings=siblings)
        return _json(await service.paradigm(lang, lemma, pos, options, render=_paradigm_json))

    @app.get("/v1/models", response_model=ModelsAnswer, tags=["service"],
             dependencies=[KnownParameters], summary="Each language's model, the models loaded, the lexicons offered")
    async def models() -> dict[str, Any]:
        loaded = set(service.pool.loaded)
        return {
            "models": [
                {"language": m.language, "model": m.name, "setting": m.setting,
                 "dev_accuracy": m.dev_accuracy, "loaded": m.name in loaded}
                for m in service.catalogue
            ],
            "loaded": list(service.pool.loaded),
            "max_models": service.pool.max_models,
            "lexicons": list(service.pool.lexicon_names),
        }

    @app.get("/healthz", response_model=Health, tags=["service"], dependencies=[KnownParameters],
             summary="Ready for more work: 200, or 503 with Retry-After while the queue is over "
             "its limit (a load balancer's readiness check)",
             responses={503: {"model": Health, "description": "Busy or stopping: send elsewhere"}})
    async def health() -> JSONResponse:
        batcher = service.batcher
        ready = not batcher.over_limit
        answer = {
            "status": "ok" if ready else ("stopping" if batcher.stopping else "busy"),
            "ready": ready, "loaded": list(service.pool.loaded), "waiting": batcher.waiting,
            "searching": batcher.searching, "batches": batcher.batches,
            "searched": batcher.searched,
            "queued_seconds": round(batcher.queued_seconds, 3), "max_queue": batcher.max_queue,
            "max_wait": batcher.max_wait,
        }
        if ready:
            return JSONResponse(answer)
        wait = batcher.retry_after(batcher.queued_seconds - batcher.max_wait)
        return JSONResponse(answer, status_code=503, headers={"Retry-After": str(wait)})

    @app.get("/livez", response_model=Live, tags=["service"], dependencies=[KnownParameters],
             summary="Alive (200 while the process serves, busy or not: a liveness check that "
             "must not restart a busy service)")
    async def live() -> dict[str, str]:
        return {"status": "alive"}


def _page_route(app: FastAPI, service: Service) -> None:
    from inflect.inference.paradigm_cells import CellCatalogue
    from inflect.serve.models import SearchOptions
    from inflect.text.languages import resolve
    from inflect.text.records import TagBundle
    from inflect.text.unimorph import part_of_speech

    catalogue = CellCatalogue(tables=service.pool.cell_tables)
    languages = sorted(
        ((m.language, f"{resolve(m.language).display_name} ({m.language})")
         for m in service.catalogue),
        key=lambda pair: pair[1].casefold(),
    )
    served = {name for name, _ in languages}
    default = next((x for x in (*service.settings.languages, "german") if x), None)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page(lang: str = "", lemma: str = "", tags: str = "", pos: str = "") -> HTMLResponse:
        lookup = Lookup(lang or default or (languages[0][0] if languages else ""), lemma, tags, pos)
        status, prediction, paradigm, error, rtl = 200, None, None, None, False
        choices: list[str] = []
        try:
            spec = resolve(lookup.lang)
            rtl = spec.direction == "rtl"
            if spec.name in served:
                lookup = Lookup(spec.name, lemma, tags, pos)
            choices = list(catalogue.parts_of_speech(spec.name))
        except ValueError:  # an unknown language, a language without cells: said below
            pass
        try:
            if lemma.strip() and tags.strip():
                [prediction] = await service.inflect([(lemma, tags, None)], lookup.lang,
                                                     SearchOptions(), prefix=False)
            if lemma.strip() and (pos.strip() or not tags.strip()):
                paradigm = await service.paradigm(lookup.lang, lemma, pos.strip() or None,
                                                  SearchOptions())
        except RequestError as exc:
            status, error = exc.status, exc.message
        linked = None
        if prediction is not None:  # the bundle asked: UD or UniMorph 4 tags read as 2018's
            try:
                linked = part_of_speech(TagBundle.parse(prediction.asked_tags).features)
            except ValueError:
                linked = None
        html = lookup_page(lookup, languages, prediction=prediction, paradigm=paradigm,
                           error=error, pos_choices=choices, paradigm_pos=linked, rtl=rtl)
        return HTMLResponse(html, status_code=status)


def create_app(settings: ServeSettings | None = None) -> FastAPI:
    """The application of a service with ``settings`` (default: :class:`ServeSettings`'s).

    Raises:
        ValueError, LexiconError, DataFormatError, OSError: a bad setting or lexicon file.
        RegistryError: a broken models folder.
    """
    service = Service(settings or ServeSettings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        await service.start()
        try:
            yield {READ_SECONDS: service.settings.read_seconds}  # for TimedH11Protocol
        finally:
            await service.close()

    app = FastAPI(
        title="sparse-inflect",
        version=f"1 (sparse-inflect {__version__})",
        summary="Morphological inflection: every form of nonzero probability, its probability "
        "and a certificate of exact search.",
        docs_url=None,  # Swagger UI fetches its assets from a CDN; the schema is /openapi.json
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.service = service
    _handlers(app)
    _api_routes(app, service)
    _page_route(app, service)
    app.add_middleware(RequestGuard, limit=service.settings.max_body_bytes,
                       seconds=service.settings.read_seconds)
    return app


def app_from_environment() -> FastAPI:
    """The application of the settings in ``$INFLECT_SERVE_SETTINGS`` (``inflect serve
    --workers N``: each worker process makes its own)."""
    return create_app(ServeSettings.from_environment())
