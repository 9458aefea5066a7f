"""`inflect serve` against `inflect predict` on the same inputs, measured in the same run.

Inputs: the first ``--n`` (1,000) german-dev inputs (lemma, tag bundle), German's shipped model,
default search, ``--threads`` torch threads everywhere; ``--no-lexicon`` asks the model alone in
both (without it both consult the lexicons ``inflect predict`` consults by default).

1. Reference, the batch command: ``python -m inflect predict --lang german --input FILE --format
   jsonl`` in a fresh process (best of ``--repeat``): words per second over its whole run
   (cold), and over its run less that of the same command with one input (warm: the start, the
   imports and the model's load taken out).
2. Reference, one word: ``inflect predict --lang german Haus N;DAT;PL`` in a fresh process
   (median of ``--repeat``).
3. The service: ``python -m inflect serve --port 0 --lang german`` started once; after a warm-up,
   GET ``/v1/inflect`` one word a request, cycling through the inputs, on kept-alive
   connections: one client (``--requests`` requests), then ``--clients`` (16) clients at once
   (``--requests`` each, closed loop): median and 99th percentile of the latency, and words per
   second of the clients together, against (1) and (2). Then the same clients POST
   ``/v1/inflect`` ``--post-size`` (64) words a request (``--post-requests`` (2) each): one-word
   requests of N clients make batches of at most N words, and a batch of 16 costs more per word
   than ``predict``'s chunks of 256.

The clients run in this process (Python threads) on the same cores as the service: on a 2-core
machine they take CPU from it, so the service's figures are if anything pessimistic.

4. ``--bulk``, the service under load instead of 1-3: one client GETs one German word
   a request (``--word-requests`` of them, the next sent when the last is answered) while 0, 1,
   2 and 5 (``--bulk-clients``) other clients POST ``--bulk-size`` (1,000) german-dev words a
   request in a closed loop (a 503 is retried after its ``Retry-After``), with the default
   lexicons and without (``--no-lexicon`` in every request), one service started for each:
   the one-word latency (median, 99th percentile, largest; a 503 counts with its latency), as a
   multiple of the same latency with no bulk client (the reference, same run), the one-word
   503s, the inputs searched a second (bulk and one-word: ``/healthz``'s ``searched``), the
   bulk clients' 503s, and the inputs a batch. ``--against PATH``
   measures another checkout's service the same way after each of this one's (e.g. the
   first-come-first-served service before the per-client queue; ``--against-requests`` one-word GETs).

Usage::

    python benchmarks/bench_serve.py --data-dir ../shared/data/conll2018-task1 --threads 2 \\
        [--n 1000] [--requests 200] [--clients 16] [--repeat 2] [--no-lexicon]
    python benchmarks/bench_serve.py --data-dir ../shared/data/conll2018-task1 --threads 2 \\
        --bulk [--bulk-clients 1,2,5] [--bulk-size 1000] [--word-requests 40]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
RUNNING = re.compile(r"Uvicorn running on http://([\d.]+):(\d+)")


def _inputs(data_dir: str, n: int) -> list[tuple[str, str]]:
    """The first ``n`` german-dev inputs as (lemma, tags)."""
    path = Path(data_dir) / "german-dev"
    if not path.is_file():
        path = Path(data_dir) / "conll2018-task1" / "german-dev"
    found = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) == 3:
                found.append((fields[0], fields[2]))
            if len(found) == n:
                break
    return found


def _env(threads: int, root: Path = HERE) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(root), INFLECT_THREADS=str(threads))
    env.pop("INFLECT_LEXICON", None)
    return env


def _predict(args: list[str], threads: int, no_lexicon: bool) -> float:
    """Wall seconds of ``python -m inflect predict --lang german ARGS --format jsonl``."""
    extra = ["--no-lexicon"] if no_lexicon else []
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "inflect", "predict", "--lang", "german", *args,
                           "--format", "jsonl", *extra], env=_env(threads), capture_output=True,
                          text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"inflect predict failed:\n{done.stderr[-2000:]}")
    return wall


class Service:
    """``inflect serve`` on a free port, its log drained by a thread."""

    def __init__(self, threads: int, options: list[str], root: Path = HERE) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "inflect", "serve", "--port", "0", "--lang", "german",
             *options],
            env=_env(threads, root), cwd=root,  # -m puts the folder it runs in first on the path
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = threading.Event()

        def read() -> None:
            for line in self.proc.stderr:
                match = RUNNING.search(line)
                if match:
                    self.host, self.port = match.group(1), int(match.group(2))
                    ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(300):
            self.proc.kill()
            raise SystemExit("inflect serve did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def _client(service: Service, paths: list[str], latencies: list[float]) -> None:
    """GET each path on one kept-alive connection, appending each latency (seconds)."""
    connection = http.client.HTTPConnection(service.host, service.port, timeout=300)
    for path in paths:
        start = time.perf_counter()
        connection.request("GET", path)
        answer = connection.getresponse()
        body = answer.read()
        latencies.append(time.perf_counter() - start)
        if answer.status != 200:
            raise SystemExit(f"GET {path}: {answer.status} {body[:300]!r}")
    connection.close()


def _clients(service: Service, paths: list[str], clients: int, requests: int) -> tuple:
    """``clients`` closed-loop clients of ``requests`` each: (latencies, wall seconds)."""
    latencies: list[float] = []
    seconds = _together(_client, [
        (service, [paths[(c * requests + i) % len(paths)] for i in range(requests)], latencies)
        for c in range(clients)])
    return latencies, seconds


def _together(target, arguments: list[tuple]) -> float:
    """Run ``target(*args)`` for each of ``arguments`` at once, one thread each; the wall
    seconds. A client's failure (a status other than 200) is raised here, in the main thread,
    so no figure is computed on what the other clients did."""
    from concurrent.futures import ThreadPoolExecutor

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(arguments)) as pool:
        futures = [pool.submit(target, *args) for args in arguments]
        for future in futures:
            future.result()
    return time.perf_counter() - start


def _poster(service: Service, bodies: list[bytes], latencies: list[float]) -> None:
    """POST each body on one kept-alive connection, appending each latency (seconds)."""
    connection = http.client.HTTPConnection(service.host, service.port, timeout=600)
    for body in bodies:
        start = time.perf_counter()
        connection.request("POST", "/v1/inflect", body=body,
                           headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        text = answer.read()
        latencies.append(time.perf_counter() - start)
        if answer.status != 200:
            raise SystemExit(f"POST: {answer.status} {text[:300]!r}")
    connection.close()


def _posters(service: Service, inputs: list[tuple[str, str]], clients: int, size: int,
             requests: int, no_lexicon: bool) -> tuple[int, float]:
    """``clients`` clients POSTing ``requests`` bodies of ``size`` inputs: (words, seconds)."""
    def body(k: int) -> bytes:
        chosen = [inputs[(k * size + i) % len(inputs)] for i in range(size)]
        return json.dumps({"lang": "german", "no_lexicon": no_lexicon, "inputs": [
            {"lemma": lemma, "tags": tags} for lemma, tags in chosen]}).encode()

    latencies: list[float] = []
    seconds = _together(_poster, [
        (service, [body(c * requests + r) for r in range(requests)], latencies)
        for c in range(clients)])
    return clients * requests * size, seconds


def _batches(service: Service) -> int:
    """Batches the service has searched so far (``/healthz``)."""
    connection = http.client.HTTPConnection(service.host, service.port, timeout=60)
    connection.request("GET", "/healthz")
    count = json.loads(connection.getresponse().read())["batches"]
    connection.close()
    return count


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _bulk_client(service: Service, body: bytes, stop: threading.Event, done: list) -> None:
    """POST ``body`` until ``stop``, in a closed loop; ``done``: [words answered, 503s, the
    error that stopped it]. A 503 is retried after its Retry-After, as a polite client does
    (the wait ends at once when ``stop`` is set)."""
    try:
        _bulk_loop(service, body, stop, done)
    except BaseException as exc:  # raised again in the main thread
        done[2] = exc
        stop.set()


def _bulk_loop(service: Service, body: bytes, stop: threading.Event, done: list) -> None:
    connection = http.client.HTTPConnection(service.host, service.port, timeout=600)
    words = len(json.loads(body)["inputs"])
    while not stop.is_set():
        connection.request("POST", "/v1/inflect", body=body,
                           headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        text = answer.read()
        if answer.status == 503:
            done[1] += 1
            stop.wait(float(answer.getheader("retry-after", "1")))
        elif answer.status == 200:
            done[0] += words
        else:
            raise RuntimeError(f"bulk POST: {answer.status} {text[:300]!r}")
    connection.close()


def _health(service: Service) -> dict:
    connection = http.client.HTTPConnection(service.host, service.port, timeout=60)
    connection.request("GET", "/healthz")
    state = json.loads(connection.getresponse().read())
    connection.close()
    return state


def _under_load(service: Service, paths: list[str], bodies: list[bytes], requests: int) -> dict:
    """One-word GETs (``requests``, one at a time) beside ``len(bodies)`` bulk clients: the
    latencies, the one-word 503s, the inputs searched a second (``/healthz``'s ``searched``;
    a service without it: the bulk words answered), the bulk 503s, inputs a batch."""
    stop = threading.Event()
    done: list[list] = [[0, 0, None] for _ in bodies]
    bulk = [threading.Thread(target=_bulk_client, args=(service, b, stop, d))
            for b, d in zip(bodies, done, strict=True)]
    for thread in bulk:
        thread.start()
    if bodies:  # until the bulk requests are queued (most of two), or each was answered once
        size = len(json.loads(bodies[0])["inputs"])
        deadline = time.perf_counter() + 120
        while time.perf_counter() < deadline and not stop.is_set():
            if all(d[0] or d[1] for d in done):
                break
            state = _health(service)
            if state["waiting"] + state["searching"] + size * sum(d[1] > 0 for d in done) >= \
                    0.7 * min(len(bodies), 2) * size:
                break
            time.sleep(0.05)
    state = _health(service)
    before, searched, started = state["batches"], state.get("searched"), time.perf_counter()
    connection = http.client.HTTPConnection(service.host, service.port, timeout=600)
    latencies, refused = [], 0
    for i in range(requests):
        start = time.perf_counter()
        connection.request("GET", paths[i % len(paths)])
        answer = connection.getresponse()
        body = answer.read()
        latencies.append(time.perf_counter() - start)
        if answer.status == 503:
            refused += 1
        elif answer.status != 200:
            raise SystemExit(f"GET: {answer.status} {body[:300]!r}")
    connection.close()
    seconds = time.perf_counter() - started
    state = _health(service)
    words = sum(d[0] for d in done)  # read before the bulk clients finish their last request
    inputs = state["searched"] - searched if searched is not None else words + requests
    stop.set()
    for thread in bulk:
        thread.join()
    for d in done:
        if d[2] is not None:
            raise SystemExit(f"a bulk client failed: {d[2]!r}")
    return {"latencies": latencies, "refused": refused, "bulk_rate": inputs / seconds,
            "bulk_refused": sum(d[1] for d in done),
            "per_batch": inputs / max(1, state["batches"] - before)}


def bulk_main(args: argparse.Namespace) -> None:
    """``--bulk``: the one-word latency beside 0, 1, 2 and 5 bulk clients (see the docstring)."""
    inputs = _inputs(args.data_dir, max(args.n, args.bulk_size + args.word_requests))
    counts = sorted({0, *(int(c) for c in args.bulk_clients.split(",") if c.strip())})
    print(f"one German word a GET ({args.word_requests} requests, one at a time) beside N "
          f"clients POSTing {args.bulk_size} german-dev words a request; {args.threads} torch "
          "thread(s); median, 99th percentile and largest latency; x: the median as a multiple "
          "of the same with no bulk client (the same service)")
    print("| lexicons | bulk clients | median ms | p99 ms | max ms | x | one-word 503s "
          "| inputs searched/s | bulk 503s | inputs a batch |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    runs = [("this", HERE, args.word_requests)]
    if args.against:
        runs.append((Path(args.against).name, Path(args.against), args.against_requests))
    settings = ("default", "none") if args.lexicons == "both" else (args.lexicons,)
    for lexicon, (name, root, requests) in [(x, r) for x in settings for r in runs]:
        no = lexicon == "none"
        words = inputs[args.bulk_size:] or inputs
        paths = [f"/v1/inflect?{urllib.parse.urlencode({'lang': 'german', 'lemma': w, 'tags': t})}"
                 + ("&no_lexicon=true" if no else "") for w, t in words]

        def body(k: int, no_lexicon: bool = no) -> bytes:
            chosen = [inputs[(k * 97 + i) % args.bulk_size] for i in range(args.bulk_size)]
            return json.dumps({"lang": "german", "no_lexicon": no_lexicon, "inputs": [
                {"lemma": lemma, "tags": tags} for lemma, tags in chosen]}).encode()

        service = Service(args.threads, [], root)
        try:
            _under_load(service, paths, [body(0)], min(5, requests))  # warm-up
            reference = None
            for count in counts:
                found = _under_load(service, paths, [body(k) for k in range(count)], requests)
                values = found["latencies"]
                median = statistics.median(values)
                reference = reference or median
                print(f"| {lexicon}{'' if name == 'this' else ', ' + name} | {count} | {1000 * median:.0f} | "
                      f"{1000 * _percentile(values, 0.99):.0f} | {1000 * max(values):.0f} | "
                      f"{median / reference:.1f}x | {found['refused']} | "
                      f"{found['bulk_rate']:.0f} | {found['bulk_refused']} | "
                      f"{found['per_batch']:.1f} |", flush=True)
        finally:
            service.stop()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", required=True, help="the CoNLL-SIGMORPHON 2018 folder")
    ap.add_argument("--n", type=int, default=1000, help="german-dev inputs")
    ap.add_argument("--requests", type=int, default=200, help="requests per client")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--post-size", type=int, default=64, help="words per POST")
    ap.add_argument("--post-requests", type=int, default=2, help="POSTs per client")
    ap.add_argument("--no-lexicon", action="store_true", help="the model alone, in both")
    ap.add_argument("--batch-window", type=float, default=None,
                    help="the service's --batch-window (default: its default)")
    ap.add_argument("--bulk", action="store_true",
                    help="the one-word latency beside bulk clients instead (see 4. above)")
    ap.add_argument("--bulk-clients", default="1,2,5", help="bulk clients of each run (--bulk)")
    ap.add_argument("--bulk-size", type=int, default=1000, help="words a bulk POST (--bulk)")
    ap.add_argument("--word-requests", type=int, default=40,
                    help="one-word GETs of each run (--bulk)")
    ap.add_argument("--lexicons", choices=["both", "default", "none"], default="both",
                    help="--bulk with the default lexicons, without (no_lexicon), or both")
    ap.add_argument("--against", default=None,
                    help="another checkout whose service is measured too (--bulk)")
    ap.add_argument("--against-requests", type=int, default=5,
                    help="one-word GETs of each run of --against")
    args = ap.parse_args()
    if args.bulk:
        bulk_main(args)
        return

    inputs = _inputs(args.data_dir, args.n)
    with tempfile.TemporaryDirectory() as folder:
        many, one = Path(folder) / "many.tsv", Path(folder) / "one.tsv"
        many.write_text("".join(f"{lemma}\t{tags}\n" for lemma, tags in inputs), encoding="utf-8")
        one.write_text(f"{inputs[0][0]}\t{inputs[0][1]}\n", encoding="utf-8")
        batch, single, word = [], [], []
        for _ in range(args.repeat):  # interleaved
            batch.append(_predict(["--input", str(many)], args.threads, args.no_lexicon))
            single.append(_predict(["--input", str(one)], args.threads, args.no_lexicon))
            word.append(_predict(["Haus", "N;DAT;PL"], args.threads, args.no_lexicon))
    cold_rate = len(inputs) / min(batch)
    warm_rate = (len(inputs) - 1) / max(1e-9, min(batch) - min(single))
    one_word = statistics.median(word)

    extra = "&no_lexicon=true" if args.no_lexicon else ""
    paths = [f"/v1/inflect?{urllib.parse.urlencode({'lang': 'german', 'lemma': lemma, 'tags': tags})}"
             f"{extra}" for lemma, tags in inputs]
    window = [] if args.batch_window is None else ["--batch-window", str(args.batch_window)]
    service = Service(args.threads, window)
    try:
        _clients(service, paths, 1, min(50, len(paths)))  # warm-up: the lexicons' first reads
        alone: list[float] = []
        _client(service, [paths[i % len(paths)] for i in range(args.requests)], alone)
        before = _batches(service)
        together, wall = _clients(service, paths, args.clients, args.requests)
        batches = _batches(service) - before
        posted, post_wall = _posters(service, inputs, args.clients, args.post_size,
                                     args.post_requests, args.no_lexicon)
    finally:
        service.stop()
    served_rate = len(together) / wall

    lexicon = "the model alone" if args.no_lexicon else "with the default lexicons"
    print(f"inputs: the first {len(inputs)} german-dev inputs, {lexicon}, {args.threads} torch "
          f"thread(s); load average {os.getloadavg()[0]:.1f} at the end")
    print(f"inflect predict, one word, cold:        {1000 * one_word:8.0f} ms (median of "
          f"{args.repeat})")
    print(f"inflect predict --input (batch), cold:  {cold_rate:8.1f} words/s "
          f"({min(batch):.2f} s for {len(inputs)})")
    print(f"inflect predict --input (batch), warm:  {warm_rate:8.1f} words/s (less the "
          f"{min(single):.2f} s of a one-input run)")
    for name, values in (("1 client", alone), (f"{args.clients} clients", together)):
        median, p99 = statistics.median(values), _percentile(values, 0.99)
        print(f"serve, {name:10s} one word a request: median {1000 * median:7.1f} ms, p99 "
              f"{1000 * p99:7.1f} ms; median {one_word / median:6.1f}x faster than a cold "
              "predict")
    print(f"serve, {args.clients} clients throughput:  {served_rate:8.1f} words/s = "
          f"{served_rate / warm_rate:.2f}x the warm batch command, "
          f"{served_rate / cold_rate:.2f}x the cold one; {len(together) / batches:.1f} words a "
          "batch")
    post_rate = posted / post_wall
    print(f"serve, {args.clients} clients POSTing {args.post_size} words a request: "
          f"{post_rate:8.1f} words/s = {post_rate / warm_rate:.2f}x the warm batch command, "
          f"{post_rate / cold_rate:.2f}x the cold one")


if __name__ == "__main__":
    main()
