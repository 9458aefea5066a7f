"""The HTTP service (``inflect serve``): the JSON API, gathering concurrent requests into one
batched search, and the lookup page.

- :mod:`.models`: each language's shipped model loaded on first use and kept (at most
  ``max_models``), the predictors made of it for each choice of search options and lexicons;
- :mod:`.batching`: one search thread; the requests that wait are cut into pieces and searched in
  turns, each batch about half a second of measured work, a bounded queue in front of it;
- :mod:`.errors`: a bad request as a 4xx JSON error naming the field and the value;
- :mod:`.page`: the lookup page (HTML, no script), built from :mod:`inflect.render`'s renderers;
- :mod:`.guard`: what a request must be before it is read (UTF-8, JSON numbers, a bounded body in
  a bounded time), and HEAD answered as GET;
- :mod:`.protocol`: uvicorn's HTTP connection with a time limit on a request's headers;
- :mod:`.app`: the ASGI application (FastAPI): routes, limits, its OpenAPI schema.

The answer to one input is the record ``inflect predict --format jsonl`` writes
(:func:`inflect.render.jsonl.prediction_jsonl`), a paradigm's cells the records of ``inflect
paradigm --format jsonl``: one schema for files and HTTP. FastAPI and uvicorn come with the
``serve`` extra (``pip install 'sparse-inflect[serve]'``); importing this package does not import
them.
"""
