"""The service's parts without a server: the batcher's gathering, chunking, refusals, bounded
queue and draining (with a recording predictor whose searches are held until the test lets
them go, so each batch's composition is known), the error bodies, and the lookup page parsed
with lxml (built from the paradigm page's renderers: the grid checked by the paradigm page's own
test).
"""

from __future__ import annotations

import asyncio
import threading

import lxml.html
import pytest
from test_paradigm_browser import _check, small_paradigm
from test_report_html import HOSTILE

from inflect.decoding.protocol import Certificate
from inflect.inference.outcomes import Form, Prediction
from inflect.inference.queries import InputError, make_query
from inflect.render.common import CERTIFICATE_BADGES
from inflect.serve.batching import Batcher, QueueFull, Rejected, _shares
from inflect.serve.errors import field_path, validation_error
from inflect.serve.page import Lookup, lookup_page


class Clock:
    """A clock of work done: each predictor's :meth:`Recording.run` moves it on by its cost per
    input, so the batcher's measured costs are the ones a test gives (not the machine's)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Recording:
    """A predictor that answers ``LEMMA!`` for each input, records the lemmas of each
    :meth:`run` call, costs ``cost`` seconds an input on ``clock``, and holds its first call
    until :attr:`go` is set."""

    def __init__(self, chunk_size: int = 256, clock: Clock | None = None,
                 cost: float = 0.001, fixed: float = 0.0) -> None:
        self.chunk_size, self.calls, self.go = chunk_size, [], threading.Event()
        self.started, self.clock, self.cost, self.fixed = threading.Event(), clock, cost, fixed

    def codec(self, language):
        if language == "xx":
            raise InputError("the model was not trained on xx", None)

    def prepare(self, query):
        if query.lemma == "bad":
            raise InputError("lemma of 200 symbols is longer than the model's limit", "bad")
        return query

    def run(self, items):
        self.started.set()
        assert self.go.wait(timeout=30)
        self.calls.append([q.lemma for q in items])
        if self.clock is not None:
            self.clock.now += self.fixed + self.cost * len(items)
        return [q.lemma + "!" for q in items]


def queries(*lemmas, lang="de"):
    return [make_query(lemma, "N;DAT;PL", lang) for lemma in lemmas]


async def _held(batcher: Batcher, first: Recording):
    """Start the batcher with a search of ``first`` in flight (held until ``first.go``)."""
    await batcher.start()
    task = asyncio.ensure_future(batcher.inflect(first, queries("a")))
    while not first.started.is_set():
        await asyncio.sleep(0.001)
    return task


def test_requests_that_wait_are_searched_together_one_run_per_predictor():
    async def scenario():
        clock = Clock()
        one, two = Recording(clock=clock), Recording(clock=clock, cost=0.002)
        two.go.set()
        batcher = Batcher(window=0.0, clock=clock, batch_seconds=0.25)
        held = await _held(batcher, one)
        b = asyncio.ensure_future(batcher.inflect(one, queries("b1", "b2")))
        c = asyncio.ensure_future(batcher.inflect(two, queries("c1", "c2", "c3")))
        d = asyncio.ensure_future(batcher.inflect(one, queries("d1", "bad", "d3")))
        e = asyncio.ensure_future(batcher.inflect(one, queries("e1", lang="xx")))
        f = asyncio.ensure_future(batcher.inflect(one, queries("f1")))
        await asyncio.sleep(0.05)
        assert batcher.waiting == 2 + 3 + 3 + 1 + 1
        one.go.set()
        assert await held == ["a!"]
        assert await b == ["b1!", "b2!"] and await c == ["c1!", "c2!", "c3!"]
        assert await f == ["f1!"]
        with pytest.raises(Rejected) as bad:
            await d
        assert (bad.value.index, bad.value.field, bad.value.value) == (1, "lemma", "bad")
        with pytest.raises(Rejected) as wrong:
            await e
        assert (wrong.value.index, wrong.value.field, wrong.value.value) == (0, "lang", "xx")
        # the first search alone; then every request that waited (their work, 1 ms an input,
        # is within the batch's 0.25 s): one run per predictor, the refused requests left out,
        # the others in their order
        assert one.calls == [["a"], ["b1", "b2", "f1"]] and two.calls == [["c1", "c2", "c3"]]
        assert batcher.batches == 2 and batcher.waiting == 0
        assert batcher.costs[one] == pytest.approx(0.001) and batcher.costs[two] == 0.002
        await batcher.close()

    asyncio.run(scenario())


def test_a_batch_is_searched_in_chunks_of_the_predictors_size():
    async def scenario():
        small = Recording(chunk_size=4)
        small.go.set()
        batcher = Batcher()
        await batcher.start()
        lemmas = [f"w{i}" for i in range(10)]
        assert await batcher.inflect(small, queries(*lemmas)) == [w + "!" for w in lemmas]
        assert small.calls == [lemmas[:4], lemmas[4:8], lemmas[8:]]
        await batcher.close()

    asyncio.run(scenario())


def test_shares_are_max_min_fair():
    # by hand: 0.25 s among needs of 0.001, 1 and 1: the small need whole, the rest halved
    assert _shares([1.0, 0.001, 1.0], 0.25) == pytest.approx([0.1245, 0.001, 0.1245])
    assert _shares([0.05, 0.05], 0.25) == [0.05, 0.05]  # every need met: no more given
    assert _shares([0.2, 0.1, 0.3], 0.3) == pytest.approx([0.1, 0.1, 0.1])
    assert sum(_shares([0.7, 0.01, 0.2, 5.0], 0.25)) == pytest.approx(0.25)


def test_a_one_word_request_waits_behind_one_batch_of_five_bulk_requests():
    """Five requests of 1,000 inputs (1 ms each: 5 s of work) wait; a one-word request that
    comes while one of their batches is searched is answered by the next batch, before any bulk
    request is done; every batch keeps to the budget (0.25 s: 250 inputs of 1 ms) and the bulk
    requests share each batch equally."""

    async def scenario():
        clock = Clock()
        bulk, word = Recording(clock=clock), Recording(clock=clock)
        word.go.set()
        batcher = Batcher(window=0.0, clock=clock, batch_seconds=0.25)
        batcher.costs[bulk] = batcher.costs[word] = 0.001
        held = await _held(batcher, bulk)
        big = [asyncio.ensure_future(batcher.inflect(bulk, queries(*[f"b{k}.{i}" for i in
                                                                     range(1000)])))
               for k in range(5)]
        await asyncio.sleep(0.01)
        assert batcher.waiting == 5000 and batcher.queued_seconds == pytest.approx(5.0)
        bulk.go.set()
        await held
        while batcher.batches < 3:  # two batches of the bulk requests are searched
            await asyncio.sleep(0.001)
        asked = batcher.batches
        assert await batcher.inflect(word, queries("one")) == ["one!"]
        assert batcher.batches - asked <= 2  # the batch in flight, then its own
        assert not any(task.done() for task in big)
        results = [await task for task in big]
        assert [len(r) for r in results] == [1000] * 5
        assert results[2][:3] == ["b2.0!", "b2.1!", "b2.2!"] and results[2][-1] == "b2.999!"
        sizes = [len(call) for call in bulk.calls[1:]]
        assert max(sizes) <= 250 and sum(sizes) == 5000
        per_request = [sum(1 for lemma in bulk.calls[1] if lemma.startswith(f"b{k}."))
                       for k in range(5)]
        assert per_request == [50] * 5  # 0.25 s shared equally: 50 inputs of 1 ms each
        await batcher.close()

    asyncio.run(scenario())


def test_the_cost_of_an_input_is_a_ratio_of_sums_and_a_new_predictor_costs_the_median():
    """A call costing 0.49375 s + 6.25 ms an input (0.5 s for one word, 0.59375 s for 16): the
    word's group alone measures 0.5 s an input; then the 16's, by hand: (0.7 x 0.5 + 0.59375) /
    (0.7 x 1 + 16) = 0.05651 (a mean of the two ratios would say 0.27). A predictor not yet
    measured costs the median of the measured (0.001, 0.05651, 2.0): 0.05651."""

    async def scenario():
        clock = Clock()
        slow = Recording(clock=clock, cost=0.00625, fixed=0.49375)
        slow.go.set()
        batcher = Batcher(window=0.0, clock=clock)
        await batcher.start()
        assert await batcher.inflect(slow, queries("w")) == ["w!"]
        assert batcher.costs[slow] == pytest.approx(0.5)
        await batcher.inflect(slow, queries(*[f"v{i}" for i in range(16)]))
        assert batcher.costs[slow] == pytest.approx((0.7 * 0.5 + 0.59375) / 16.7)
        cheap, dear, new = Recording(), Recording(), Recording()
        batcher.costs[cheap], batcher.costs[dear] = 0.001, 2.0
        assert batcher.cost(new) == pytest.approx(0.05651, abs=1e-5)
        await batcher.close()

    asyncio.run(scenario())


def test_a_batch_holds_min_batch_inputs_however_dear_they_are_measured():
    """At 0.1 s an input the 0.25 s budget holds 2; a search call costs about as much for 16,
    so a batch holds 16 (min_batch), shared by the two requests waiting: 8 each."""

    async def scenario():
        clock = Clock()
        dear = Recording(clock=clock, cost=0.1)
        batcher = Batcher(window=0.0, clock=clock, batch_seconds=0.25, min_batch=16)
        batcher.costs[dear] = 0.1
        held = await _held(batcher, dear)
        waiting = [asyncio.ensure_future(batcher.inflect(dear, queries(*[f"{k}.{i}" for i in
                                                                         range(40)])))
                   for k in range(2)]
        await asyncio.sleep(0.01)
        dear.go.set()
        await held
        assert [len(r) for r in [await w for w in waiting]] == [40, 40]
        assert [len(call) for call in dear.calls[1:]] == [16] * 5
        assert [lemma.split(".")[0] for lemma in dear.calls[1]] == ["0"] * 8 + ["1"] * 8
        await batcher.close()

    asyncio.run(scenario())


def test_a_cheap_group_is_answered_before_a_dear_group_of_its_batch_is_searched():
    async def scenario():
        clock = Clock()
        dear, cheap = Recording(clock=clock, cost=0.01), Recording(clock=clock)
        cheap.go.set()
        batcher = Batcher(window=0.0, clock=clock)
        batcher.costs[dear], batcher.costs[cheap] = 0.01, 0.001
        await batcher.start()
        slow = asyncio.ensure_future(batcher.inflect(dear, queries("x", "y")))
        fast = asyncio.ensure_future(batcher.inflect(cheap, queries("z")))
        assert await fast == ["z!"]
        while not dear.started.is_set():
            await asyncio.sleep(0.001)
        assert not slow.done()  # the dear group's run is held: the cheap one was answered
        dear.go.set()
        assert await slow == ["x!", "y!"]
        assert batcher.batches == 1
        await batcher.close()

    asyncio.run(scenario())


def test_a_request_in_pieces_is_finished_once_with_all_its_records_in_order():
    async def scenario():
        clock = Clock()
        cells = Recording(clock=clock)
        cells.go.set()
        batcher = Batcher(window=0.0, clock=clock, max_batch=4)
        await batcher.start()
        finished = []

        def finish(records):
            finished.append(list(records))
            return "paradigm of " + ",".join(records)

        answer = await batcher.inflect(cells, queries(*"abcdefghij"), finish=finish)
        assert answer == "paradigm of " + ",".join(c + "!" for c in "abcdefghij")
        assert len(finished) == 1 and cells.calls == [list("abcd"), list("efgh"), list("ij")]
        await batcher.close()

    asyncio.run(scenario())


def test_a_full_queue_refuses_and_close_answers_what_waits():
    async def scenario():
        one = Recording()
        batcher = Batcher(max_queue=3)
        held = await _held(batcher, one)
        waiting = [asyncio.ensure_future(batcher.inflect(one, queries("x", "y"))),
                   asyncio.ensure_future(batcher.inflect(one, queries("z")))]
        await asyncio.sleep(0.01)
        with pytest.raises(QueueFull) as full:
            await batcher.inflect(one, queries("w"))
        assert full.value.retry_after >= 1 and "3 inputs waiting" in str(full.value)
        assert batcher.over_limit
        closing = asyncio.ensure_future(batcher.close())
        await asyncio.sleep(0.01)
        with pytest.raises(QueueFull, match="stopping"):
            await batcher.inflect(one, queries("v"))
        one.go.set()
        await closing
        assert await held == ["a!"]
        assert [await w for w in waiting] == [["x!", "y!"], ["z!"]]

    asyncio.run(scenario())


def test_a_request_that_would_wait_too_long_is_refused_and_a_small_one_is_not():
    """The expected wait, by hand: the batch in flight (1 input of 0.01 s), the request's own
    work, and of each request waiting at most as much as its own: 3 requests of 100 inputs
    at 0.01 s wait; a fourth of 100 expects 0.01 + 1 + 3 x 1 = 4.01 s (over 3.5), one word
    0.01 + 0.01 + 3 x 0.01 = 0.05 s."""

    async def scenario():
        one = Recording()
        batcher = Batcher(max_wait=3.5)
        batcher.costs[one] = 0.01
        held = await _held(batcher, one)
        waiting = [asyncio.ensure_future(batcher.inflect(one, queries(*["w"] * 100)))
                   for _ in range(3)]
        await asyncio.sleep(0.01)
        assert batcher.expected_wait(100, one) == pytest.approx(4.01)
        assert batcher.expected_wait(1, one) == pytest.approx(0.05)
        with pytest.raises(QueueFull) as full:
            await batcher.inflect(one, queries(*["v"] * 100))
        assert "wait about 4 s, at most 3.5 s" in str(full.value)
        assert full.value.retry_after == 1  # ceil(4.01 - 3.5)
        assert batcher.queued_seconds == pytest.approx(3.0) and not batcher.over_limit
        small = asyncio.ensure_future(batcher.inflect(one, queries("u")))
        one.go.set()
        assert await held == ["a!"] and await small == ["u!"]
        assert [len(await w) for w in waiting] == [100] * 3
        await batcher.close()

    asyncio.run(scenario())


def test_the_queued_work_over_max_wait_is_over_the_limit():
    async def scenario():
        one = Recording()
        batcher = Batcher(max_wait=1.0)
        batcher.costs[one] = 0.01
        held = await _held(batcher, one)
        assert not batcher.over_limit
        waiting = asyncio.ensure_future(batcher.inflect(one, queries(*["w"] * 100)))
        await asyncio.sleep(0.01)
        assert batcher.queued_seconds == pytest.approx(1.0) and batcher.over_limit
        one.go.set()
        assert await held == ["a!"] and len(await waiting) == 100
        assert not batcher.over_limit
        await batcher.close()

    asyncio.run(scenario())


def test_a_call_runs_on_the_search_thread_in_turn():
    async def scenario():
        batcher = Batcher()
        await batcher.start()
        name = await batcher.call(lambda: threading.current_thread().name)
        assert name.startswith("inflect-search")
        assert await batcher.call(lambda: None) is None
        with pytest.raises(ZeroDivisionError):
            await batcher.call(lambda: 1 / 0)
        await batcher.close()

    asyncio.run(scenario())


def test_settings_are_checked():
    with pytest.raises(ValueError, match="max_queue"):
        Batcher(max_queue=0)
    with pytest.raises(ValueError, match="window"):
        Batcher(window=-1)
    with pytest.raises(ValueError, match="max_wait"):
        Batcher(max_wait=float("nan"))


# ------------------------------------------------------------------ error bodies


def test_a_validation_error_names_the_field_and_the_value():
    assert field_path(("body", "inputs", 2, "tags")) == "inputs[2].tags"
    assert field_path(("query", "beam")) == "beam" and field_path(("body",)) == "body"
    error = validation_error([{"type": "greater_than_equal", "loc": ("query", "beam"),
                               "msg": "Input should be greater than or equal to 1", "input": "0"}])
    assert (error.status, error.field, error.value) == (422, "beam", "0")
    assert error.message == "beam: Input should be greater than or equal to 1"
    missing = validation_error([{"type": "missing", "loc": ("query", "tags"), "msg": "Field "
                                 "required", "input": None}])
    assert (missing.field, missing.value) == ("tags", None)
    whole = validation_error([{"type": "list_type", "loc": ("body", "inputs"), "msg": "Input "
                               "should be a valid list", "input": {"a": 1}}])
    assert (whole.field, whole.value) == ("inputs", None)  # an object is not echoed back


def test_a_value_outside_the_choices_is_named_with_the_choices():
    """pydantic's error of a Literal field (its shape: type, loc, msg, input, ctx.expected)."""
    error = validation_error([{"type": "literal_error", "loc": ("body", "tag_format"),
                               "msg": "Input should be 'auto', 'unimorph', 'unimorph4' or 'ud'",
                               "input": "UD", "ctx": {"expected": "'auto', 'unimorph', "
                                                                  "'unimorph4' or 'ud'"}}])
    assert (error.status, error.field, error.value) == (422, "tag_format", "UD")
    assert error.message == ("tag_format: unknown value 'UD'; choose one of 'auto', "
                             "'unimorph', 'unimorph4' or 'ud'")


def test_every_tag_format_choice_is_the_readers():
    """``--tag-format`` (written out in inflect.cli.options), the service's ``tag_format`` (GET
    and POST, in the OpenAPI schema) and the readers' :data:`TAG_FORMATS` name the same
    choices; every command that reads a tag bundle from the user takes ``--tag-format``."""
    import click

    from inflect.cli import main
    from inflect.serve.schema import InflectRequest
    from inflect.text.dialects import TAG_FORMATS

    assert TAG_FORMATS == ("auto", "unimorph", "unimorph4", "ud")
    schema = InflectRequest.model_json_schema()["properties"]["tag_format"]
    assert (tuple(schema["enum"]), schema["default"]) == (TAG_FORMATS, "auto")
    readers = {"predict": main.commands["predict"], "explain": main.commands["explain"],
               "evaluate": main.commands["evaluate"],
               "report ambiguity": main.commands["report"].commands["ambiguity"],
               "data check": main.commands["data"].commands["check"]}
    for name, command in readers.items():
        option = next((p for p in command.params if p.name == "tag_format"), None)
        assert option is not None, f"inflect {name} has no --tag-format"
        assert isinstance(option.type, click.Choice), name
        assert (tuple(option.type.choices), option.default) == (TAG_FORMATS, "auto"), name


# ------------------------------------------------------------------ the page

FORMS = (  # the record of get V;PST: the attested got, then the model's distribution (got again)
    Form("got", 0.0812, "shared-task data (english-train-high:8920)"),
    Form("geted", 0.4837),
    Form("getted", 0.4217),
    Form("got", 0.0812),
    Form("get", 0.0134),
)


def prediction(lemma="get", forms=FORMS, certificate=Certificate.FULL_SUPPORT):
    return Prediction(lemma, "V;PST", "english", None, "english-high", forms=forms,
                      certificate=certificate, more_than=None,
                      beam_certificate=Certificate.MODE_ONLY, method="beam",
                      warnings=("a note about <b>",))


LANGUAGES = [("english", "English (english)"), ("finnish", "Finnish (finnish)")]


def test_the_page_shows_the_attested_answer_first_then_the_model_s_forms_each_once():
    lookup = Lookup("english", "get", "V;PST", "")
    text = lookup_page(lookup, LANGUAGES, prediction=prediction(), paradigm_pos="V")
    assert "<script" not in text and "http" not in text  # nothing fetched, no absolute links
    doc = lxml.html.fromstring(text)
    form = doc.xpath("//form[@id='lookup']")[0]
    assert form.get("method") == "get"
    assert form.xpath(".//select/option[@selected]/@value") == ["english"]
    assert form.xpath(".//input[@name='lemma']/@value") == ["get"]
    [answer] = doc.xpath("//section[@id='answer']")
    assert answer.get("data-certificate") == "full_support" and answer.get("data-forms") == "5"
    assert [h.text_content() for h in answer.xpath(".//h3")] == [
        "attested", "the model's distribution (english-high)"]
    # the answer: got, its source and what the model gives it, and no bar
    [got] = answer.xpath(".//ol[@class='answers']/li")
    assert got.xpath("./span[@class='form']")[0].text == "got" and not got.xpath(".//i")
    assert got.xpath("./span[@class='src']")[0].text == "shared-task data (english-train-high:8920)"
    assert got.xpath("./span[@class='mp']")[0].text == "model: 0.0812"
    # then the model's forms of at least 5 %, each once: got is not listed again
    model = answer.xpath(".//div[contains(@class,'model')]")[0]
    assert [li.xpath("./span")[0].text for li in model.xpath(".//ol/li")] == ["geted", "getted"]
    assert model.xpath(".//ol/li//i/@style") == ["width:48.4%", "width:42.2%"]
    assert "+ 1 form below 5 %" in model.xpath(".//details/summary")[0].text
    assert "got" not in model.xpath(".//details/p")[0].text  # the tail: get alone
    assert model.xpath(".//span[contains(@class,'cert')]")[0].text == CERTIFICATE_BADGES[
        "full_support"]
    assert "warning: a note about <b>" in answer.text_content()  # escaped: text, no element
    assert answer.xpath(".//a[@id='paradigm-link']/@href") == ["?lang=english&lemma=get&pos=V"]
    assert doc.xpath("//a[@id='permalink']/@href") == ["?lang=english&lemma=get&tags=V%3BPST"]


def test_what_the_model_gives_an_attested_form_it_does_not_list():
    unlisted = (Form("got", 0.0, "a.tsv:1"), Form("geted", 0.6), Form("getted", 0.4))
    for certificate, words in ((Certificate.FULL_SUPPORT, "model: 0"),
                               (Certificate.MODE_ONLY, "model: not found")):
        text = lookup_page(Lookup("english", "get", "V;PST", ""), LANGUAGES,
                           prediction=prediction(forms=unlisted, certificate=certificate))
        doc = lxml.html.fromstring(text)
        assert doc.xpath("//ol[@class='answers']/li/span[@class='mp']")[0].text == words
    alone = lxml.html.fromstring(lookup_page(Lookup("english", "get", "V;PST", ""), LANGUAGES,
                                             prediction=prediction(forms=FORMS[1:3])))
    assert not alone.xpath("//ol[@class='answers']")  # nothing attested: the model's alone
    assert [h.text_content() for h in alone.xpath("//h3")] == [
        "the model's distribution (english-high)"]


def test_the_page_grid_is_the_paradigm_pages_and_user_text_is_escaped():
    lookup = Lookup("finnish", HOSTILE, "", "N")
    text = lookup_page(lookup, LANGUAGES, paradigm=small_paradigm(HOSTILE),
                       pos_choices=["N", "V"], error=HOSTILE)
    doc = lxml.html.fromstring(text)
    _check(doc)  # the paradigm page's own structure test: the same renderer
    assert not doc.xpath("//img")
    assert doc.xpath("//input[@name='lemma']/@value") == [HOSTILE]
    assert doc.xpath("//p[@class='error']")[0].text == HOSTILE
    assert doc.xpath("//datalist/option/@value") == ["N", "V"]
    assert doc.xpath("//div[@class='scroll']/section[@class='paradigm']")


def test_a_model_given_up_keeps_no_predictor_made_of_it(monkeypatch):
    """Beyond max_models the least recently used model is given up with what was made of it;
    a predictor made for a model already given up (a request for more languages than the cap)
    serves that request and is not kept."""
    from types import SimpleNamespace

    import inflect.serve.models as models

    made = []

    class FakePredictor:  # what ModelPool._searcher builds, without weights
        def __init__(self, loaded, **kwargs):
            self.loaded, self.kwargs = loaded, kwargs
            made.append(self)

    monkeypatch.setattr(models, "Predictor", FakePredictor)
    pool = models.ModelPool(max_models=1, lexicons=False)

    def base(name):
        return SimpleNamespace(model_name=name, loaded=name)

    beam3 = models.SearchOptions(beam=3)
    pool.keep(SimpleNamespace(name="a"), base("a"))
    first = pool.predictor(base("a"), beam3)
    assert pool.predictor(base("a"), beam3) is first and len(made) == 1  # kept while loaded
    pool.keep(SimpleNamespace(name="b"), base("b"))  # gives up a, and what was made of it
    assert pool.loaded == ("b",)
    again = pool.predictor(base("a"), beam3)
    assert again is not first and again.model_name == "a"
    assert pool.predictor(base("a"), beam3) is not again  # a is not loaded: nothing kept
    assert pool._made == {}
