"""Abuse benchmark (part of ``make bench``): does /fresh-link's timing tell addresses apart?

Issue 9 measured a matching address answering slower than a non-matching one,
because the mail was built on the request's path. This times the answer (up to
the moment the body is complete, before the WSGI ``close`` that now does the
lookup and the mail) for a matching and a non-matching address, alternating,
and beside it, in the same run, the old way: ``services.request_fresh_link`` on
the request's path. ``FRESH_LINK_MINUTES`` is 0 so every matching request
really builds a mail. Prints medians and the matching/non-matching ratios.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

REQUESTS = 200


def main() -> None:
    from app import create_app, services
    from app.db import upgrade

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench-secret-key-0123456789",
                          "INSTANCE_PATH": str(Path(folder) / "instance"),
                          "FRESH_LINK_MINUTES": 0})
        upgrade(url)
        with app.app_context():
            game = services.create_game([{"name": "Ann", "email": "ann@example.com"},
                                         {"name": "Bob", "email": "bob@example.com"}], seed="7")
        client = app.test_client()
        forms = {"matching": {"game": game.game_id, "email": "bob@example.com"},
                 "other": {"game": game.game_id, "email": "eve@example.com"}}
        now: dict[str, list[float]] = {"matching": [], "other": []}
        old: dict[str, list[float]] = {"matching": [], "other": []}
        for _ in range(REQUESTS):
            for label, form in forms.items():
                start = time.perf_counter()
                answer = client.post("/fresh-link", data=form)
                answer.get_data()
                now[label].append(time.perf_counter() - start)
                answer.close()  # the deferred lookup and mail, after the answer
                with app.app_context():
                    start = time.perf_counter()
                    services.request_fresh_link(game.game_id, email=form["email"])
                    old[label].append(time.perf_counter() - start)

    def ms(values: list[float]) -> float:
        return statistics.median(values) * 1000

    print(f"/fresh-link, {REQUESTS} requests each, median time to the answer (SQLite):")
    for name, figures in (("now (lookup after the answer)", now),
                          ("old (lookup and mail before it)", old)):
        ratio = ms(figures["matching"]) / ms(figures["other"])
        print(f"  {name:34s} matching {ms(figures['matching']):7.2f} ms · "
              f"other {ms(figures['other']):7.2f} ms · ratio {ratio:4.2f}")


if __name__ == "__main__":
    main()
