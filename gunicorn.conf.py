"""gunicorn's settings for the web process (read from the working directory).

Sync workers, one per core (``WEB_CONCURRENCY`` overrides). A move is
CPU-bound Python: measured on two cores with ``python -m bench http``
(docs/benchmarks.md), two sync workers served more moves per second, at a
lower p99, than two workers of four threads (the threads queue on their
worker's GIL) and than four single-thread ``gthread`` workers with
keep-alive (a kept-alive connection stays with the worker that accepted it,
so the load spreads unevenly), although keep-alive spares the server a
connection per request. The clients that matter (browsers, mail links) send
one request now and then, not a stream.
"""
import os

worker_class = "sync"
workers = int(os.environ.get("WEB_CONCURRENCY") or os.cpu_count() or 2)
