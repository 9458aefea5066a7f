"""Every default of sparse-inflect in one place (imported by the modules that use them).

Search (Peters, Niculae & Martins 2019, section 5: beam 5): :data:`BEAM_SIZE`,
:data:`WIDE_BEAM_SIZE`, :data:`MAX_BEAM_SIZE`, :data:`MAX_FORMS`, :data:`MAX_FORMS_LIMIT`,
:data:`CHUNK_SIZE`, :data:`STREAM_IDLE_SECONDS`, :func:`max_output_length`,
:func:`fallback_output_length`, :func:`output_length_margin`.
Paradigms: :data:`PARADIGM_SURE`, :data:`PARADIGM_FOLD_BELOW`, :data:`PARADIGM_CHUNK_SIZE`.
Data: :data:`SETTINGS`.
Training: :data:`CHECKPOINT_SECONDS`, :data:`DEV_SAMPLE_SEED`.
Search limits: :data:`SEARCH_MAX_LEN`, :data:`SUPPORT_MAX_EXPANSIONS`, :data:`SUPPORT_WIDTH`.
Service (``inflect serve``): the ``SERVE_*`` values at the end.
"""

from __future__ import annotations

#: Training-data settings of CoNLL–SIGMORPHON 2018 task 1, largest first.
SETTINGS: tuple[str, ...] = ("high", "medium", "low")

#: Beam size k of prediction and evaluation (the paper's).
BEAM_SIZE = 5
#: The beam an input is searched again with when its support was not certified at BEAM_SIZE.
WIDE_BEAM_SIZE = 20
#: The largest beam the command line accepts.
MAX_BEAM_SIZE = 256
#: Forms listed per input by default (``--max-forms``, the service's ``max_forms``).
MAX_FORMS = 100
#: The largest ``max_forms`` every interface accepts (``inflect predict``/``paradigm``/
#: ``translate --max-forms``, the service's ``max_forms``): the one limit, kept here. Beam
#: widening stops at MAX_BEAM_SIZE and support enumeration at SUPPORT_MAX_EXPANSIONS prefixes
#: an input, so more forms than this are not found anyway.
MAX_FORMS_LIMIT = 1000
#: Inputs searched together by prediction (one encoder pass and one beam over all of them).
CHUNK_SIZE = 256
#: Seconds without a new input line (a terminal, a pipe that stays open) after which the lines
#: read so far are searched and answered, fewer than CHUNK_SIZE (:mod:`inflect.inference.streaming`).
STREAM_IDLE_SECONDS = 0.15

#: Paradigms (``inflect paradigm``): a cell is *uncertain* (marked so) when no form of it is
#: attested and its most probable form has less than this probability (or no certificate);
#: forms below PARADIGM_FOLD_BELOW are folded under the cell's first ones; a paradigm's
#: predictor searches at least PARADIGM_CHUNK_SIZE inputs together, so that every paradigm of
#: the shipped cells (at most 1,655 cells: Basque verbs) is one batch.
PARADIGM_SURE = 0.9
PARADIGM_FOLD_BELOW = 0.05
PARADIGM_CHUNK_SIZE = 2048

#: Terminal tables (:mod:`inflect.render.common`): a column of text is narrowed to no fewer than
#: TABLE_TEXT_MIN_COLUMNS (its words folded) before a table gives way to plain lines; numbers
#: are never narrowed. A ``$COLUMNS`` that is not a whole number of at least
#: TERMINAL_MIN_COLUMNS (``COLUMNS=0``) is not taken for the terminal's width.
TABLE_TEXT_MIN_COLUMNS = 8
TERMINAL_MIN_COLUMNS = 20

#: Seconds between two saves of the trainer state inside an epoch (an interrupted run loses at
#: most this much work).
CHECKPOINT_SECONDS = 300.0
#: Seed of the per-language dev sample used for model selection (fixed, so that the members of
#: an ensemble and runs of different seeds are selected on the same words).
DEV_SAMPLE_SEED = 2018
#: The largest seed a run takes (``--seed``): 2^32 - 1, what every generator it seeds accepts.
MAX_SEED = 2**32 - 1

#: The largest ``TrainConfig.hallucinate`` (``inflect train --hallucinate``) and
#: ``TrainConfig.long_pairs`` (``--long-pairs``): pairs per language.
MAX_HALLUCINATE = 1_000_000


def max_output_length(source_length: int) -> int:
    """The floor of every output length limit for a source of ``source_length`` symbols:
    ``2·S + 10`` (the limit of earlier versions, searched per batch; no limit is lower)."""
    return 2 * source_length + 10


def fallback_output_length(source_length: int) -> int:
    """The output length limit of a model whose checkpoint records no output lengths (one
    written before the record, :mod:`inflect.nn.lengths`): ``2·S + 30`` for a source of ``S``
    symbols. Every gold form of the CoNLL–SIGMORPHON 2018 dev files is within ``2·S + 20``
    (43 of them beyond the old ``2·S + 10``); 10 more are margin."""
    return 2 * source_length + 30


def output_length_margin(longest: int) -> int:
    """Symbols added to the longest output the training data have for a source length
    (:mod:`inflect.nn.lengths`): ``10 + longest // 4``."""
    return 10 + longest // 4


# --------------------------------------------------------------------------------------------
# Search limits (inflect.decoding): what one search call uses where its caller gives no value.

#: Largest number of output symbols (EOS not counted) of a search called without ``max_len``
#: (:mod:`inflect.decoding.greedy`, :mod:`~inflect.decoding.beam`,
#: :mod:`~inflect.decoding.support`; 0.1's ``inflect.search.DEFAULT_MAX_LEN``). Prediction gives
#: every input its own limit instead (:func:`max_output_length`, :mod:`inflect.nn.lengths`).
SEARCH_MAX_LEN = 100
#: Most prefixes support enumeration expands per input (a guard for dense, e.g. softmax, models,
#: whose support is every string): reaching it sets ``SupportResult.hit_budget``.
SUPPORT_MAX_EXPANSIONS = 2_000
#: Prefixes support enumeration expands together per input and round (one ``step`` call).
SUPPORT_WIDTH = 8

# ------------------------------------------------------------------------------ training
# Training (inflect.training), besides CHECKPOINT_SECONDS and DEV_SAMPLE_SEED above:
# EVAL_BATCH_SIZE, LENGTH_POOL_BATCHES, ESTIMATE_AFTER_BATCHES, QUEUE_POLL_SECONDS.

#: Dev examples per batch of dev evaluation (:func:`inflect.training.dev.evaluate_dev`; the
#: figures are the same at any size), the default of ``TrainConfig.eval_batch_size``: 128 is
#: about 30% faster on a CPU than 500, whose (B, S, 4H) copies miss the cache.
EVAL_BATCH_SIZE = 128
#: Batches per pool of an epoch's shuffled batches
#: (:func:`inflect.training.sampling.shuffled_batches`): the rows of a pool are sorted by target
#: length before they are cut into batches.
LENGTH_POOL_BATCHES = 16
#: Batches after which a run estimates its time (the "estimate" progress event).
ESTIMATE_AFTER_BATCHES = 50
#: Seconds between two looks of the per-language queue at its runs
#: (:func:`inflect.training.queue.run_queue`).
QUEUE_POLL_SECONDS = 5.0

# --------------------------------------------------------------------------- input limits
# Prediction (inflect.inference.predictor, inflect.inference.searcher) and translation
# (inflect.inference.translator).

#: The longest lemma, in model symbols, that the predictor accepts. The network itself has no
#: length limit; the cap bounds the search (each input's outputs are limited by
#: :func:`inflect.nn.lengths.output_limit`) and the memory of one batch.
MAX_INPUT_LEN = 100
#: The longest source sentence the translator accepts, in codec symbols (subword pieces).
MAX_SENTENCE_LEN = 200

# --------------------------------------------------------------------------------- service
# The HTTP service (``inflect serve``, :mod:`inflect.serve`).

#: Where the service listens: this machine only (``--host 0.0.0.0`` opens it to the network).
SERVE_HOST = "127.0.0.1"
SERVE_PORT = 8000
#: Seconds the search waits for more requests to join a batch, where the last batch had
#: company (a lone client is answered at once; :class:`inflect.serve.batching.Batcher`).
SERVE_BATCH_WINDOW = 0.03
#: Inputs of one batch at most (a request of more is searched in pieces, in turn with the
#: others: :class:`inflect.serve.batching.Batcher`).
SERVE_MAX_BATCH = CHUNK_SIZE
#: Seconds of work (as measured: the search and the lexicon lookups) of one batch: a request
#: waits behind at most one batch of a bulk client, so one word is answered within about twice
#: this.
SERVE_BATCH_SECONDS = 0.5
#: Inputs a batch holds at least (where as many wait), however dear they are measured: a search
#: call costs about as much for 1 input as for 16 (one encoder pass, the beam's steps over the
#: longest form: 0.26 s for 1, 0.35 s for 8, 0.6 s for 16 German words on a 2-core machine with
#: load average 14), so a budget met by fewer would search a few inputs a call at a tenth of the
#: rate.
SERVE_MIN_BATCH = 16
#: Seconds per input assumed of a predictor not yet measured (where none is: the dearest one
#: measured); a German word with the default lexicons costs about 3 ms on one core.
SERVE_COST_PRIOR = 0.01
#: Seconds a request may expect to wait (its own work included, at the measured costs); a
#: request beyond is answered 503 with Retry-After, and /healthz reports the service busy while
#: the queued work is over it. Under the 60 s after which clients and proxies commonly give up.
SERVE_MAX_WAIT = 30.0
#: Seconds a client has to send a request's headers (from its connection, or from the first
#: byte after its last answer), and then as many for its body; beyond, 408 and the connection
#: is closed: a client that sends nothing, or a byte now and then, keeps no connection (and so
#: no file descriptor) for ever. 20 s for a 1 MB body is 50 kB/s at least.
SERVE_READ_SECONDS = 20.0
#: Inputs of one ``POST /v1/inflect`` at most.
SERVE_MAX_INPUTS = 1000
#: Inputs waiting for the search at most (a bound on memory: the time a request may expect
#: to wait is SERVE_MAX_WAIT's); a request beyond is answered 503 with Retry-After.
SERVE_MAX_QUEUE = 10 * SERVE_MAX_INPUTS
#: Bytes of a request body at most (413 beyond).
SERVE_MAX_BODY_BYTES = 1_000_000
#: Characters of a lemma or tag bundle a request may hold (the model's own limit,
#: MAX_INPUT_LEN symbols, is checked after; this one bounds the work before it).
SERVE_MAX_TEXT_CHARS = 1000
#: Shipped models kept loaded at once (the least recently used is given up first).
SERVE_MAX_MODELS = 8
#: Seconds the service waits, after SIGTERM or Ctrl-C, for the requests in flight.
SERVE_SHUTDOWN_SECONDS = 30.0
