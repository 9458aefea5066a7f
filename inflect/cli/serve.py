"""`inflect serve`: a local HTTP service (a JSON API and a lookup page) that keeps the models
loaded, so a query costs a search, not a start of Python and PyTorch."""

from __future__ import annotations

import click

from inflect import defaults
from inflect.cli.options import (
    device_option,
    language_list,
    lexicon_option,
    models_dir_option,
    threads_option,
)


@click.command("serve")
@click.option("--host", default=defaults.SERVE_HOST, show_default=True,
              help="Address to listen on; 0.0.0.0 opens the service to the network (it has no "
                   "authentication: put it behind a proxy that has).")
@click.option("--port", type=click.IntRange(0, 65535), default=defaults.SERVE_PORT,
              show_default=True, help="Port to listen on (0: any free port, printed).")
@click.option("--lang", "languages", multiple=True, callback=language_list,
              help="Load these languages' models at the start (repeatable, or a,b); the others "
                   "are loaded on first use.")
@click.option("--model", "user_models", is_eager=True, multiple=True, metavar="NAME=PATH",
              help="Serve your model (a run folder or checkpoint, e.g. trained on your files) "
                   "for the language NAME, beside the shipped models and instead of a shipped "
                   "one of NAME (repeatable); PATH alone: for every language it knows. Listed "
                   "in /v1/models.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes, each with its own models and search thread (on 2 cores, 1 "
                   "searches fastest: its batches already use every thread).")
@click.option("--max-models", type=click.IntRange(min=1), default=defaults.SERVE_MAX_MODELS,
              show_default=True,
              help="Models kept loaded at once; loading one more gives up the least recently "
                   "used (a multilingual model serves many languages).")
@click.option("--max-queue", type=click.IntRange(min=1), default=defaults.SERVE_MAX_QUEUE,
              show_default=True,
              help="Inputs waiting for the search at most; beyond, a request is answered 503 "
                   "with Retry-After (a request is taken whole when nothing waits, so one "
                   "request of up to --max-inputs always gets through).")
@click.option("--max-wait", type=click.FloatRange(min=0), default=defaults.SERVE_MAX_WAIT,
              show_default=True,
              help="Seconds a request may expect to wait, its own work included (at the "
                   "measured cost of its model and lexicons); beyond, 503 with Retry-After, and "
                   "/healthz answers 503 while the queued work is over it.")
@click.option("--read-timeout", type=click.FloatRange(min=0, min_open=True),
              default=defaults.SERVE_READ_SECONDS, show_default=True,
              help="Seconds a client has to send a request's headers, and then its body; beyond, "
                   "408 and the connection is closed (slow or stalled clients hold no "
                   "connection for ever).")
@click.option("--max-inputs", type=click.IntRange(min=1), default=defaults.SERVE_MAX_INPUTS,
              show_default=True, help="Inputs of one POST /v1/inflect at most (413 beyond).")
@click.option("--batch-window", type=click.FloatRange(0, 1), default=defaults.SERVE_BATCH_WINDOW,
              show_default=True,
              help="Seconds the search waits for concurrent requests to join a batch (only "
                   "while requests come together; a lone client is answered at once).")
@lexicon_option
@click.option("--no-lexicon", is_flag=True, default=False,
              help="Offer no attested forms: the model alone (a request may also ask for that "
                   "with no_lexicon).")
@device_option
@threads_option
@models_dir_option
def serve_command(host, port, languages, user_models, workers, max_models, max_queue, max_wait,
                  read_timeout, max_inputs, batch_window, lexicon_files, no_lexicon, device,
                  threads, models_dir):
    """Serve predictions over HTTP: a JSON API and a lookup page, the models loaded once.

    Then: curl 'localhost:8000/v1/inflect?lang=german&lemma=Haus&tags=N;DAT;PL' answers the
    record `inflect predict --format jsonl` writes (tags in any dialect; tag_format=ud, as
    --tag-format, forces one); POST /v1/inflect takes many inputs
    ({"lang": "german", "inputs": [{"lemma": "Haus", "tags": "N;DAT;PL"}]});
    GET /v1/paradigm?lang=finnish&lemma=talo&pos=N a paradigm; GET /v1/models, /healthz;
    /openapi.json the schema; http://localhost:8000/ the lookup page. Concurrent requests are
    searched together; SIGTERM or Ctrl-C answers the requests in flight, then stops.

    Needs the serve extra: pip install 'sparse-inflect[serve]'.
    """
    import os
    import warnings

    from inflect.cli.resolve import check_no_lexicon, set_threads

    set_threads(threads)
    if no_lexicon:
        check_no_lexicon(lexicon_files)
        lexicon_files = ()  # INFLECT_LEXICON alone: --no-lexicon overrides it
    try:
        import uvicorn  # noqa: F401 (the extra's presence)

        from inflect.serve.app import create_app
        from inflect.serve.protocol import TimedH11Protocol
        from inflect.serve.service import SETTINGS_ENV, ServeSettings
    except ImportError as exc:
        raise click.ClickException(
            f"inflect serve needs FastAPI and uvicorn ({exc.name} is missing): "
            "pip install 'sparse-inflect[serve]'") from None
    from inflect.inference.registry import NoDefaultModelError, RegistryError, default_model
    from inflect.nn.threads import choose_threads
    from inflect.nn.vocab import UnknownSymbolWarning
    from inflect.serve.running import ServerError, check_address, run_server

    served = _user_models(user_models)
    try:  # before any model loads: the address (a port in use, a bad --host), the models
        check_address(host, port)
        for language in languages:
            if not any(name == language for name, _ in served):
                default_model(language, models_dir)
    except (ServerError, ValueError, NoDefaultModelError, RegistryError) as exc:
        raise click.ClickException(str(exc)) from None
    warnings.simplefilter("ignore", UnknownSymbolWarning)  # kept in each record instead
    settings = ServeSettings(
        languages=tuple(languages), max_models=max_models, device=device,
        models_dir=models_dir, lexicon_files=tuple(lexicon_files), no_lexicon=no_lexicon,
        threads=choose_threads(threads), window=batch_window, max_queue=max_queue,
        max_wait=max_wait, read_seconds=read_timeout, max_inputs=max_inputs, models=served,
    )
    common = {"host": host, "port": port, "log_level": "info", "http": TimedH11Protocol,
              "timeout_graceful_shutdown": int(defaults.SERVE_SHUTDOWN_SECONDS)}
    if workers > 1:
        os.environ[SETTINGS_ENV] = settings.to_json()
        app, common["factory"] = "inflect.serve.app:app_from_environment", True
    else:
        try:
            app = create_app(settings)
        except (ValueError, LookupError, OSError) as exc:
            raise click.ClickException(str(exc)) from None
    try:  # Ctrl-C: KeyboardInterrupt, exit status 130 (inflect.cli.group)
        run_server(app, workers=workers, **common)
    except ServerError as exc:
        raise click.ClickException(str(exc)) from None


def _user_models(given: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``--model NAME=PATH`` (or ``PATH``) as ``(language, path)`` pairs, each checked: the
    checkpoint is readable and knows the language (a path that is a file or folder named with
    ``=`` is taken whole)."""
    import os

    from inflect.inference.user_models import user_model_language
    from inflect.nn.checkpoint import CheckpointError

    pairs: list[tuple[str, str]] = []
    for text in given:
        name, sep, path = text.partition("=")
        if not sep or os.path.exists(text):
            name, path = None, text
        try:
            pairs += [(language, path) for language in user_model_language(name, path)]
        except (ValueError, FileNotFoundError, CheckpointError) as exc:
            raise click.BadParameter(str(exc), param_hint="--model") from None
    return tuple(pairs)
