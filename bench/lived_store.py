"""A store that has lived (issue 30): what 30 days of a busy server keep, built in seconds.

Every other benchmark starts from empty tables, and so it never saw a query whose cost
grows with the rows stored (a move's read walked the whole outbox: 0.91x the peer on a
fresh store, 0.17x after 11,000 mails). This module fills an already-migrated
PostgreSQL schema with a month of history, for the bench (``python -m bench lived``,
``bench/lived_bench.py``) and for the PostgreSQL test that asserts a move reads a
bounded number of rows.

    build(engine, games=10_000, outbox_rows=250_000, people=2_000, days=30,
          analyze=True, autovacuum=None) -> {table: rows in the store}

The history is real, then copied. A few template games (two, three and four seats,
fixed seeds) are played to their end once through ``services.submit_action`` in the
same schema, by seats choosing at random among their legal moves, exactly as the web
path writes them: their action logs, deadlines (decisions and reminders, all closed),
seat mail and clock rows, state caches and outbox rows. Then set-based SQL
(``INSERT ... SELECT ... FROM generate_series``) copies them ``games`` times:

- ``game``: status ``over``, created over the last ``days`` days (each game spans two
  days, the newest ended at the build); ``seat``: the template's seats, each at one of
  ``people`` addresses ``p<n>@example.com`` (the addresses the bench's live games use,
  ``p0@example.com``..., so trust, caps and quiet hours meet their history), distinct
  within a game; ``action``: the template's log, its times stretched over the game's span;
- ``seat_mail``, ``seat_clock``, ``deadline`` (every one closed), ``state_cache``;
  ``person``: one row per person (a few with quiet hours, a few daily digests);
- ``outbox``: ``outbox_rows`` rows spread evenly over the games and over each template
  game's mails (invitations, turns, round ends, game over): turn mails 60% sent, 30%
  superseded, 6% notified (to notice targets only), the rest failed; other mails 97%
  sent, 2% notified, 1% failed. A mail that left carries a real body (the template's
  round-end mail; a turn mail is composed at send time and the templates' were all
  superseded unsent). Distinct idempotency keys and Message-IDs, ``to`` the seat's
  address, ``created_at``/``sent_at`` within the game's span;
- ``inbox``: two applied replies per game (``peek`` by mail, a short raw message);
  ``talk``: three messages in every third game.

Nothing is left pending or open: the clock and the sender find nothing to do in the
history, only its weight. ``build`` may be called again on the same schema: it adds
``games`` more (new ids, keys and Message-IDs; the templates are played once), which
is how a test grows a store past statistics taken when it was small
(``analyze=False`` leaves the statistics as they were; ``autovacuum=False`` turns
autovacuum, and so its auto-analyze, off for the store's tables first;
``set_autovacuum(engine, True)`` turns it back on).

Reuse (the bench): ``lived_url(base_url)`` returns the URL of the schema
``bench_lived_v1``, building it first when it is missing or its fingerprint (this
file's text, every migration's text, the sizes) differs; the fingerprint and the marks
of what the build left (highest id of every table, the build's end time) are the
comment of its ``game`` table. A measured run adds its games and mail to it, and
``reset(engine)`` deletes them again (every row above the marks; the action log's
append-only trigger is bypassed for that delete only, with
``session_replication_role = replica``), so each run starts from the same store.
What a run changes in rows of the history itself (a ``person`` row of
``p0@example.com`` touched by a live game) is not undone.
"""
from __future__ import annotations

import hashlib
import json
import logging
import random
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import sqlalchemy as sa

#: The template games: (seats, seed); played once per schema.
TEMPLATES = ((3, 7001), (2, 7002), (4, 7003), (3, 7004))
TEMPLATE_NAME = "lived-store template"
#: How long each copied game lasted (its log's times are stretched over it).
GAME_SPAN_HOURS = 48
#: The reused store of the bench.
SCHEMA = "bench_lived_v1"
#: Tables whose rows a measured run may add, by integer id (``reset`` deletes above the marks).
ID_TABLES = ("action", "outbox", "seat_mail", "seat_clock", "person", "tenure", "deadline",
             "inbox", "talk", "vote", "ballot", "clock_gift", "notice_target", "notice_delivery")
#: Every table the history fills (autovacuum, statistics, counts).
TABLES = ("game", "seat", "tenure", "action", "state_cache", "seat_mail", "seat_clock",
          "person", "deadline", "inbox", "talk", "outbox")

log = logging.getLogger("bench.lived_store")


def address(n: int) -> str:
    """Person ``n``'s address, as the bench's live games name their players."""
    return f"p{n}@example.com"


# -- the schema an engine works in --------------------------------------------------------

def _schema(conn: sa.Connection) -> str:
    return str(conn.exec_driver_sql("SELECT current_schema()").scalar_one())


def _url_of(engine: sa.Engine, schema: str) -> str:
    return engine.url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# -- the templates ----------------------------------------------------------------------

def _templates(engine: sa.Engine) -> list[str]:
    """The template games' ids, playing them first when the schema has none."""
    with engine.connect() as conn:
        found = [row[0] for row in conn.execute(sa.text(
            "SELECT id FROM game WHERE name LIKE :name ORDER BY name"),
            {"name": TEMPLATE_NAME + " %"})]
        schema = _schema(conn)
    if len(found) == len(TEMPLATES):
        return found
    if found:
        raise RuntimeError(f"schema {schema} holds {len(found)} of {len(TEMPLATES)} template "
                           "games: a build was interrupted; drop the schema and build again")
    return _play_templates(_url_of(engine, schema))


def _play_templates(url: str) -> list[str]:
    """Play every template game to its end through the services, as the web path writes
    a move; then mark the mails they left pending as sent (nothing waits in the history)."""
    from app import create_app, services
    from app.db import get_engine
    from app.engine import rules

    quiet = logging.getLogger("app")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    made: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="silver-eye-lived-") as folder:
            app = create_app({"DATABASE_URL": url, "SECRET_KEY": "lived-store-" + "x" * 32,
                              "INSTANCE_PATH": str(Path(folder) / "instance"),
                              "MAIL_BACKEND": "file", "MAIL_DIR": str(Path(folder) / "mail")})
            with app.app_context():
                for number, (seats, seed) in enumerate(TEMPLATES):
                    created = services.create_game(
                        [{"name": f"P{i}", "email": address(i)} for i in range(seats)],
                        {"memory": False}, name=f"{TEMPLATE_NAME} {number}", seed=str(seed))
                    rng = random.Random(seed)
                    for _ in range(5000):
                        snap = services.snapshot(created.game_id)
                        if snap.game.status != "running":
                            break
                        seat = rng.choice(rules.to_act(snap.state))
                        action = rng.choice(rules.legal_actions(snap.state, seat))
                        services.submit_action(created.game_id, seat, action, snap.seq)
                    else:
                        raise RuntimeError("a template game did not end")
                    made.append(created.game_id)
            with get_engine(app).begin() as conn:
                conn.execute(sa.text(
                    "UPDATE outbox SET status = 'sent', attempts = 1, "
                    "sent_at = created_at + interval '3 seconds' "
                    "WHERE status = 'pending' AND game_id = ANY(:ids)"), {"ids": made})
            get_engine(app).dispose()
    finally:
        quiet.setLevel(level)
    return made


# -- the copy ---------------------------------------------------------------------------

#: Each statement runs once per build, in one transaction, with the temporary tables
#: ``lv_t`` (templates), ``lv_g`` (the new games) and ``lv_s`` (their seats).
_SETUP = """
CREATE TEMP TABLE lv_t ON COMMIT DROP AS
SELECT (row_number() OVER (ORDER BY g.name) - 1)::int AS t, g.id AS tid, g.seats,
       g.created AS t_start,
       greatest(extract(epoch FROM (SELECT max(a.created) FROM action a WHERE a.game_id = g.id)
                        - g.created), 1) AS t_len,
       (SELECT count(*) FROM outbox o WHERE o.game_id = g.id)::int AS n_out,
       (SELECT max(seq) FROM action a WHERE a.game_id = g.id) AS last_seq
FROM game g WHERE g.id = ANY(:templates);

CREATE TEMP TABLE lv_body ON COMMIT DROP AS
SELECT DISTINCT ON (o.game_id) o.game_id AS tid, o.text, o.html
FROM outbox o WHERE o.game_id = ANY(:templates) AND o.kind = 'round' ORDER BY o.game_id, o.id;

CREATE TEMP TABLE lv_out ON COMMIT DROP AS
SELECT t.t, (row_number() OVER (PARTITION BY o.game_id ORDER BY o.id) - 1)::int AS rn, o.*
FROM outbox o JOIN lv_t t ON t.tid = o.game_id;

CREATE TEMP TABLE lv_g ON COMMIT DROP AS
SELECT g, :tag || lpad(g::text, 7, '0') AS id, (g % :n_templates)::int AS t,
       :now - make_interval(secs => (:days * 86400.0 * (:games - g) / :games)
                                    + :span_hours * 3600.0) AS start_at
FROM generate_series(0, :games - 1) AS g;
ALTER TABLE lv_g ADD PRIMARY KEY (g);

CREATE TEMP TABLE lv_s ON COMMIT DROP AS
SELECT lv_g.id, s.index,
       'p' || ((lv_g.g * 7 + :offset + s.index * (:people / t.seats)) % :people) || '@example.com'
           AS email
FROM lv_g JOIN lv_t t USING (t) JOIN seat s ON s.game_id = t.tid;
"""

#: The time a template row's moment ``{col}`` stands for in the copied game.
_STRETCH = ("(lv_g.start_at + make_interval(secs => extract(epoch FROM {col} - t.t_start)"
            " / t.t_len * :span_hours * 3600.0))")

_COPIES = {
    "game": """
INSERT INTO game (id, created, status, name, options, seed, commitment, seats, created_by,
                  rules_version, talk_spectators, end_reason, series_id, rematch_of, series_no)
SELECT lv_g.id, lv_g.start_at, 'over', 'Silver Eye', tg.options, tg.seed, tg.commitment,
       tg.seats, md5('creator' || lv_g.g), tg.rules_version, tg.talk_spectators, NULL, NULL,
       NULL, 1
FROM lv_g JOIN lv_t t USING (t) JOIN game tg ON tg.id = t.tid""",
    "seat": """
INSERT INTO seat (game_id, index, name, email, token_version, kind, preferences,
                  summary_dismissed)
SELECT lv_s.id, lv_s.index, initcap(split_part(lv_s.email, '@', 1)), lv_s.email, 1, 'human',
       '{}'::json, 4
FROM lv_s""",
    "tenure": """
INSERT INTO tenure (game_id, seat, from_step, to_step, name, address, started_at)
SELECT lv_s.id, lv_s.index, 0, NULL, initcap(split_part(lv_s.email, '@', 1)), lv_s.email,
       lv_g.start_at
FROM lv_s JOIN lv_g USING (id)""",
    "action": f"""
INSERT INTO action (game_id, seq, seat, action, source, created)
SELECT lv_g.id, a.seq, a.seat, a.action,
       CASE WHEN (lv_g.g + a.seq) % 97 = 0 THEN 'mail' ELSE a.source END,
       {_STRETCH.format(col='a.created')}
FROM lv_g JOIN lv_t t USING (t) JOIN action a ON a.game_id = t.tid
ORDER BY lv_g.g, a.seq""",
    "state_cache": """
INSERT INTO state_cache (game_id, seq, state, updated, engine_version)
SELECT lv_g.id, c.seq, c.state, lv_g.start_at + make_interval(hours => :span_hours),
       c.engine_version
FROM lv_g JOIN lv_t t USING (t) JOIN state_cache c ON c.game_id = t.tid""",
    "seat_mail": """
INSERT INTO seat_mail (game_id, seat, mode, last_acted_step, unsent_mail_id,
                       talk_mode, talk_muted, talk_told_id, by_mail, updated_at)
SELECT lv_s.id, m.seat, m.mode, m.last_acted_step, NULL,
       m.talk_mode, m.talk_muted, m.talk_told_id, m.by_mail, lv_g.start_at
FROM lv_s JOIN lv_g USING (id) JOIN lv_t t USING (t)
JOIN seat_mail m ON m.game_id = t.tid AND m.seat = lv_s.index""",
    "seat_clock": """
INSERT INTO seat_clock (game_id, seat, consecutive_timeouts, absent, vacation_days_used,
                        vacation_until, away_noticed, bank_used_seconds)
SELECT lv_s.id, lv_s.index, 0, false, (lv_g.g + lv_s.index) % 7 / 6, NULL, false, 0
FROM lv_s JOIN lv_g USING (id)""",
    "person": """
INSERT INTO person (address, mode, updated_at, soft_bounces, by_mail, last_digest_at,
                    time_zone, quiet_start, quiet_end)
SELECT 'p' || n || '@example.com', CASE WHEN n % 50 = 49 THEN 'daily' ELSE 'per_game' END,
       :now - make_interval(days => n % :days), 0, true,
       CASE WHEN n % 50 = 49 THEN :now - make_interval(hours => 20) END,
       CASE WHEN n % 5 = 0 THEN 'Europe/Berlin' END,
       CASE WHEN n % 4 = 0 THEN 1320 END, CASE WHEN n % 4 = 0 THEN 480 END
FROM generate_series(0, :people - 1) AS n
ON CONFLICT (address) DO NOTHING""",
    "deadline": f"""
INSERT INTO deadline (game_id, seat, kind, due_at, opened_step, opened_at, fired_at, done_at,
                      outcome, lease_owner, lease_until, ref_id, budget_seconds)
SELECT lv_g.id, d.seat, d.kind, {_STRETCH.format(col='d.opened_at')} + (d.due_at - d.opened_at),
       d.opened_step, {_STRETCH.format(col='d.opened_at')}, NULL,
       {_STRETCH.format(col='coalesce(d.done_at, d.opened_at)')},
       coalesce(d.outcome, 'acted'), NULL, NULL, NULL, d.budget_seconds
FROM lv_g JOIN lv_t t USING (t) JOIN deadline d ON d.game_id = t.tid
ORDER BY lv_g.g, d.id""",
    "inbox": f"""
INSERT INTO inbox (message_id, received_at, via, mail_from, rcpt, raw, status, outcome,
                   game_id, seat, step, applied_seq, attempts, done_at)
SELECT '<reply.' || lv_g.id || '.' || r || '@mail.example.com>',
       {_STRETCH.format(col='a.created')}, 'smtp', lv_s.email,
       json_build_array('play+' || lv_g.id || '@post.example'),
       convert_to('From: ' || lv_s.email || E'\\r\\nSubject: Re: your turn\\r\\n\\r\\npeek 1 2\\r\\n\\r\\n'
                  || repeat(E'> Your village: ? ? ? ?\\r\\n', 40), 'UTF8'),
       'applied', 'applied', lv_g.id, a.seat, a.seq - 1, a.seq, 1,
       {_STRETCH.format(col='a.created')} + interval '1 second'
FROM lv_g JOIN lv_t t USING (t) CROSS JOIN generate_series(1, 2) AS r
JOIN action a ON a.game_id = t.tid AND a.seq = r * 2
JOIN lv_s ON lv_s.id = lv_g.id AND lv_s.index = a.seat""",
    "talk": """
INSERT INTO talk (game_id, seat, text, step, at, source, key)
SELECT lv_g.id, r % t.seats, (ARRAY['nice Dracula', 'good game everyone',
                                   'sorry, slow week — back tomorrow'])[r],
       r * 20, lv_g.start_at + make_interval(hours => r * 10), 'page', NULL
FROM lv_g JOIN lv_t t USING (t) CROSS JOIN generate_series(1, 3) AS r
WHERE lv_g.g % 3 = 0""",
    # k-th new row: game k % games, the game's (k / games)-th mail, taken evenly over the
    # template's mails (or around them again, ``wrap`` times, when a game gets more)
    "outbox": f"""
INSERT INTO outbox (game_id, seat, kind, "to", subject, text, html, headers, status, attempts,
                    next_attempt_at, lease_owner, lease_until, sent_at, message_id, idempotency,
                    last_error, created_at, announces, held_until, conversation, held_untold,
                    held_why)
SELECT x.id, o.seat, o.kind, coalesce(lv_s.email, 'p0@example.com'),
       CASE WHEN o.kind = 'turn' THEN 'Silver Eye · game ' || x.id || ': your turn'
            ELSE replace(o.subject, t.tid, x.id) END,
       CASE WHEN o.text = '' AND x.status <> 'superseded' THEN b.text ELSE o.text END,
       CASE WHEN o.text = '' AND x.status <> 'superseded' THEN b.html ELSE o.html END,
       replace(o.headers::text, t.tid, x.id)::json,
       x.status, CASE WHEN x.status = 'superseded' THEN 0 ELSE 1 END,
       x.created_at, NULL, NULL,
       CASE WHEN x.status IN ('sent', 'notified') THEN x.created_at
            + make_interval(secs => 1 + x.k % 240) END,
       '<' || :tag || '.' || x.k || '@lived.localhost>',
       replace(o.idempotency, t.tid, x.id) || CASE WHEN x.wrap > 0 THEN '-w' || x.wrap ELSE '' END,
       CASE WHEN x.status = 'failed' THEN '550 5.1.1 mailbox unavailable' END,
       x.created_at, o.announces, NULL, false, false, NULL
FROM (
  SELECT y.*, CASE WHEN y.kind = 'turn' THEN
                CASE WHEN y.h < 60 THEN 'sent' WHEN y.h < 90 THEN 'superseded'
                     WHEN y.h < 96 THEN 'notified' ELSE 'failed' END
              ELSE CASE WHEN y.h < 97 THEN 'sent' WHEN y.h < 99 THEN 'notified'
                        ELSE 'failed' END END AS status
  FROM (
    SELECT z.*, o2.kind, (z.k * 7919 + 13) % 100 AS h,
           least({_STRETCH.format(col='o2.created_at')} + make_interval(hours => z.wrap),
                 :now) AS created_at
    FROM (
      SELECT k, lv_g.g, lv_g.id, lv_g.t, lv_g.start_at,
             CASE WHEN :per_game <= t.n_out
                  THEN (k / :games) * (t.n_out - 1) / greatest(:per_game - 1, 1)
                  ELSE (k / :games) % t.n_out END AS rn,
             CASE WHEN :per_game <= t.n_out THEN 0 ELSE (k / :games) / t.n_out END AS wrap
      FROM generate_series(0, :outbox_rows - 1) AS k
      JOIN lv_g ON lv_g.g = k % :games JOIN lv_t t ON t.t = lv_g.t
    ) z
    JOIN lv_t t ON t.t = z.t JOIN lv_g ON lv_g.g = z.g
    JOIN lv_out o2 ON o2.t = z.t AND o2.rn = z.rn
  ) y
) x
JOIN lv_t t ON t.t = x.t
JOIN lv_out o ON o.t = x.t AND o.rn = x.rn
JOIN lv_body b ON b.tid = t.tid
LEFT JOIN lv_s ON lv_s.id = x.id AND lv_s.index = coalesce(o.seat, 0)
ORDER BY x.g, x.k""",
}


def _without_triggers(conn: sa.Connection) -> None:
    """Skip the foreign-key checks of the copy (a third of its time: every copied row
    names a game inserted just before it) when the role may (a superuser); else check."""
    superuser = conn.exec_driver_sql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    if superuser.scalar():
        conn.exec_driver_sql("SET LOCAL session_replication_role = replica")


def set_autovacuum(engine: sa.Engine, enabled: bool) -> None:
    """Turn autovacuum (and with it auto-analyze) off or back on for the store's tables."""
    with engine.begin() as conn:
        for table in TABLES:
            if enabled:
                conn.exec_driver_sql(f"ALTER TABLE {_q(table)} RESET (autovacuum_enabled)")
            else:
                conn.exec_driver_sql(f"ALTER TABLE {_q(table)} SET (autovacuum_enabled = false)")


def counts(engine: sa.Engine) -> dict[str, int]:
    """Rows per table of the store."""
    with engine.connect() as conn:
        return {table: int(conn.exec_driver_sql(f"SELECT count(*) FROM {_q(table)}").scalar_one())
                for table in TABLES}


def build(engine: sa.Engine, *, games: int = 10_000, outbox_rows: int = 250_000,
          people: int = 2_000, days: int = 30, analyze: bool = True,
          autovacuum: bool | None = None) -> dict[str, int]:
    """Fill the migrated PostgreSQL schema ``engine`` works in (its ``search_path``) with
    ``games`` finished games and ``outbox_rows`` outbox rows over ``days`` days, among
    ``people`` addresses ``p<n>@example.com`` (see the module's text). Returns the rows
    per table of the store afterwards (the template games included).

    ``analyze``: ``ANALYZE`` the tables at the end (False: their statistics stay what
    they were). ``autovacuum``: False turns autovacuum off for the tables before
    the copy (so nothing analyzes them behind the caller's back), True turns it back
    on, None leaves it as it is. Called again, it adds as many again."""
    if engine.dialect.name != "postgresql":
        raise ValueError("the lived store is built on PostgreSQL")
    if games < 1 or people < 4 or outbox_rows < 0 or days < 1:
        raise ValueError("at least one game, four people and one day")
    if autovacuum is not None:
        set_autovacuum(engine, autovacuum)
    began = time.perf_counter()
    templates = _templates(engine)
    with engine.begin() as conn:
        batch = int(conn.execute(sa.text(
            "SELECT count(DISTINCT left(id, 3)) FROM game WHERE id LIKE 'l%' AND length(id) = 10 "
            "AND name = 'Silver Eye' AND created_by IS NOT NULL")).scalar_one())
        letters = "abcdefghjkmnpqrstuvwxyz"
        tag = "l" + letters[batch // len(letters) % len(letters)] + letters[batch % len(letters)]
        params = {"templates": templates, "n_templates": len(templates), "tag": tag,
                  "now": datetime.now(timezone.utc), "days": days, "games": games,
                  "span_hours": GAME_SPAN_HOURS, "people": people, "offset": batch * 13,
                  "outbox_rows": outbox_rows, "per_game": max(1, -(-outbox_rows // games))}
        conn.exec_driver_sql("SET LOCAL work_mem = '64MB'")
        conn.exec_driver_sql("SET LOCAL synchronous_commit = off")
        _without_triggers(conn)
        try:  # full-page images compressed: the copy writes a few GB of WAL otherwise
            with conn.begin_nested():
                conn.exec_driver_sql("SET LOCAL wal_compression = lz4")
        except sa.exc.DBAPIError:
            pass
        for statement in _SETUP.split(";\n"):
            if statement.strip():
                conn.execute(sa.text(statement), params)
        for table, statement in _COPIES.items():
            if table == "outbox" and outbox_rows == 0:
                continue
            start = time.perf_counter()
            inserted = conn.execute(sa.text(statement), params).rowcount
            log.info("lived store: %s %d rows in %.1f s", table, inserted,
                     time.perf_counter() - start)
        if analyze:
            for table in TABLES:
                conn.exec_driver_sql(f"ANALYZE {_q(table)}")
    log.info("lived store: built in %.1f s", time.perf_counter() - began)
    return counts(engine)


# -- the bench's reused store --------------------------------------------------------------

def fingerprint(**sizes: int) -> str:
    """What the store was built by: this file, every migration's text (a migration
    changed in place, an index added to it, builds again) and the sizes."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    versions = Path(__file__).resolve().parent.parent / "migrations" / "versions"
    for migration in sorted(versions.glob("*.py")):
        digest.update(migration.name.encode() + migration.read_bytes())
    digest.update(json.dumps(sorted(sizes.items())).encode())
    return digest.hexdigest()[:16]


def _meta(conn: sa.Connection) -> dict[str, Any] | None:
    text = conn.exec_driver_sql(
        "SELECT obj_description(to_regclass('game'), 'pg_class')").scalar()
    try:
        found = json.loads(text) if text else None
    except ValueError:
        return None
    return found if isinstance(found, dict) and "lived_store" in found else None


def marks(engine: sa.Engine) -> dict[str, Any] | None:
    """The fingerprint and marks the reused store was left with (None: not a lived store)."""
    with engine.connect() as conn:
        return _meta(conn)


def lived_url(base_url: str, schema: str = SCHEMA, rebuild: bool = False,
              **sizes: int) -> tuple[str, dict[str, Any]]:
    """The reused lived store: ``(url of its schema, its marks)``, built first when it is
    missing, its fingerprint differs, or ``rebuild``. ``sizes``: ``build``'s keywords."""
    from app.db import upgrade

    admin = sa.create_engine(base_url, poolclass=sa.pool.NullPool)
    url = _url_of(admin, schema)
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    wanted = fingerprint(**sizes)
    try:
        with admin.connect() as conn:
            exists = conn.execute(sa.text(
                "SELECT 1 FROM pg_namespace WHERE nspname = :s"), {"s": schema}).first()
        found = marks(engine) if exists else None
        if found is not None and found.get("fingerprint") == wanted and not rebuild:
            return url, found
        print(f"  building the lived store in schema {schema} "
              f"({'fingerprint changed' if found else 'none yet'}) ...", flush=True)
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {_q(schema)} CASCADE")
            conn.exec_driver_sql(f"CREATE SCHEMA {_q(schema)}")
        start = time.perf_counter()
        upgrade(url)
        built = build(engine, **sizes)
        seconds = time.perf_counter() - start
        with engine.begin() as conn:
            ids = {table: int(conn.exec_driver_sql(
                f"SELECT coalesce(max(id), 0) FROM {_q(table)}").scalar_one())
                for table in ID_TABLES}
            found = {"lived_store": 1, "fingerprint": wanted, "ids": ids, "rows": built,
                     "built_at": datetime.now(timezone.utc).isoformat(),
                     "build_seconds": round(seconds, 1)}
            conn.execute(sa.text(f"COMMENT ON TABLE game IS {_literal(json.dumps(found))}"))
        print(f"  built in {seconds:.0f} s: " + ", ".join(
            f"{table} {rows:,}" for table, rows in built.items()), flush=True)
        return url, found
    finally:
        engine.dispose()
        admin.dispose()


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def reset(engine: sa.Engine) -> dict[str, int]:
    """Delete what measured runs added to the reused store since its build: rows above
    the marked ids, games created after the build with their seats and caches, and
    every heartbeat and used form token. Returns the rows deleted per table."""
    with engine.begin() as conn:
        found = _meta(conn)
        if found is None:
            raise RuntimeError("not a lived store (no marks on its game table)")
        conn.exec_driver_sql("SET LOCAL session_replication_role = replica")  # the log's trigger
        deleted: dict[str, int] = {}
        for table, mark in found["ids"].items():
            deleted[table] = conn.execute(sa.text(
                f"DELETE FROM {_q(table)} WHERE id > :mark"), {"mark": mark}).rowcount
        newer = {"at": datetime.fromisoformat(found["built_at"])}
        for table in ("seat", "state_cache"):
            deleted[table] = conn.execute(sa.text(
                f"DELETE FROM {_q(table)} WHERE game_id IN "
                "(SELECT id FROM game WHERE created > :at)"), newer).rowcount
        deleted["game"] = conn.execute(sa.text("DELETE FROM game WHERE created > :at"),
                                       newer).rowcount
        for table in ("heartbeat", "used_form_token"):
            deleted[table] = conn.exec_driver_sql(f"DELETE FROM {_q(table)}").rowcount
    return {table: rows for table, rows in deleted.items() if rows}
