"""gunicorn's settings for the web process (read from the working directory).

One request at a time per worker process, on a connection kept alive: a move
is CPU-bound Python, so threads in one worker only queue on its GIL, while a
sync worker closes every connection after one answer and the client pays a
new one each time. Several such workers per core keep the CPU busy while one
of them waits on PostgreSQL. Measured on two cores with ``python -m bench
http`` (docs/benchmarks.md): four of these beat two sync workers and two
workers of four threads. ``WEB_CONCURRENCY`` sets the number of workers.
"""
import os

worker_class = "gthread"
threads = 1
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
keepalive = 30
