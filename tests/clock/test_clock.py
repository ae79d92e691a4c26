"""The clock with an injected "now": reminders, timeouts, absence, vacation, restarts."""
from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from app import services
from app.services import absence
from app.runners import clock
from app.gamelog import store
from app.clock import deadlines as dl
from app.clock.time import short_time_words
from app.db.unit import Unit
from app.db import read_session

from .conftest import T0, hours, is_turn, lead_of

DAY = 24.0


def open_deadlines(gid: str, kind: str = dl.DECISION) -> list[tuple[int, object]]:
    """``(seat, due_at)`` of the game's open deadlines of this kind."""
    with read_session() as session:
        return [(row.seat, dl.as_utc(row.due_at)) for row in dl.open_rows(session, gid, kind=kind)]


def log_of(gid: str) -> list[tuple[int, dict, str]]:
    with read_session() as session:
        return [(r.seat, dict(r.action), r.source) for r in store.load_actions(session, gid)]


def to_act(gid: str) -> list[int]:
    return services.snapshot(gid).view(None)["to_act"]


def test_reminders_come_at_their_leads_once(game_at_t0, tick, mailbox):
    gid = game_at_t0(deadline_hours=DAY, reminders=["half", 2]).game_id
    tick(T0)
    assert all("invited" in s or is_turn(s) for s in mailbox.subjects("ann@example.com"))
    mailbox.clear()

    tick(T0 + hours(12) - timedelta(seconds=1))
    assert mailbox.sent == []
    tick(T0 + hours(12))
    assert sorted(str(m["To"]) for _, m in mailbox.sent) == ["Ann <ann@example.com>",
                                                             "Bob <bob@example.com>"]
    assert all(lead_of(m).startswith("Reminder") for _, m in mailbox.sent)
    assert "Please play by" in mailbox.sent[0][1].get_body(("plain",)).get_content()
    # R29 in the reminder's first words and the body: what the clock then does (issue 49)
    peek_words = "then the clock looks at your first two facedown cards for you"
    assert all(lead_of(m).endswith(f"12 hours left, {peek_words}") for _, m in mailbox.sent)
    assert "After that, the clock looks at your first two facedown cards for you." in \
        mailbox.sent[0][1].get_body(("plain",)).get_content()
    tick(T0 + hours(12))
    tick(T0 + hours(21))
    assert len(mailbox.sent) == 2, "each reminder once"
    tick(T0 + hours(22))
    assert len(mailbox.sent) == 4
    assert log_of(gid) == [], "reminders change nothing in the game"


def test_at_the_deadline_the_default_is_logged_as_timeout_and_the_next_seat_is_mailed(
        game_at_t0, tick, mailbox):
    gid = game_at_t0(deadline_hours=DAY, reminders=[]).game_id
    first = to_act(gid)
    tick(T0)
    mailbox.clear()
    report = tick(T0 + hours(DAY))
    assert report.fired.get("passed") == len(first)
    log = log_of(gid)
    assert log and all(source == "timeout" for _, _, source in log)
    assert {seat for seat, _, _ in log} == set(first)
    # The game moved on: whoever must act now has a fresh deadline and a mail.
    now_to_act = to_act(gid)
    deadlines = open_deadlines(gid)
    assert sorted(seat for seat, _ in deadlines) == sorted(now_to_act)
    assert all(due == T0 + hours(2 * DAY) for _, due in deadlines)
    names = {0: "ann@example.com", 1: "bob@example.com"}
    for seat in now_to_act:
        assert any(is_turn(s) for s in mailbox.subjects(names[seat]))
    # Ticking again at the same moment does nothing more.
    assert tick(T0 + hours(DAY)).deadlines == 0
    assert log_of(gid) == log


def test_a_seat_is_away_after_n_timeouts_in_a_row_and_then_passed_at_once(
        game_at_t0, tick, mailbox):
    """Ann plays; Bob never does. After 2 timeouts (the game's setting) Bob is away."""
    gid = game_at_t0(deadline_hours=DAY, reminders=[], absent_after=2).game_id
    now = T0
    for _ in range(40):
        if services.game_info(gid).status != "running":
            break
        snap = services.snapshot(gid)
        view = snap.view(None)
        if 0 in view["to_act"]:
            from app import engine
            services.submit_action(gid, 0, engine.legal_actions(snap.state, 0)[0], snap.seq)
            continue
        away = any(a == {"type": "away"} for s, a, _ in log_of(gid) if s == 1)
        if away:
            break
        now += hours(DAY)
        tick(now)
    log = log_of(gid)
    away_at = next(i for i, (s, a, src) in enumerate(log) if a == {"type": "away"})
    assert log[away_at] == (1, {"type": "away"}, "system")
    windows = {d_id for d_id in _fired_windows(gid, 1)}
    assert len(windows) == 2
    assert any("Bob is away" in s for s in mailbox.subjects("ann@example.com"))
    assert any("You are marked away" in s for s in mailbox.subjects("bob@example.com"))
    # From now on Bob's decisions are taken at once when Ann moves: no deadline for Bob.
    for _ in range(6):
        snap = services.snapshot(gid)
        if 0 not in snap.view(None)["to_act"]:
            break
        from app import engine
        services.submit_action(gid, 0, engine.legal_actions(snap.state, 0)[0], snap.seq)
    assert open_deadlines(gid) and all(seat == 0 for seat, _ in open_deadlines(gid))
    later = log_of(gid)[away_at + 1:]
    assert any(s == 1 and src == "timeout" for s, _, src in later)
    # "I'm back" is logged and Bob gets deadlines again from his next decision.
    absence.come_back(gid, 1)
    assert log_of(gid)[-1] == (1, {"type": "back"}, "player")
    with read_session() as session:
        assert dl.seat_clock(Unit(session), gid, 1).absent is False


def _fired_windows(gid: str, seat: int) -> list[int]:
    with read_session() as session:
        rows = session.exec(select(dl.Deadline).where(
            dl.Deadline.game_id == gid, dl.Deadline.seat == seat,
            dl.Deadline.kind == dl.DECISION)).all()
        return [r.id for r in rows if r.fired_at is not None]


def test_a_game_where_everyone_is_away_is_abandoned_and_everyone_told(game_at_t0, tick, mailbox):
    gid = game_at_t0(deadline_hours=DAY, reminders=[], absent_after=2).game_id
    now = T0
    for _ in range(30):
        if services.game_info(gid).status != "running":
            break
        now += hours(DAY)
        tick(now)
    assert services.game_info(gid).status == "abandoned"
    assert open_deadlines(gid) == [] and open_deadlines(gid, dl.REMINDER) == []
    for address in ("ann@example.com", "bob@example.com"):
        assert any("abandoned" in s for s in mailbox.subjects(address))
    size = len(log_of(gid))
    tick(now + hours(10 * DAY))
    assert len(log_of(gid)) == size, "an abandoned game is not played on"
    assert sum(1 for s, a, _ in log_of(gid) if a == {"type": "away"}) == 2


def test_vacation_pauses_a_seats_deadline(game_at_t0, tick):
    gid = game_at_t0(deadline_hours=DAY, reminders=[]).game_id
    seat = to_act(gid)[0]
    until = absence.start_vacation(gid, seat, 2, now=T0 + hours(6))
    assert until == T0 + hours(6) + timedelta(days=2)
    tick(T0 + hours(DAY))
    assert all(s != seat for s, _, _ in log_of(gid)), "paused: no timeout for this seat yet"
    tick(T0 + hours(DAY) + timedelta(days=2) - timedelta(seconds=1))
    assert all(s != seat for s, _, _ in log_of(gid))
    tick(T0 + hours(DAY) + timedelta(days=2))
    assert any(s == seat and src == "timeout" for s, _, src in log_of(gid))
    assert absence.vacation_left(gid, seat) == 12


class Killed(BaseException):
    """Stands for the clock process being killed (not an error it could catch)."""


def _run_to(gid_tick, upto_days: int) -> None:
    for day in range(1, upto_days + 1):
        gid_tick(T0 + hours(DAY * day))


def test_killing_the_clock_mid_tick_loses_and_doubles_nothing(game_at_t0, tick, monkeypatch):
    """Two identical games: one with a clock that never dies, one whose clock is
    killed after its first timeout of a tick and restarted; the logs end the same."""
    calm = game_at_t0(deadline_hours=DAY, reminders=["half"], seed="77").game_id
    _run_to(tick, 3)
    expected = log_of(calm)

    crashy = game_at_t0(deadline_hours=DAY, reminders=["half"], seed="77").game_id
    real_submit = services.submit_action
    calls = {"n": 0}

    def dying_submit(*args, **kwargs):
        result = real_submit(*args, **kwargs)
        calls["n"] += 1
        if calls["n"] == 1:
            raise Killed()  # the action is committed, the clock dies right after
        return result

    monkeypatch.setattr(services, "submit_action", dying_submit)
    now = T0 + hours(12)
    tick(now)  # the reminders
    now = T0 + hours(DAY)
    try:
        tick(now)
    except Killed:
        pass
    monkeypatch.setattr(services, "submit_action", real_submit)
    # Restarted at once: the dead clock's leases still hold, nothing is fired twice.
    tick(now)
    # After the lease ran out the rest of the work is picked up.
    tick(now + clock.LEASE + timedelta(seconds=1))
    for day in (2, 3):
        tick(T0 + hours(DAY * day))
    assert [(s, a, src) for s, a, src in log_of(crashy)] == expected
    assert len(log_of(crashy)) > 0


def test_a_clock_killed_between_claiming_and_working_leaves_the_work_for_later(
        game_at_t0, tick, app):
    gid = game_at_t0(deadline_hours=DAY, reminders=[]).game_id
    from app.db import get_engine
    now = T0 + hours(DAY)
    claimed = clock.claim_due(get_engine(app), now, owner="dead-clock")
    assert len(claimed) == len(to_act(gid))
    assert tick(now).deadlines == 0 and log_of(gid) == []
    tick(now + clock.LEASE + timedelta(seconds=1))
    assert log_of(gid) and all(src == "timeout" for _, _, src in log_of(gid))


def test_the_seat_page_says_when_its_decision_is_due_and_what_the_clock_then_does(
        app, game_at_t0):
    """The same time and clock words as the reminder (issue 49 item 1), in the reader's
    zone, under the question; a seat with nothing to decide reads no such line."""
    created = game_at_t0(deadline_hours=DAY, reminders=[])
    due = short_time_words(T0 + hours(DAY))
    client = app.test_client()
    with dl.at(T0 + hours(1)):
        page = client.get(f"/play/{created.tokens[0]}").get_data(as_text=True)
    assert (f"Due {due}; then the clock looks at your first two facedown cards for you."
            in page)
    ann = created.tokens[0]
    with dl.at(T0 + hours(1)):
        services.submit_action(created.game_id, 0, {"type": "peek", "positions": [0, 1]}, 0)
        page = client.get(f"/play/{ann}").get_data(as_text=True)
    assert to_act(created.game_id) == [1], "Bob peeks and begins (seed 12345)"
    assert "then the clock" not in page, "Ann's peek is made: nothing of hers is due"
