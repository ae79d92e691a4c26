"""The reader's language costs nothing noticeable (issue 50's acceptance: "seat page and
turn mail rendering cost within 10 %").

In one process and one run, for the same positions: a turn mail composed
(``compose.turn_mail``: text, HTML, styles inlined) and a seat page rendered (``GET
/play/<token>`` through the Flask test client, on a SQLite store with 12 games in
progress), each in English, German and Japanese, interleaved round by round. English
is the in-run baseline; German and Japanese are printed as ratios to it. What the
language machinery costs English itself (a context variable, a catalogue lookup that
finds nothing) is what ``python -m bench against <tree before>`` measures (seat page
p50, moves/s).
"""
from __future__ import annotations

import random
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

from app import create_app, engine, i18n, services
from app.mail import compose

LANGS = ("en", "de", "ja")
ROUNDS = 7
MAILS_PER_ROUND = 60
PAGES_PER_ROUND = 40
NOW = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)


def _timed(work: Callable[[], Any], times: int) -> float:
    """Microseconds per call."""
    start = time.perf_counter()
    for _ in range(times):
        work()
    return (time.perf_counter() - start) / times * 1e6


def _views(count: int = 12) -> list[tuple[dict[str, Any], int]]:
    """Seat views with a decision, from random play (the same every run)."""
    found = []
    for seed in range(1, count + 1):
        rng, state = random.Random(seed), engine.new_game(3, seed)
        for _ in range(rng.randrange(5, 40)):
            view = engine.view(state, None)
            if view["phase"] == "over":
                break
            seat = rng.choice(view["to_act"])
            state, _ = engine.apply_action(state, seat, rng.choice(engine.legal_actions(state, seat)))
        view = engine.view(state, None)
        if view["phase"] != "over":
            seat = view["to_act"][0]
            found.append((engine.view(state, seat), seat))
    return found


def turn_mails() -> dict[str, float]:
    game = compose.MailGame(id="ab12cd", name="Friday table", names=["Ann", "Bob", "Kenji"],
                            base_url="https://silver-eye.example")
    views = _views()
    zone = None  # (UTC: a zone costs the same in each language)

    def compose_all() -> None:
        for view, seat in views:
            compose.turn_mail(game, seat, view, since_step=max(0, view.get("step", 1) - 3),
                              due=NOW + timedelta(hours=20), now=NOW,
                              link="https://silver-eye.example/play/x",
                              unsubscribe="https://silver-eye.example/u/x", zone=zone,
                              reply_address="play+x@silver-eye.example")
    return _interleaved(compose_all, MAILS_PER_ROUND // len(views) or 1)


def seat_pages() -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="bench-i18n-"))
    url = f"sqlite:///{folder / 'bench.db'}"
    from app.db import upgrade
    upgrade(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "INSTANCE_PATH": str(folder),
                      "SECRET_KEY": "bench"})
    with app.app_context():
        tokens = []
        for n in range(12):
            created = services.create_game(
                [{"name": p, "email": f"{p.lower()}{n}@example.com"} for p in ("Ann", "Bob", "Kenji")],
                {}, name=f"Bench {n}", seed=str(n + 1))
            rng = random.Random(n)
            for _ in range(rng.randrange(4, 30)):
                snap = services.snapshot(created.game_id)
                view = snap.view(None)
                if view["phase"] == "over":
                    break
                seat = rng.choice(view["to_act"])
                services.submit_action(created.game_id, seat,
                                       rng.choice(engine.legal_actions(snap.state, seat)), snap.seq)
            tokens.append(created.tokens[0])
    client = app.test_client()

    def get_all(code: str) -> Callable[[], None]:
        def get() -> None:
            for token in tokens:
                answer = client.get(f"/play/{token}?lang={code}")
                assert answer.status_code == 200
        return get
    return _interleaved(get_all, PAGES_PER_ROUND // len(tokens) or 1, per_language=True)


def _interleaved(work: Any, times: int, per_language: bool = False) -> dict[str, float]:
    samples: dict[str, list[float]] = {code: [] for code in LANGS}
    for _ in range(ROUNDS):
        for code in LANGS:
            if per_language:
                samples[code].append(_timed(work(code), times))
            else:
                with i18n.in_language(code):
                    samples[code].append(_timed(work, times))
    return {code: statistics.median(values) for code, values in samples.items()}


def _report(what: str, figures: dict[str, float], unit: str) -> None:
    base = figures["en"]
    print(f"  {what}: " + ", ".join(
        f"{code} {figures[code] / 1000:.2f} ms{unit} ({figures[code] / base:.3f}x)"
        for code in LANGS))


def main() -> None:
    print(f"i18n: rendering cost per language, English the in-run baseline "
          f"(median of {ROUNDS} interleaved rounds)")
    _report("turn mails (12 positions)", turn_mails(), " for 12")
    _report("seat pages (12 games)", seat_pages(), " for 12")


if __name__ == "__main__":
    main()
