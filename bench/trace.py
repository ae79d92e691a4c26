"""Call trace of five paths (issue 18 acceptance): area crossings and game loads.

Run from a tree's root with that tree's own interpreter::

    .venv/bin/python -m bench trace                      # this tree
    .venv/bin/python -m bench trace --against /work/before   # this tree and another, side by side
    /work/before/.venv/bin/python /work/main/bench/trace.py   # a tree without this file (cwd = its root)

Each path is played in-process on a fresh SQLite database of its own (or, with
``--postgresql [URL]``, a fresh schema dropped afterwards), set up outside the
measured region, and only the path itself is measured:

- ``move POST``: ``POST /api/play/<token>/actions`` through the Flask test client,
  after the seat's ``GET .../actions`` (a warm worker, as a page that shows the menu):
  Bob's move after his draw, which hands the turn to Ann (and writes her turn mail);
- ``seat GET``: ``GET /play/<token>`` of the seat to play, the second one (templates
  compiled, state held);
- ``turn mail``: the sender sending the turn mail due after a move (``send_mail_due``);
- ``deadline``: one clock tick after a decision deadline (``tick``, mail left in the outbox);
- ``reply``: the inbound worker applying a stored reply to a turn mail (``apply_pending``);
- ``vote``: ``POST /api/play/<token>/votes/<id>``, the yes that passes an abort (issue 46).

What is counted, per path:

- *modules*: the app modules whose functions the path calls (an import's module code is
  not counted), and the same without the engine and the web's per-request hooks (access
  log, metrics, security headers, input guard, cookie session): the rooms a reader
  follows the request through (issue 46 item 4);

- *area crossings*: ``sys.setprofile`` sees every Python call and return; each
  frame of app code is mapped to an area (engine, db, gamelog, access, clock,
  presence, mail, services, inbound, web, runners, config, app, entry). A call
  is a crossing when the nearest app frame up the stack (its caller, or the
  app code that called the library that called it back) is in another area;
  ``calls in`` counts those calls, ``crossings`` counts them and the returns
  that cross back (twice ``calls in``, but for a generator left suspended);
  ``in, no cfg`` leaves out the calls to and from ``app.config``. The tree before the redesign had flat modules: they are mapped
  to the same areas by ``BEFORE_AREAS`` (where each module, or function, lives
  now), so the two trees' figures compare;
- *game loads*: executed SELECTs that read ``game``, ``state_cache`` or ``action``
  (named after FROM or JOIN, a subquery's too; a ``before_cursor_execute`` listener on
  every engine), and calls of the functions that load a game (``LOADERS``, the
  first module name of each entry that imports; ``--loader module:function`` adds one).

It counts; it never times anything.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any, Callable, Iterator

if __name__ == "__main__" and __package__ in (None, ""):
    # run by path from another tree's root: that tree's app, not this file's folder
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(here)]
    sys.path.insert(0, os.getcwd())

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)
DOMAIN = "silver-eye.test"
ANN, BOB = "ann@example.com", "bob@example.com"
PG_URL = (os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
          or "postgresql+psycopg://postgres@127.0.0.1:5432/test")
PATHS = ["move POST", "seat GET", "turn mail", "deadline", "reply", "vote"]

#: The areas of the redesigned tree: ``app.<area>.*`` (app/<area>/ is a folder).
FOLDER_AREAS = {"engine", "db", "gamelog", "access", "clock", "presence", "mail", "services",
                "inbound", "web", "runners"}
#: Modules at the root of ``app``.
ROOT_AREAS = {"app": "app", "app.config": "config", "app.cli": "entry", "app.run_all": "entry",
              "app.processes": "entry"}
#: The flat modules of the tree before the redesign, by where their code lives now
#: (git show -M 8b0348a); a ``module:function`` entry overrides its module's area for
#: the functions that moved elsewhere (``app.absence``'s R29 bookkeeping inside a move
#: went to app/presence, its use cases to app/services; ``app.services.gamelog``'s seed
#: helpers went to app/gamelog/store.py, the rest became app/services/repository.py).
BEFORE_AREAS = {
    "app.store": "gamelog", "app.warm_states": "gamelog", "app.game_check": "gamelog",
    "app.services.gamelog": "services",
    "app.services.gamelog:commitment_of": "gamelog", "app.services.gamelog:engine_seed": "gamelog",
    "app.services.gamelog:engine_options": "gamelog",
    "app.hooks": "services", "app.my_games": "services", "app.options": "services",
    "app.round_summaries": "services", "app.preferences": "services",
    "app.absence": "services",
    "app.absence:is_absent": "presence", "app.absence:record_action": "presence",
    "app.absence:went_away": "presence", "app.absence:_end_vacation_early": "presence",
    "app.deadlines": "clock",
    "app.clock": "runners", "app.sender": "runners", "app.timeouts": "runners",
    "app.digests": "runners", "app.heartbeats": "runners", "app.pruning": "runners",
    "app.inbound.__main__": "runners",
    "app.tokens": "access", "app.mail.reply_address": "access",
    "app.db": "db", "app.loaded": "db",
}

#: The functions that load a game (its row, cached state or log), tried by name in
#: order: the first module that imports holds it. The redesigned tree's names come first.
LOADERS = [
    ("app.services.repository|app.services.gamelog", "_load_game"),
    ("app.services.repository|app.services.gamelog", "_load_state"),
    ("app.gamelog.states|app.gamelog.store|app.store", "read_game"),
    ("app.gamelog.states|app.gamelog.store|app.store", "read_seats_and_game"),
    ("app.gamelog.states|app.gamelog.store|app.store", "read_cache"),
    ("app.gamelog.store|app.store", "load_actions"),
    ("app.gamelog.warm_states|app.warm_states", "get"),
]

#: A statement that reads the game's row, cached state or log: the table named after FROM
#: or JOIN (a join that brings the game's row along with the seats reads it too).
GAME_READ = re.compile(r'\b(?:FROM|JOIN)\s+"?(game|state_cache|action)"?(?![\w"])', re.IGNORECASE)


def area_of(module: str, qualname: str) -> str | None:
    """The area of app code in ``module`` (None for code outside the app)."""
    if module != "app" and not module.startswith("app."):
        return None
    top = qualname.split(".", 1)[0]
    for key in (f"{module}:{top}", module):
        if key in BEFORE_AREAS and _is_before():
            return BEFORE_AREAS[key]
    if module in ROOT_AREAS:
        return ROOT_AREAS[module]
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in FOLDER_AREAS:
        return parts[1]
    return "app." + parts[1] if len(parts) > 1 else "app"


_LAYOUT: dict[str, bool] = {}


def _is_before() -> bool:
    """Whether this tree has the flat layout (no app/gamelog folder)."""
    if "before" not in _LAYOUT:
        import app
        _LAYOUT["before"] = not (Path(app.__file__).parent / "gamelog").is_dir()
    return _LAYOUT["before"]


def first_module(*names: str, attr: str | None = None) -> Any:
    """The first of ``names`` that imports (and has ``attr``): the new name, then the old."""
    errors = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            errors.append(f"{name}: {exc}")
            continue
        if attr is None or hasattr(module, attr):
            return module
        errors.append(f"{name}: no {attr}")
    raise ImportError("; ".join(errors))


class Tracer:
    """Counts calls, crossings and the SQL sent while ``measuring()``."""

    def __init__(self, loaders: list[tuple[str, str]]) -> None:
        self.codes: dict[Any, str | None] = {}
        self.loader_codes: dict[Any, str] = {}
        self.loaders_found: list[str] = []
        self.loaders_missing: list[str] = []
        for modules, function in loaders:
            self.loaders_missing.append(f"{modules}:{function}")
            for name in modules.split("|"):
                try:
                    module = importlib.import_module(name)
                except ImportError:
                    continue
                target = getattr(module, function, None)
                code = getattr(target, "__code__", None)
                if code is not None:
                    self.loader_codes[code] = f"{function}"
                    self.loaders_found.append(f"{name}:{function}")
                    self.loaders_missing.pop()
                    break
        self.reset()

    def reset(self) -> None:
        self.app_calls = 0
        self.calls_in = 0
        self.returns_out = 0
        self.calls_in_no_config = 0
        self.pairs: Counter[tuple[str, str]] = Counter()
        self.loads: Counter[str] = Counter()
        self.statements: list[str] = []
        self.modules: set[str] = set()

    def _area(self, frame: Any) -> str | None:
        code = frame.f_code
        try:
            return self.codes[code]
        except KeyError:
            area = area_of(frame.f_globals.get("__name__") or "", code.co_qualname)
            self.codes[code] = area
            return area

    def _above(self, frame: Any) -> str | None:
        while frame is not None:
            area = self._area(frame)
            if area is not None:
                return area
            frame = frame.f_back
        return None

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            area = self._area(frame)
            if area is None:
                return
            self.app_calls += 1
            if frame.f_code.co_name != "<module>":  # (an import is no step of the path)
                self.modules.add(frame.f_globals.get("__name__") or "")
            if frame.f_code in self.loader_codes:
                self.loads[self.loader_codes[frame.f_code]] += 1
            caller = self._above(frame.f_back)
            if caller is not None and caller != area:
                self.calls_in += 1
                self.pairs[(caller, area)] += 1
                if "config" not in (caller, area):
                    self.calls_in_no_config += 1
        elif event == "return":
            area = self._area(frame)
            if area is None:
                return
            above = self._above(frame.f_back)
            if above is not None and above != area:
                self.returns_out += 1

    def _statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.statements.append(" ".join(statement.split()))

    @contextmanager
    def measuring(self) -> Iterator["Tracer"]:
        import sqlalchemy as sa

        self.reset()
        sa.event.listen(sa.engine.Engine, "before_cursor_execute", self._statement)
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)
        try:
            yield self
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
            sa.event.remove(sa.engine.Engine, "before_cursor_execute", self._statement)

    def figures(self) -> dict[str, Any]:
        reads: Counter[str] = Counter()
        for text in self.statements:
            if text.upper().startswith(("SELECT", "WITH")) or " SELECT " in text.upper():
                for table in set(m.group(1).lower() for m in GAME_READ.finditer(text)):
                    reads[table] += 1
        game_reads = sum(1 for text in self.statements
                         if (text.upper().startswith(("SELECT", "WITH")) or " SELECT " in text.upper())
                         and GAME_READ.search(text))
        outside = {name for name in self.modules
                   if not name.startswith(("app.engine", "app.web.access_log", "app.web.metrics",
                                           "app.web.security_headers", "app.web.input_guard",
                                           "app.web.cookie_session"))}
        return {"app_calls": self.app_calls, "calls_in": self.calls_in,
                "modules": len(self.modules), "modules_outside_engine": len(outside),
                "module_names": sorted(self.modules),
                "crossings": self.calls_in + self.returns_out,
                "calls_in_no_config": self.calls_in_no_config,
                "statements": len(self.statements), "game_reads": game_reads,
                "reads_by_table": dict(reads), "loader_calls": dict(self.loads),
                "pairs": [[a, b, n] for (a, b), n in self.pairs.most_common()],
                "sql": self.statements}


class Recorder:
    """A mail backend that keeps what it is given."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, EmailMessage]] = []

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def send(self, message: Any, key: str, envelope_from: str | None = None,
             before_delivery: Any = None) -> None:
        """(a tree before issue 30's wire messages hands over an ``EmailMessage``)"""
        if before_delivery is not None:
            before_delivery()
        self.sent.append((key, getattr(message, "parsed", message)))


class Tree:
    """This tree's modules, by their new names or their old ones, imported when first
    asked (a module broken mid-rewrite breaks only the paths that use it)."""

    MODULES = {"dl": (("app.clock.deadlines", "app.deadlines"), "at"),
               "clock": (("app.runners.clock", "app.clock"), "tick"),
               "sender": (("app.runners.sender", "app.sender"), "send_mail_due"),
               "warm_states": (("app.gamelog.warm_states", "app.warm_states"), "forget"),
               "worker": (("app.runners.inbound", "app.inbound.worker"), "apply_pending"),
               "inbox": (("app.inbound.inbox",), "store"),
               "services": (("app.services",), "create_game"),
               "engine": (("app.engine",), "legal_actions"),
               "db": (("app.db",), "upgrade")}

    def __getattr__(self, name: str) -> Any:
        if name not in self.MODULES:
            raise AttributeError(name)
        names, attr = self.MODULES[name]
        module = first_module(*names, attr=attr)
        setattr(self, name, module)
        return module

    def create_app(self, config: dict[str, Any]) -> Any:
        from app import create_app
        return create_app(config)

    def upgrade(self, url: str) -> None:
        self.db.upgrade(url)

    def get_engine(self, app: Any) -> Any:
        return self.db.get_engine(app)


@contextmanager
def fresh_database(workdir: Path, name: str, postgresql: str | None) -> Iterator[str]:
    """A new, empty database: a SQLite file, or a schema of ``postgresql`` (dropped after)."""
    if not postgresql:
        yield f"sqlite:///{workdir / (re.sub(r'[^a-z]+', '_', name.lower()) + '.db')}"
        return
    import uuid

    import sqlalchemy as sa

    schema = f"trace_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(postgresql, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield sa.engine.make_url(postgresql).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@contextmanager
def fresh_app(tree: Tree, workdir: Path, name: str,
              postgresql: str | None = None) -> Iterator[Any]:
    """The app on a new, migrated database, its context pushed, no game held in memory."""
    with fresh_database(workdir, name, postgresql) as url:
        app = tree.create_app({"TESTING": True, "DATABASE_URL": url,
                               "SECRET_KEY": "trace-secret-key-not-for-production",
                               "BASE_URL": f"http://{DOMAIN}",
                               "INSTANCE_PATH": str(workdir / f"instance-{len(name)}")})
        app.config.update(TURN_MAIL_DELAY_SECONDS=0, MAIL_PER_ADDRESS_PER_HOUR=0,
                          MAIL_FROM=f"Silver Eye Post <post@{DOMAIN}>", MAIL_DOMAIN=DOMAIN)
        tree.upgrade(url)
        tree.warm_states.forget()
        try:
            with app.app_context():
                yield app
        finally:
            tree.get_engine(app).dispose()


def new_game(tree: Tree) -> Any:
    """Ann and Bob's game made at T0, a day per decision, no reminders."""
    players = [{"name": "Ann", "email": ANN, "kind": "human"},
               {"name": "Bob", "email": BOB, "kind": "human"}]
    with tree.dl.at(T0):
        return tree.services.create_game(players, {"deadline_hours": 24, "reminders": []},
                                         name="Traced", seed="12345")


def first_choice(tree: Tree, state: Any, seat: int) -> dict[str, Any]:
    return next(a for a in tree.engine.legal_actions(state, seat)
                if a["type"] not in ("away", "back"))


def advance(tree: Tree, game_id: str, moves: int, at: datetime) -> None:
    """``moves`` moves through the service: the lowest seat to act, its first choice."""
    with tree.dl.at(at):
        for _ in range(moves):
            snap = tree.services.snapshot(game_id)
            seat = min(snap.view(None)["to_act"])
            tree.services.submit_action(game_id, seat, first_choice(tree, snap.state, seat),
                                        snap.seq)


def path_move_post(tree: Tree, app: Any, tracer: Tracer) -> str:
    game = new_game(tree)
    advance(tree, game.game_id, 3, T0 + timedelta(hours=1))  # both peek, Bob draws
    client = app.test_client()
    seat = min(tree.services.snapshot(game.game_id).view(None)["to_act"])
    menu = client.get(f"/api/play/{game.tokens[seat]}/actions").get_json()
    action = next(a for a in menu["legal_actions"] if a["type"] not in ("away", "back"))
    with tracer.measuring():
        answer = client.post(f"/api/play/{game.tokens[seat]}/actions",
                             json={"action": action, "expected_seq": menu["seq"]})
    assert answer.status_code == 200, answer.get_json()
    return f"seat {seat} {action['type']} -> {answer.status_code}"


def path_seat_get(tree: Tree, app: Any, tracer: Tracer) -> str:
    game = new_game(tree)
    advance(tree, game.game_id, 4, T0 + timedelta(hours=1))  # Ann's turn
    client = app.test_client()
    assert client.get(f"/play/{game.tokens[0]}").status_code == 200  # templates, held state
    with tracer.measuring():
        answer = client.get(f"/play/{game.tokens[0]}")
    assert answer.status_code == 200
    return f"{answer.status_code}, {len(answer.data)} bytes"


def path_turn_mail(tree: Tree, app: Any, tracer: Tracer) -> str:
    game = new_game(tree)
    tree.sender.send_mail_due(app, T0, backend=Recorder())  # invitations, first turn mails
    at = T0 + timedelta(hours=1)
    advance(tree, game.game_id, 4, at)  # both peek, Bob's turn: Ann's turn mail is due
    box = Recorder()
    with tracer.measuring():
        tree.sender.send_mail_due(app, at + timedelta(minutes=1), backend=box)
    subjects = [str(m["Subject"]) for _, m in box.sent]
    assert subjects, "a turn mail was due"
    return f"{len(subjects)} sent: {'; '.join(subjects)}"


def path_deadline(tree: Tree, app: Any, tracer: Tracer) -> str:
    game = new_game(tree)
    tree.sender.send_mail_due(app, T0, backend=Recorder())
    advance(tree, game.game_id, 1, T0 + timedelta(hours=1))  # Ann peeks; Bob does not
    tree.sender.send_mail_due(app, T0 + timedelta(hours=1), backend=Recorder())
    with tracer.measuring():
        report = tree.clock.tick(app, T0 + timedelta(hours=24), backend=Recorder(),
                                 send_mail=False)
    assert report.deadlines >= 1 and "error" not in report.fired, (
        f"fired {dict(report.fired)} (the clock logged why)")
    return f"fired {dict(report.fired)}"


def path_reply(tree: Tree, app: Any, tracer: Tracer) -> str:
    new_game(tree)  # Ann's first turn mail is sent next; her reply plays it
    box = Recorder()
    tree.sender.send_mail_due(app, T0, backend=box)
    mail = [m for _, m in box.sent if ANN in str(m["To"]) and m["Reply-To"]][-1]
    reply = EmailMessage()
    reply["From"] = ANN
    reply["To"] = str(mail["Reply-To"])
    reply["Subject"] = f"Re: {mail['Subject']}"
    reply["Message-ID"] = make_msgid(domain="player.example")
    reply["In-Reply-To"] = reply["References"] = str(mail["Message-ID"])
    body = mail.get_body(("plain",))
    assert body is not None, "a turn mail has a text part"
    text = body.get_content()
    reply.set_content("peek 1 2\n\nOn Tue, 1 Dec 2026, Silver Eye Post wrote:\n"
                      + "\n".join(f"> {line}" for line in text.splitlines()) + "\n")
    import email.policy
    at = T0 + timedelta(hours=1)
    tree.inbox.store(tree.get_engine(app), reply.as_bytes(policy=email.policy.SMTP), via="smtp",
                     mail_from=ANN, rcpt=[str(mail["Reply-To"])], now=at)
    with tracer.measuring():
        report = tree.worker.apply_pending(app, at)
    with tree.get_engine(app).connect() as conn:
        import sqlalchemy as sa
        outcome = conn.execute(sa.text("SELECT status, outcome FROM inbox")).all()
    assert [tuple(r) for r in outcome][0][0] == "applied", outcome
    return f"{report.outcomes}"


def path_vote(tree: Tree, app: Any, tracer: Tracer) -> str:
    game = new_game(tree)
    client = app.test_client()
    asked = client.post(f"/api/play/{game.tokens[0]}/votes", json={"kind": "abort"})
    assert asked.status_code == 201, asked.get_json()
    vote = asked.get_json()["vote"]["id"]
    client.get(f"/play/{game.tokens[1]}")  # (templates compiled, state held)
    with tracer.measuring():
        answer = client.post(f"/api/play/{game.tokens[1]}/votes/{vote}", json={"yes": True})
    assert answer.status_code == 200, answer.get_json()
    return f"the yes that passes an abort -> {answer.status_code}"


PLAYS: dict[str, Callable[[Tree, Any, Tracer], str]] = {
    "move POST": path_move_post, "seat GET": path_seat_get, "turn mail": path_turn_mail,
    "deadline": path_deadline, "reply": path_reply, "vote": path_vote}


def run_here(extra_loaders: list[tuple[str, str]], postgresql: str | None = None) -> dict[str, Any]:
    """Every path in this process (this tree): ``{"tree", "loaders", "paths": {...}}``."""
    import logging
    logging.disable(logging.WARNING)
    tree = Tree()
    tracer = Tracer(LOADERS + extra_loaders)
    out: dict[str, Any] = {"tree": os.getcwd(), "layout": "flat" if _is_before() else "folders",
                           "database": "postgresql" if postgresql else "sqlite",
                           "loaders": tracer.loaders_found,
                           "loaders_missing": tracer.loaders_missing, "paths": {}}
    with tempfile.TemporaryDirectory(prefix="silver-eye-trace-") as tmp:
        for name in PATHS:
            try:
                with fresh_app(tree, Path(tmp), name, postgresql) as app:
                    note = PLAYS[name](tree, app, tracer)
                out["paths"][name] = dict(tracer.figures(), note=note)
            except Exception as exc:  # noqa: BLE001 - one broken path, the others still count
                out["paths"][name] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


COLUMNS = [("modules", "modules"), ("mods, no engine/hooks", "modules_outside_engine"),
           ("calls in", "calls_in"), ("crossings", "crossings"), ("in, no cfg", "calls_in_no_config"),
           ("app calls", "app_calls"), ("SQL", "statements"), ("game reads", "game_reads")]


def _loads(figures: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(figures.get("loader_calls", {}).items())) or "-"


def print_one(result: dict[str, Any], verbose: bool) -> None:
    print(f"call trace of {result['tree']} ({result['layout']} layout, {result['database']}); "
          f"loaders counted: "
          f"{', '.join(result['loaders'])}"
          + (f"; NOT FOUND: {', '.join(result['loaders_missing'])}"
             if result.get("loaders_missing") else ""))
    print(f"  {'path':<10} " + " ".join(f"{label:>10}" for label, _ in COLUMNS)
          + "  reads by table / loader calls")
    for name, figures in result["paths"].items():
        if "error" in figures:
            print(f"  {name:<10} ERROR {figures['error']}")
            continue
        print(f"  {name:<10} " + " ".join(f"{figures[key]:>10}" for _, key in COLUMNS)
              + f"  {figures['reads_by_table']} / {_loads(figures)}")
    for name, figures in result["paths"].items():
        if "error" in figures:
            continue
        pairs = ", ".join(f"{a}>{b} {n}" for a, b, n in figures["pairs"][:8])
        print(f"    {name}: {figures['note']}; top crossings: {pairs}")
        if verbose:
            for text in figures["sql"]:
                print(f"        {text[:160]}")


def print_side_by_side(before: dict[str, Any], after: dict[str, Any]) -> None:
    print(f"before = {before['tree']} ({before['layout']}), after = {after['tree']} "
          f"({after['layout']}), on {after['database']}; each cell: before -> after")
    print(f"  {'path':<10} " + " ".join(f"{label:>14}" for label, _ in COLUMNS))
    for name in PATHS:
        b, a = before["paths"].get(name, {}), after["paths"].get(name, {})
        if "error" in b or "error" in a:
            print(f"  {name:<10} before: {b.get('error', 'ok')}; after: {a.get('error', 'ok')}")
            continue
        print(f"  {name:<10} " + " ".join(f"{str(b[k]) + ' -> ' + str(a[k]):>14}"
                                          for _, k in COLUMNS))
    print("  loader calls (before -> after):")
    for name in PATHS:
        b, a = before["paths"].get(name, {}), after["paths"].get(name, {})
        if "error" in b or "error" in a:
            continue
        print(f"    {name:<10} {_loads(b)}  ->  {_loads(a)};  reads by table "
              f"{dict(sorted(b['reads_by_table'].items()))} -> "
              f"{dict(sorted(a['reads_by_table'].items()))}")
    print("  calls in, by area pair, that changed most (before -> after):")
    for name in PATHS:
        b, a = before["paths"].get(name, {}), after["paths"].get(name, {})
        if "error" in b or "error" in a:
            continue
        old = {(x, y): n for x, y, n in b["pairs"]}
        new = {(x, y): n for x, y, n in a["pairs"]}
        moved = sorted(set(old) | set(new), key=lambda k: -abs(new.get(k, 0) - old.get(k, 0)))
        print(f"    {name:<10} " + ", ".join(f"{x}>{y} {old.get((x, y), 0)}->{new.get((x, y), 0)}"
                                          for x, y in moved[:6]
                                          if new.get((x, y), 0) != old.get((x, y), 0)))


def run_tree(root: Path, loaders: list[str], postgresql: str | None) -> dict[str, Any]:
    """This script in ``root``'s own interpreter, from ``root``: its figures."""
    python = root / ".venv" / "bin" / "python"
    command = [str(python if python.exists() else sys.executable), str(Path(__file__).resolve()),
               "--json"] + [x for spec in loaders for x in ("--loader", spec)] + (
                   ["--postgresql", postgresql] if postgresql else [])
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"trace in {root} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench trace", description=__doc__.split("\n")[0])
    parser.add_argument("--against", type=Path, help="another tree's root (the before tree)")
    parser.add_argument("--loader", action="append", default=[],
                        help="module[|old.module]:function, another game loader to count")
    parser.add_argument("--json", action="store_true", help="print this tree's figures as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every SQL statement")
    parser.add_argument("--postgresql", nargs="?", const=PG_URL, default=None,
                        help=f"on PostgreSQL (a schema per path, dropped after; default {PG_URL}) "
                             "instead of SQLite")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    extra = [(spec.rsplit(":", 1)[0], spec.rsplit(":", 1)[-1]) for spec in args.loader]
    if args.json:
        print(json.dumps(run_here(extra, args.postgresql)))
        return 0
    if args.against is None:
        print_one(run_here(extra, args.postgresql), args.verbose)
        return 0
    before = run_tree(args.against.resolve(), args.loader, args.postgresql)
    after = run_tree(Path.cwd(), args.loader, args.postgresql)
    print_one(before, args.verbose)
    print()
    print_one(after, args.verbose)
    print()
    print_side_by_side(before, after)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
