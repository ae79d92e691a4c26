"""Turn mail only when a person needs it, never stale (issue 7 item 1).

Games are played with an injected clock (``deadlines.at``): a player "acts
within the grace period" by moving before the sender's next run past it, and
"waits" by letting the sender run first. The sender's backend checks every
mail at the moment it is handed over: the seat it goes to must still face,
in the same round, the decision its subject names.
"""
from __future__ import annotations

import random
import re
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any, Callable

import pytest
from sqlmodel import Session, select

from app import engine, services
from app.runners import clock, sending
from app.clock import deadlines as dl
from app.db import get_engine
from app.engine import bots
from app.mail import compose, notify, turn_mails
from app.mail import seat_prefs
from app.mail.models import PENDING, SENT, SUPERSEDED, Outbox
from app.mail.wire import WireMessage

from .conftest import is_turn, lead_of

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=timezone.utc)
GRACE = timedelta(seconds=120)
ADDRESS_OF = {0: "ann@example.com", 1: "bob@example.com", 2: "cid@example.com",
              3: "dee@example.com"}
SEAT_OF = {address: seat for seat, address in ADDRESS_OF.items()}
#: A turn mail's (or reminder's) first line: group 1 the round, group 2 what is asked
#: (the subject is the game's, the same for every mail: issue 19 item 4).
SUBJECT = re.compile(r"^(?=.*\(round (\d+)\))(?:Reminder, y|Y)our turn: (.+?) \(round \d+\)")


def asked_words(game_id: str, seat: int) -> str:
    """What the seat's turn mail says is asked, read off the seat's own view now (a turn
    names the discard it may take: issue 49 item 1)."""
    snapshot = services.snapshot(game_id)
    view = snapshot.view(seat)
    return compose.lead_words(compose.decision_of(view, seat), view, seat, snapshot.game.names)


class CheckingMailbox:
    """A mail backend that, when handed a turn mail or reminder, checks against the
    game as it stands at that moment that the mail is still true."""

    def __init__(self, game_id: str | None = None) -> None:
        self.sent: list[EmailMessage] = []
        self.checked = 0
        self.stale: list[str] = []

    def __enter__(self) -> "CheckingMailbox":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def send(self, wire: WireMessage, key: str, envelope_from: str | None = None,
             before_delivery: Callable[[], object] = lambda: None) -> None:
        before_delivery()
        message = wire.parsed
        self.sent.append(message)
        subject = lead_of(message)
        if not is_turn(subject) and "reminder" not in subject.lower():
            return
        seat = SEAT_OF[message["To"].addresses[0].addr_spec]
        game_id = game_of(message)
        status = services.snapshot(game_id).view(None)
        match = SUBJECT.search(subject)
        assert match, subject
        asked = compose.decision_of(status, seat)
        if not (status["phase"] != "over" and seat in status["to_act"]
                and int(match.group(1)) == status["round"]
                and match.group(2) == asked_words(game_id, seat)):
            self.stale.append(f"{subject!r} to seat {seat}: the game is in round "
                              f"{status['round']}, seat asked {asked!r}")
        self.checked += 1

    def turn_mails(self, address: str | None = None) -> list[EmailMessage]:
        return [m for m in self.sent if is_turn(lead_of(m))
                and (address is None or m["To"].addresses[0].addr_spec == address)]


def game_of(message: EmailMessage) -> str:
    with Session(get_engine(_APP[0])) as session:
        row = session.exec(select(Outbox).where(
            Outbox.message_id == str(message["Message-ID"]))).one()
        return str(row.game_id)


_APP: list[Any] = []


@pytest.fixture
def new_game(new_game):
    """Games created at T0 (their first mails are written then)."""
    def make(**kwargs: Any) -> Any:
        with dl.at(T0):
            return new_game(**kwargs)
    return make


@pytest.fixture
def graced(app):
    """The app with the default grace period (the suite's conftest turns it off)."""
    app.config.pop("TURN_MAIL_DELAY_SECONDS", None)
    _APP[:] = [app]
    return app


def waited_on(game_id: str) -> list[int]:
    return services.snapshot(game_id).view(None)["to_act"]


def play(app: Any, game_id: str, mailbox: CheckingMailbox, *, wait: Callable[[int], float],
         start: datetime = T0, rng: random.Random | None = None) -> dict[str, Any]:
    """Play a game to its end. Before each move of seat s, ``wait(s)`` seconds pass
    and the sender runs; the move is made at that moment.

    Returns the waiting stretches of each seat, each named by the decision it
    began with: a stretch begins when a seat becomes waited on after not being
    (bots move in the same request, so this is followed action by action), or
    when another seat's move hands it a fresh turn, or when the seat's own move
    leaves it facing a decision (issue 17 item 2: "one mail per waiting stretch"
    counts from the seat's last action, so a seat that drew and stopped is mailed).
    """
    rng = rng or random.Random(5)
    now = start
    stretches: dict[int, list[str]] = {}

    def began(status: dict[str, Any], seat: int) -> None:
        stretches.setdefault(seat, []).append(
            asked_words(game_id, seat))

    first = services.snapshot(game_id)
    for seat in first.view(None)["to_act"]:
        began(first.view(None), seat)
    for _ in range(2000):
        snap = services.snapshot(game_id)
        status = snap.view(None)
        if status["phase"] == "over":
            break
        seat = status["to_act"][0]
        now += timedelta(seconds=wait(seat))
        clock.send_mail_due(app, now, backend=mailbox)
        action = bots.choose("greedy", snap.state, seat, rng)
        with dl.at(now):
            done = services.submit_action(game_id, seat, action, snap.seq)
        state = snap.state
        for item in done.applied:
            before = engine.status(state)
            state, _ = engine.apply_action(state, item.seat, item.action)
            after = engine.status(state)
            if after["phase"] == "over":
                break
            for s in after["to_act"]:
                if s not in before["to_act"] or (_fresh(after, s) and not _fresh(before, s)) \
                        or (s == item.seat and item.source == "player"):
                    began(after, s)
    now += timedelta(hours=1)
    clock.send_mail_due(app, now, backend=mailbox)
    return {"stretches": stretches, "end": now}


def statuses(app: Any, kind: str = "turn") -> dict[str, int]:
    counts: dict[str, int] = {}
    with Session(get_engine(app)) as session:
        for row in session.exec(select(Outbox).where(Outbox.kind == kind)):
            counts[row.status] = counts.get(row.status, 0) + 1
    return counts


def test_a_player_against_bots_who_acts_within_the_grace_period_gets_no_turn_mail(
        graced, new_game):
    gid = new_game(seats=3, bots=(1, 2), seed="31").game_id
    mailbox = CheckingMailbox()
    play(graced, gid, mailbox, wait=lambda seat: 30)
    assert services.game_info(gid).status == "over"
    assert mailbox.turn_mails() == []
    # the mails were written and then superseded, never sent
    assert statuses(graced) == {SUPERSEDED: statuses(graced)[SUPERSEDED]}
    assert statuses(graced)[SUPERSEDED] > 10
    # round and game-over mails still go to the person
    subjects = [lead_of(m) for m in mailbox.sent]
    assert sum("is over" in s for s in subjects) == 4


def test_a_player_against_bots_who_waits_gets_one_mail_per_waiting_stretch(graced, new_game):
    gid = new_game(seats=3, bots=(1, 2), seed="31").game_id
    mailbox = CheckingMailbox()
    record = play(graced, gid, mailbox, wait=lambda seat: 200)
    stretches = record["stretches"][0]
    mails = mailbox.turn_mails("ann@example.com")
    assert len(mails) == len(stretches) > 10
    # each names the decision its stretch began with
    assert [SUBJECT.search(lead_of(m)).group(2) for m in mails] == stretches
    assert mailbox.stale == [] and mailbox.checked == len(mails)


@pytest.mark.slow  # whole game by links, every mail checked
def test_three_people_playing_by_their_links_get_one_mail_per_turn_naming_the_decision(
        graced, client, new_game):
    gid = new_game(seats=3, seed="77").game_id
    mailbox = CheckingMailbox()
    now = T0
    rng = random.Random(3)
    links: dict[int, str] = {}
    expected: list[tuple[int, str]] = []
    status = services.snapshot(gid).view(None)
    expected += [(s, asked_words(gid, s))
                 for s in status["to_act"]]
    for _ in range(3000):
        status = services.snapshot(gid).view(None)
        if status["phase"] == "over":
            break
        now += timedelta(seconds=300)  # everyone takes five minutes
        start = len(mailbox.sent)
        clock.send_mail_due(graced, now, backend=mailbox)
        for mail in mailbox.sent[start:]:
            if is_turn(lead_of(mail)):
                seat = SEAT_OF[mail["To"].addresses[0].addr_spec]
                text = mail.get_body(("plain",)).get_content()
                links[seat] = re.search(r"/play/([\w.-]+)", text).group(1)
        seat = status["to_act"][0]
        token = links[seat]  # the seat is played from the link in its latest mail
        legal = client.get(f"/api/play/{token}/actions").get_json()
        action = rng.choice(legal["legal_actions"])
        with dl.at(now):
            answer = client.post(f"/api/play/{token}/actions",
                                 json={"action": action, "expected_seq": legal["seq"]})
        assert answer.status_code == 200, answer.get_json()
        after = answer.get_json()["game"]
        view = services.snapshot(gid).view(None)
        for s in view["to_act"]:
            if s not in status["to_act"] or s == seat or (  # own move: issue 17 item 2
                    s in status["to_act"] and _fresh(view, s) and not _fresh(status, s)):
                expected.append((s, asked_words(gid, s)))
        assert after["seq"] == view["step"]
    assert services.game_info(gid).status == "over"
    got = [(SEAT_OF[m["To"].addresses[0].addr_spec], SUBJECT.search(lead_of(m)).group(2))
           for m in mailbox.turn_mails()]
    # each seat's mails, in order (seats waited on at once may be mailed in either order)
    for seat in range(3):
        assert [w for s, w in got if s == seat] == [w for s, w in expected if s == seat]
    assert len(got) == len(expected)
    assert mailbox.stale == []


def _fresh(view: dict, seat: int) -> bool:
    return (view["phase"] == "play" and view["current"] == seat and view["pending"] == "turn"
            and seat not in view["peeks_pending"])


@pytest.mark.slow  # three whole games
@pytest.mark.parametrize("seed", ["11", "12", "13"])
def test_every_mail_sent_in_whole_games_still_held_when_it_left(graced, new_game, seed):
    """Random waits around the grace period, reminders and timeouts on a short
    deadline, the clock ticking at random moments: no mail is stale when it leaves."""
    rng = random.Random(int(seed))
    gid = new_game(seats=rng.choice([2, 3, 4]), bots=(rng.choice([(), (1,)])), seed=seed,
                   deadline_hours=2, reminders=["half"], absent_after=5).game_id
    mailbox = CheckingMailbox()
    now = T0
    for _ in range(3000):
        snap = services.snapshot(gid)
        status = snap.view(None)
        if status["phase"] == "over" or services.game_info(gid).status != "running":
            break
        now += timedelta(seconds=rng.choice([5, 60, 119, 121, 400, 1900, 3700]))
        clock.tick(graced, now, backend=mailbox)  # reminders, timeouts, mail
        snap = services.snapshot(gid)
        status = snap.view(None)
        if status["phase"] == "over" or not status["to_act"]:
            continue
        seat = rng.choice(status["to_act"])
        with dl.at(now):
            try:
                services.submit_action(gid, seat, bots.choose("greedy", snap.state, seat, rng),
                                       snap.seq)
            except services.Conflict:
                pass
    clock.tick(graced, now + timedelta(hours=2), backend=mailbox)
    assert mailbox.checked > 5
    assert mailbox.stale == []
    assert statuses(graced).get(SUPERSEDED, 0) > 0


def test_a_sender_killed_between_claim_and_send_sends_nothing_twice_or_stale(graced, new_game):
    gid = new_game(seats=2, seed="12345").game_id
    waiting = waited_on(gid)
    dead = sending.claim_due(get_engine(graced), T0 + GRACE, owner="dead-sender")
    assert {row.kind for row in dead} == {"invitation", "turn"}
    # While the dead sender's lease holds, the first waiting seat acts.
    snap = services.snapshot(gid)
    mover = waiting[0]
    with dl.at(T0 + GRACE + timedelta(seconds=1)):
        services.submit_action(gid, mover, engine.legal_actions(snap.state, mover)[0], snap.seq)
    mailbox = CheckingMailbox()
    assert clock.send_mail_due(graced, T0 + GRACE + timedelta(minutes=1),
                               backend=mailbox).claimed == 0, "the lease holds"
    later = T0 + GRACE + sending.LEASE + timedelta(seconds=2)
    report = clock.send_mail_due(graced, later, backend=mailbox)
    again = clock.send_mail_due(graced, later + timedelta(hours=2), backend=mailbox)
    with Session(get_engine(graced)) as session:
        rows = {row.id: row for row in session.exec(select(Outbox))}
    claimed = {row.id for row in dead}
    mover_turn = [r for r in rows.values() if r.kind == "turn" and r.seat == mover
                  and r.id in claimed]
    assert [r.status for r in mover_turn] == [SUPERSEDED]
    assert report.superseded == 1
    ids = [str(m["Message-ID"]) for m in mailbox.sent]
    assert len(ids) == len(set(ids)), "nothing twice"
    assert all(r.status in (SENT, SUPERSEDED) for r in rows.values()), "nothing lost"
    assert {str(m["Message-ID"]) for m in mailbox.sent} == {
        r.message_id for r in rows.values() if r.status == SENT}
    assert again.claimed == 0 and mailbox.stale == []


def test_a_new_mail_for_a_seat_supersedes_its_unsent_one(graced, new_game, db):
    gid = new_game(seats=2, seed="12345").game_id
    first = waited_on(gid)
    # everyone plays without the sender running: every older turn mail of a
    # seat is superseded as soon as it acts or a newer one is written
    for _ in range(30):
        snap = services.snapshot(gid)
        seat = snap.view(None)["to_act"][0]
        with dl.at(T0):
            services.submit_action(gid, seat, engine.legal_actions(snap.state, seat)[0], snap.seq)
    with Session(get_engine(graced)) as session:
        pending = session.exec(select(Outbox).where(Outbox.kind == "turn",
                                                    Outbox.status == PENDING)).all()
    assert len({row.seat for row in pending}) == len(pending) <= 2
    assert first


def test_the_grace_period_is_a_game_option_read_within_bounds(graced, new_game):
    from app.mail.notify import turn_mail_delay

    assert turn_mail_delay({}) == GRACE
    assert turn_mail_delay({"turn_mail_delay_seconds": 0}) == timedelta(0)
    assert turn_mail_delay({"turn_mail_delay_seconds": 10**9}) == timedelta(hours=1)
    assert turn_mail_delay({"turn_mail_delay_seconds": -5}) == timedelta(0)
    assert turn_mail_delay({"turn_mail_delay_seconds": "soon"}) == GRACE
    from app.services import person_settings

    for address in ("ann@example.com", "bob@example.com"):  # (known people: a newcomer's
        person_settings.set_time_zone(address, "UTC")     # first turn mail waits GRACE,
    gid = new_game(seats=2, seed="5", turn_mail_delay_seconds=30).game_id  # issue 32)
    mailbox = CheckingMailbox()
    clock.send_mail_due(graced, T0 + timedelta(seconds=29), backend=mailbox)
    assert mailbox.turn_mails() == []
    clock.send_mail_due(graced, T0 + timedelta(seconds=30), backend=mailbox)
    assert len(mailbox.turn_mails()) == len(waited_on(gid))


def test_subjects_say_what_is_asked():
    game = compose.MailGame(id="g", name="Fun", names=["Ann", "Bob"], base_url="http://x")
    view = {"round": 3, "to_act": [0], "peeks_pending": [], "phase": "play", "current": 0,
            "pending": "twister", "pending_detail": {}, "villages": [[], []],
            "round_scores": [], "totals": []}
    mail = compose.turn_mail(game, 0, view, since_step=0, due=None, now=T0, link="l",
                             unsubscribe="u")
    # the subject is the game's (one conversation: issue 19 item 4); the first line asks
    assert mail.subject == "Silver Eye · Fun (game g)"
    assert lead_of(mail) == "Your turn: turn cards over with the Twister (round 3)"
    view.update(round=2, pending="turn")
    assert lead_of(compose.turn_mail(game, 0, view, since_step=0, due=None, now=T0, link="l",
                                     unsubscribe="u")) == "Your turn: draw a card (round 2)"
    # the discard's top is public: the turn names what it may take (issue 49 item 1)
    view.update(discard=[{"id": 22, "faceup": True}],
                legal_actions=[{"type": "draw"}, {"type": "take"}])
    assert lead_of(compose.turn_mail(game, 0, view, since_step=0, due=None, now=T0, link="l",
                                     unsubscribe="u")) == \
        "Your turn: draw, or take the 6 Twister from the discard (round 2)"
    view.update(round=4, phase="resolve", pending="nelly", pending_detail={"seat": 0},
                current=1)
    later = compose.turn_mail(game, 0, view, since_step=0, due=None, now=T0, link="l",
                              unsubscribe="u")
    assert lead_of(later) == "Your turn: tuck a Nelly under a card (round 4)"
    assert later.subject == mail.subject


def turn_rows(app: Any) -> list[Outbox]:
    with Session(get_engine(app)) as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == "turn")
                                 .order_by(Outbox.id)))


def test_a_waiting_turn_mail_is_not_composed_and_one_superseded_never_is(graced, new_game):
    """Deal two seats; both peek at once. The turn mails wait out the grace period
    without a body (composing them is the dearest part of a move's mail work)."""
    gid = new_game(seats=2, seed="12345").game_id
    waiting = turn_rows(graced)
    assert len(waiting) == 2
    assert all(row.subject == turn_mails.COMPOSED_AT_SEND and row.text == "" for row in waiting)
    assert all(row.announces["compose"]["due"] for row in waiting)
    # the first seat peeks within the grace period: its mail is superseded, never composed
    snap = services.snapshot(gid)
    mover = waited_on(gid)[0]
    with dl.at(T0 + timedelta(seconds=30)):
        services.submit_action(gid, mover, engine.legal_actions(snap.state, mover)[0], snap.seq)
    mailbox = CheckingMailbox()
    clock.send_mail_due(graced, T0 + GRACE + timedelta(seconds=1), backend=mailbox)
    rows = {row.seat: row for row in turn_rows(graced)}
    # superseded, or (issue 17 item 2) re-aimed at the turn the peek began, due a
    # grace period after the peek: either way never composed, never sent yet
    assert rows[mover].status in (SUPERSEDED, PENDING) and rows[mover].text == ""
    assert rows[mover].status == SUPERSEDED or rows[mover].announces["step"] == snap.seq + 1
    assert [m["To"].addresses[0].addr_spec for m in mailbox.turn_mails()] == [
        ADDRESS_OF[1 - mover]]


def test_a_turn_mail_composed_as_it_leaves_is_the_mail_the_seat_would_have_got(
        graced, new_game):
    """The other seat waits: its mail is composed at send time from the game as it
    stands then, names its decision and the seat's link; the row keeps the subject that
    went out and its threading headers, not the body (issue 46 item 5)."""
    gid = new_game(seats=2, seed="12345").game_id
    snap = services.snapshot(gid)
    mover, waiter = waited_on(gid)[0], waited_on(gid)[1]
    with dl.at(T0 + timedelta(seconds=30)):
        services.submit_action(gid, mover, engine.legal_actions(snap.state, mover)[0], snap.seq)
    mailbox = CheckingMailbox()
    clock.send_mail_due(graced, T0 + GRACE + timedelta(seconds=1), backend=mailbox)
    [mail] = mailbox.turn_mails()
    assert mailbox.stale == [] and mailbox.checked == 1
    row = {row.seat: row for row in turn_rows(graced)}[waiter]
    assert row.status == SENT and str(mail["Subject"]) == row.subject != turn_mails.COMPOSED_AT_SEND
    text = mail.get_body(("plain",)).get_content()
    assert "/play/" in text and mail["Reply-To"]
    assert (row.text, row.html) == ("", None), "a delivered mail keeps no body"
    assert row.headers["Message-ID"] == str(mail["Message-ID"]) == row.message_id
    assert row.headers["In-Reply-To"] == str(mail["In-Reply-To"])
    assert row.headers["Reply-To"] == str(mail["Reply-To"]), "a late reply finds it by this"
    assert "List-Unsubscribe" not in row.headers
    # what the seat would have got at once with no grace period: the same words
    fresh = _turn_mail_at_once(graced, gid, waiter)
    assert SUBJECT.search(lead_of(mail)).group(2) == SUBJECT.search(lead_of(fresh)).group(2)


def _turn_mail_at_once(app: Any, gid: str, seat: int) -> Any:
    """The turn mail the seat would get at once, composed while its session is open (a
    context used after its session closed would open a transaction nobody ends)."""
    from app.gamelog import store

    with app.app_context(), Session(get_engine(app)) as session:
        ctx = notify.Context.load(session, session.get(store.Game, gid))
        return turn_mails._turn_mail(ctx, seat, services.load_state(gid),
                                     seat_prefs.seat_mail(session, gid, seat), due=None,
                                     now=T0, reminder=False)
