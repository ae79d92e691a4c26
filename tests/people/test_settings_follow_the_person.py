"""Settings follow the person (issue 32 items 2 and 5), with the injected clock.

Eve lives in New York (EST in January) and sleeps 22:00–08:00. She sets that once, on her
settings page, from a game Ann made; a game Bob makes later for her address uses it from
the invitation on: nothing reaches her in her quiet hours, no deadline of hers falls in
them, and every time her mails show is in her zone. A newcomer's invitation says where to
set them, and their first turn mail waits the grace period so they can. A rematch keeps
what Bob set up for his notices at the table (a webhook instead of mail); the series
score counts people, whichever seat they sat in and whoever took a seat over.
"""
from __future__ import annotations

import random
import re
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import select

from app import engine, services
from app.channels.models import NoticeDelivery, NoticeTarget
from app.clock import deadlines as dl
from app.db import read_session
from app.db.unit import unit_of_work
from app.gamelog import store
from app.mail.models import Outbox, SeatMail
from app.services import leaving, notice_targets, series, votes
from app.services.games import Series, create_in
from tests.clock.test_week_clock import decision, whole_turn
from tests.mail.test_notice_targets import sink  # noqa: F401  (fixture: a local webhook)
from tests.person_keys import settings_link

from .conftest import T0, csrf, hours, play_out, some_moves

NEW_YORK = ZoneInfo("America/New_York")
ANN, BOB, EVE, DANA = ("ann@example.com", "bob@example.com", "eve@example.com",
                       "dana@example.com")
#: A time as mails show it: "Tuesday 8 January 2030, 08:00 EST".
SHOWN = re.compile(r"\b\d{1,2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2} ([A-Z][A-Za-z+\-0-9]*)")


def new_york(*when: int) -> datetime:
    return datetime(*when, tzinfo=NEW_YORK).astimezone(timezone.utc)


def sleeping(moment: datetime) -> bool:
    local = moment.astimezone(NEW_YORK)
    return local.hour >= 22 or local.hour < 8


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def game_mails(mailbox: Any, address: str, game_id: str) -> list[EmailMessage]:
    return [m for m in mailbox.to(address) if f"(game {game_id})" in str(m["Subject"])]


def kinds(game_id: str, address: str) -> list[str]:
    with read_session() as session:
        return list(session.exec(select(Outbox.kind).where(
            Outbox.game_id == game_id, Outbox.to == address).order_by(Outbox.id)).all())


def make(people_: list[tuple[str, str]], at: datetime, **options: Any) -> services.Created:
    with dl.at(at):
        return services.create_game([{"name": n, "email": a} for n, a in people_], options,
                                    name="Friday table", seed="32")


# -- item 2: set once, in every game --------------------------------------------------------

def test_zone_and_quiet_hours_set_in_one_game_hold_in_a_game_someone_else_makes_later(
        app, client, tick, mailbox):
    """Eve sets New York and 22:00–08:00 on her settings page, reached from Ann's game.
    Bob's game for her address, made at 04:55 EST, mails her nothing before 08:00: its
    invitation names her settings, her deadlines fall out of her quiet hours, and every
    time any of its mails shows her is in EST."""
    first = make([("Ann", ANN), ("Eve", EVE)], T0)
    token = first.tokens[1]
    settings_page = client.get(f"/play/{token}/settings")
    assert settings_page.status_code == 200 and "Send me the link to my settings" in \
        settings_page.get_data(as_text=True)
    with dl.at(T0 + hours(0.5)):  # the seat page mails her the link (issue 45)
        saved = client.post(settings_link(client, token, EVE), data={
            "time_zone": "America/New_York", "quiet_start": "22:00", "quiet_end": "08:00"})
    assert saved.status_code == 303

    made = new_york(2030, 1, 7, 4, 55)                       # Monday 04:55 EST
    bob_game = make([("Bob", BOB), ("Eve", EVE)], made, first=1, deadline_hours=24,
                    reminders=["half", 2])
    gid = bob_game.game_id
    due = decision(gid, 1)
    assert due is not None and not sleeping(due), \
        "her 24 hours would end at 04:55: they end when her quiet hours do"
    assert due == new_york(2030, 1, 8, 8, 0)

    sent: list[tuple[datetime, EmailMessage]] = []
    now, rng = made, random.Random(32)
    while now < made + hours(40):
        before = len(mailbox.sent)
        tick(now)
        sent += [(now, m) for _, m in mailbox.sent[before:]]
        view = services.snapshot(gid).view(None)
        if view["phase"] == "over":
            break
        if 0 in view["to_act"]:
            whole_turn(gid, 0, now)                           # Bob plays at once
        elif 1 in view["to_act"] and not sleeping(now) and rng.random() < 0.3:
            whole_turn(gid, 1, now)                           # Eve, when awake
        now += timedelta(minutes=30 - now.minute % 30)        # every :00 and :30

    to_eve = [(at, m) for at, m in sent if EVE in str(m["To"]) and
              f"(game {gid})" in str(m["Subject"])]
    assert len(to_eve) >= 3
    assert [at.astimezone(NEW_YORK).isoformat() for at, _ in to_eve if sleeping(at)] == []
    first_at, invitation = to_eve[0]
    assert first_at == new_york(2030, 1, 7, 8, 0), "the invitation waited for 08:00 EST"
    assert "America/New_York" in text_of(invitation) and "22:00–08:00" in text_of(invitation)
    assert f"/play/{bob_game.tokens[1]}/settings" in text_of(invitation)
    shown = [zone for _, m in to_eve for zone in SHOWN.findall(text_of(m))]
    assert shown and set(shown) == {"EST"}, shown
    assert any(sleeping(at) for at, m in sent if BOB in str(m["To"])), \
        "Bob has no quiet hours: his mail is not held"
    page = client.get(f"/play/{bob_game.tokens[1]}").get_data(as_text=True)
    assert "EST" in page and "America/New_York" in page


def test_changing_the_quiet_hours_moves_the_deadlines_of_all_running_games(app, client):
    """Quiet hours set from one seat page move Eve's waiting decisions in both of her
    games out of them (later only), as a seat's own hours did (issue 21 item 1)."""
    games = [make([("Ann", ANN), ("Eve", EVE)], T0, first=1, deadline_hours=19),
             make([("Bob", BOB), ("Eve", EVE)], T0, first=1, deadline_hours=19)]
    before = [decision(g.game_id, 1) for g in games]
    assert before == [T0 + hours(19)] * 2                   # 04:00 UTC = 23:00 EST
    token = games[0].tokens[1]
    with dl.at(T0):
        assert client.post(settings_link(client, token, EVE), data={
            "time_zone": "America/New_York",
            "quiet_start": "22:00", "quiet_end": "08:00"}).status_code == 303
    assert [decision(g.game_id, 1) for g in games] == [new_york(2030, 1, 8, 8, 0)] * 2


def test_a_newcomers_invitation_names_the_settings_page_and_the_first_turn_mail_waits(
        app, client, tick, mailbox):
    """Eve has never chosen anything. Her invitation says how to set her zone and quiet
    hours and links her settings page; her first turn mail waits the server's grace
    period though the game's own is none, so the quiet hours she sets meanwhile hold it
    until 08:00 EST, and it shows its deadline in her zone."""
    app.config.update(TURN_MAIL_DELAY_SECONDS=120)
    created = make([("Ann", ANN), ("Eve", EVE)], T0, first=1, turn_mail_delay_seconds=0,
                   deadline_hours=48)
    token = created.tokens[1]
    tick(T0)
    (invitation,) = game_mails(mailbox, EVE, created.game_id)
    words = text_of(invitation)
    assert "Set your time zone and quiet hours" in words and "waits 2 minutes" in words
    assert f"http://silver-eye.test/play/{token}/settings" in words
    assert kinds(created.game_id, EVE) == ["invitation", "turn"]
    page = client.get(f"/play/{token}/settings").get_data(as_text=True)
    assert "Send me the link to my settings" in page and "e•••@example.com" in page
    with dl.at(T0 + timedelta(minutes=1)):  # one click, her mail, the link (issue 45)
        key = settings_link(client, token, EVE)
        form = client.get(key).get_data(as_text=True)
        assert 'name="quiet_start"' in form and 'name="time_zone"' in form
        assert client.post(key, data={
            "time_zone": "America/New_York",
            "quiet_start": "22:00", "quiet_end": "08:00"}).status_code == 303
    tick(T0 + timedelta(minutes=2))                          # 04:02 EST: she sleeps
    assert len(game_mails(mailbox, EVE, created.game_id)) == 1
    with read_session() as session:
        held = session.exec(select(Outbox.held_why).where(
            Outbox.game_id == created.game_id, Outbox.to == EVE,
            Outbox.kind == "turn")).one()
    assert held == "quiet"
    tick(new_york(2030, 1, 7, 8, 0))
    turn = game_mails(mailbox, EVE, created.game_id)[1]
    assert set(SHOWN.findall(text_of(turn))) == {"EST"}


def test_the_games_page_opens_the_same_settings_page_for_the_address(app, client):
    """The settings page's other door is the games page's magic link: what Eve saves
    there (zone, mail across games, a webhook for all her games) shows on her seat's
    page; a target is removed there too. A seat link of someone else's seat cannot post
    Eve's settings (the CSRF token is the seat's)."""
    from app.services.my_games import make_link_token

    app.config.update(NOTICE_ALLOW_PRIVATE=True)
    game = make([("Ann", ANN), ("Eve", EVE)], T0)
    with read_session() as session:
        link = make_link_token(session, EVE, str(app.config["SECRET_KEY"]))
    listing = client.get(f"/my-games/{link}").get_data(as_text=True)
    assert f"/my-games/{link}/settings" in listing
    assert client.get(f"/my-games/{link}/settings").status_code == 200
    saved = client.post(f"/my-games/{link}/settings", data={
        "time_zone": "Asia/Tokyo", "address_mode": "daily",
        "target_url": "json://127.0.0.1:9/eve-hook"}, follow_redirects=True)
    assert saved.status_code == 200 and "We mailed you what changed" in saved.get_data(as_text=True)
    (target,) = notice_targets.of_address(EVE)
    assert target["scope"] == "address"
    page = client.get(f"/play/{game.tokens[1]}").get_data(as_text=True)
    assert "Asia/Tokyo" in page and target["shown"] not in page
    assert "1 target for all your games" in page
    assert client.post(f"/my-games/{link}/settings",
                       data={"remove_target": str(target["id"])}).status_code == 303
    assert notice_targets.of_address(EVE) == []
    forged = client.post(f"/play/{game.tokens[1]}/settings", data={
        "csrf_token": csrf(client, game.tokens[0]), "time_zone": "UTC"})
    assert forged.status_code == 403
    own = client.post(f"/play/{game.tokens[1]}/settings", data={
        "csrf_token": csrf(client, game.tokens[1]), "time_zone": "UTC"})
    assert own.status_code == 403 and "Nothing was changed" in own.get_data(as_text=True)
    assert "Asia/Tokyo" in client.get(f"/my-games/{link}/settings").get_data(as_text=True)


# -- item 5: a rematch and a series, by person ----------------------------------------------

def test_a_rematch_keeps_bobs_webhook_and_mails_him_nothing_he_moved_to_notices(
        app, tick, mailbox, sink):  # noqa: F811
    """Bob's notices of Ann's table go to his webhook instead of mail ("this game", "Also
    mail me" off). The rematch keeps both: its turn notices reach the webhook, and the
    only mail he gets from it is its invitation (invitations stay mail)."""
    app.config.update(NOTICE_ALLOW_PRIVATE=True)
    hook = f"json://127.0.0.1:{sink.port}/bob-hook"
    with dl.at(T0):
        old = services.create_game([{"name": "Ann", "email": ANN},
                                    {"name": "Bob", "email": BOB}], {}, name="Table",
                                   seed="6")
    access = services.open_seat(old.tokens[1])
    notice_targets.add(access, hook, notice_targets.SEAT)
    notice_targets.set_by_mail(access, False)
    play_out(old.game_id, random.Random(6), at=T0 + hours(1))
    votes.start(old.game_id, 0, "rematch", now=T0 + hours(2))
    new_id = votes.answer(old.game_id, 1, None, True, now=T0 + hours(2)).new_game_id
    assert new_id
    with read_session() as session:
        kept = session.exec(select(NoticeTarget.url).where(
            NoticeTarget.game_id == new_id, NoticeTarget.seat == 1)).all()
        by_mail = session.exec(select(SeatMail.by_mail).where(
            SeatMail.game_id == new_id, SeatMail.seat == 1)).one()
    assert kept == [hook] and by_mail is False
    mailbox.clear()
    now, rng = T0 + hours(3), random.Random(7)
    for _ in range(40):
        tick(now)
        view = services.snapshot(new_id).view(None)
        if view["phase"] == "over":
            break
        some_moves(new_id, 1, rng, at=now)
        now += timedelta(minutes=10)
    tick(now)
    assert [kind for kind in kinds(new_id, BOB) if kind != "invitation"], "Bob was told"
    with read_session() as session:
        mailed = session.exec(select(Outbox.kind).where(
            Outbox.game_id == new_id, Outbox.to == BOB, Outbox.status == "sent")).all()
        noticed = session.exec(select(NoticeDelivery.kind).where(
            NoticeDelivery.game_id == new_id, NoticeDelivery.seat == 1)).all()
    assert mailed == ["invitation"], mailed
    assert len(game_mails(mailbox, BOB, new_id)) == 1
    assert "turn" in noticed and sink.at("/bob-hook")


def _results(game_id: str) -> dict[str, tuple[int, int]]:
    """Rounds and wins of each person in one game, from its final state."""
    with read_session() as session:
        seats = [series.person_of(s) for s in store.load_seats(session, game_id)]
    status = engine.status(services.snapshot(game_id).state)
    found = {who: [0, 0] for who in seats}
    for scores in status["round_scores"]:
        for index, points in enumerate(scores):
            found[seats[index]][0] += points == min(scores)
    if isinstance(status.get("winner"), int):
        found[seats[status["winner"]]][1] += 1
    return {who: (rounds, wins) for who, (rounds, wins) in found.items()}


def test_the_series_score_counts_people_when_seats_are_reordered_and_handed_over(app):
    """Game 1: Ann, Bob. Game 2 of the series seats Bob first, and Bob's seat is handed to
    Dana while he is away. Each line of the score is a person: Ann's counts her seat 0
    and her seat 1; Bob's only game 1; Dana's the seat she finished."""
    first = make([("Ann", ANN), ("Bob", BOB)], T0)
    play_out(first.game_id, random.Random(3), at=T0 + hours(1))
    with dl.at(T0 + hours(2)), unit_of_work() as unit:
        second = create_in(unit, [{"name": "Bob", "email": BOB, "kind": "human"},
                                  {"name": "Ann", "email": ANN, "kind": "human"}], {},
                           name="Friday table · game 2", seed="33",
                           series=Series(first.game_id, first.game_id, 2))
    gid = second.game_id
    some_moves(gid, 20, random.Random(4), at=T0 + hours(2))
    services.submit_action(gid, 0, {"type": "away"}, services.game_info(gid).seq,
                           source="system")
    with unit_of_work() as unit:
        leaving.hand_over(unit, gid, 0, "Dana", DANA, T0 + hours(3))
    play_out(gid, random.Random(5), at=T0 + hours(3))

    score = series.series_score(gid)
    assert score is not None
    assert score.people == [DANA, ANN, BOB], "this game's people first, then the others"
    assert score.names == ["Dana", "Ann", "Bob"]
    one, two = _results(first.game_id), _results(gid)
    assert two.keys() == {DANA, ANN} and one.keys() == {ANN, BOB}
    got = dict(zip(score.people, zip(score.rounds, score.wins)))
    assert got[ANN] == (one[ANN][0] + two[ANN][0], one[ANN][1] + two[ANN][1])
    assert got[BOB] == one[BOB] and got[DANA] == two[DANA]
    assert sum(score.wins) == 2
    assert series.series_score(first.game_id).people == [ANN, BOB, DANA]
