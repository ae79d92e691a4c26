"""Away until a date, in all of a person's games at once (issue 47 item 5).

Told from every side:

- **Ann** travels: she says so once, with her settings link, and no deadline of hers
  fires in any of her three games while she is away; a decision that comes meanwhile
  counts from her return; her days come off a yearly allowance, and what she did not
  use comes back when she returns early. In the game whose options allow no vacation
  her clock runs as R29 says, and so it does everywhere once her days are spent.
- **Bob**, at her tables (another zone): each table says until when she travels, in his
  own zone, on the page and in the JSON, and never her address.
- **Mallory**, holding one seat link of Ann's (a forwarded mail): she cannot set it, nor
  can the seat link's own routes.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import select

from app import services
from app.clock import deadlines as dl
from app.db import read_session
from app.people.models import Person
from app.services import person_settings
from tests.clock.test_week_clock import decision, log_of
from tests.conftest import statements_sent
from tests.person_keys import mails, settings_link

from .conftest import T0, csrf, hours

ANN, BOB = "ann@example.org", "bob@example.org"
DAY = 24


def games(count: int, *, first: int = 0, start: int = 0, at: Any = T0,
          **options: Any) -> list[services.Created]:
    """``count`` games of Ann (seat 0) and Bob (seat 1), a day a decision, made ``at``."""
    with dl.at(at):
        return [services.create_game([{"name": "Ann", "email": ANN}, {"name": "Bob", "email": BOB}],
                                     {"deadline_hours": DAY, "first": first, "reminders": [],
                                      **options},
                                     name=f"Trip {start + n}", seed=str(70 + start + n))
                for n in range(count)]


def ann() -> Person:
    with read_session() as session:
        row = session.exec(select(Person).where(Person.address == ANN)).one()
        session.expunge(row)
        return row


def timeouts(gid: str, seat: int = 0) -> int:
    return sum(1 for s, _, source in log_of(gid) if s == seat and source == "timeout")


def link_at(client: Any, seat_token: str, when: Any) -> str:
    """Ann's settings link, asked for on her seat's page at ``when``."""
    with dl.at(when):
        return settings_link(client, seat_token, ANN)


def page(client: Any, link: str, when: Any) -> str:
    with dl.at(when):
        return client.get(link).get_data(as_text=True)


def save_away(client: Any, link: str, when: Any, **form: str) -> Any:
    with dl.at(when):
        answer = client.post(link, data=form)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    return answer


def test_ann_away_in_three_games_no_deadline_of_hers_fires_and_every_table_says_so(
        app, client, tick):
    trips = games(3)
    strict = games(1, start=3, vacation_days=0)[0]  # a game that allows no vacation
    person_settings.set_time_zone(ANN, "Europe/Paris", now=T0)
    person_settings.set_time_zone(BOB, "America/New_York", now=T0)
    strict_due = decision(strict.game_id, 0)
    link = link_at(client, trips[0].tokens[0], T0)

    # the page shows the allowance; Ann says she is back on Thursday 17 January (Paris)
    assert "30 of 30 away days left this year" in page(client, link, T0)
    save_away(client, link, T0 + hours(1), away_until="2030-01-17")
    back = dl.as_utc(ann().away_until)
    assert back == T0.replace(day=16, hour=23)  # 00:00 in Paris
    assert decision(strict.game_id, 0) == strict_due, "no vacation there: its clock runs"
    for trip in trips:  # each keeps the 23 hours it had left, counted from her return
        assert decision(trip.game_id, 0) == back + hours(DAY - 1)

    # told once, in one mail: what stands still, until when, and where it does not
    (told,) = mails("settings_changed", ANN)
    assert "Trip 0" in told.text and "Trip 2" in told.text
    assert "not paused in Trip 3" in told.text and "Thu 17 Jan, 00:00 CET" in told.text

    # a game Bob starts meanwhile: Ann's first decision there counts from her return
    later = games(1, start=4, first=1, at=T0 + hours(30))[0]
    assert decision(later.game_id, 0) == back + hours(DAY), "counts from her return"
    at = T0
    while at < back - hours(1):
        at += hours(6)
        tick(at)
    for trip in [*trips, later]:
        assert timeouts(trip.game_id) == 0, "nothing played for her while she is away"
    assert timeouts(strict.game_id) >= 1, "R29 as today where no vacation is allowed"

    # every table tells Bob, in his zone (Paris midnight is 18:00 in New York)
    said = "Ann is travelling until Wed 16 Jan, 18:00 EST"
    for trip in trips:
        table = client.get(f"/api/play/{trip.tokens[1]}/table").get_json()
        assert table["seats"][0]["travelling_words"] == said
        assert table["seats"][0]["travelling_until"].startswith("2030-01-16T18:00:00")
        assert ANN not in str(table)
        assert said in client.get(f"/play/{trip.tokens[1]}").get_data(as_text=True)
    public = client.get(f"/games/{trips[0].game_id}").get_data(as_text=True)
    assert "Ann is travelling until Wed 16 Jan, 23:00 UTC" in public and ANN not in public
    strict_table = client.get(f"/api/play/{strict.tokens[1]}/table").get_json()
    assert strict_table["seats"][0]["travelling_words"] is None

    # her days were counted: 9 days and 13 hours away is 10 days
    assert ann().away_days_used == 10
    assert "20 of 30 away days left this year" in page(
        client, link_at(client, trips[0].tokens[0], at), at)

    # once she is back, her clock runs again: a day later the deadline passes
    tick(back + hours(DAY))
    assert all(timeouts(trip.game_id) == 1 for trip in trips)


def test_the_allowance_ends_the_pause_then_r29_as_today(app, client, tick):
    app.config.update(AWAY_DAYS_PER_YEAR=3)
    (trip,) = games(1)
    link = link_at(client, trip.tokens[0], T0)
    save_away(client, link, T0, away_until="2030-01-27")
    assert dl.as_utc(ann().away_until) == T0 + timedelta(days=3), "shortened to her 3 days"
    (told,) = mails("settings_changed", ANN)
    assert "as far as this year's away days go" in told.text
    tick(T0 + timedelta(days=3) + hours(DAY - 1))
    assert timeouts(trip.game_id) == 0
    at = T0 + timedelta(days=3)
    for _ in range(5):  # beyond the allowance: deadlines pass, and R29 marks her away
        at += hours(DAY)
        tick(at)
    assert timeouts(trip.game_id) >= 3
    assert any(s == 0 and a == "away" for s, a, _ in log_of(trip.game_id))
    assert "0 of 3 away days left this year" in page(
        client, link_at(client, trip.tokens[0], at), at)


def test_only_a_key_to_her_address_sets_it_never_a_seat_link(app, client):
    (trip,) = games(1)
    seat = trip.tokens[0]  # what Mallory holds too: a forwarded turn mail
    due = decision(trip.game_id, 0)
    token = csrf(client, seat)
    with dl.at(T0):
        refused = client.post(f"/play/{seat}/settings",
                              data={"csrf_token": token, "away_until": "2030-01-20"})
        assert refused.status_code == 403
        # the seat's own vacation is this game's only: it never sets the person's
        client.post(f"/play/{seat}/vacation", data={"csrf_token": token, "days": "2"})
    with read_session() as session:
        row = session.exec(select(Person).where(Person.address == ANN)).first()
    assert row is None or row.away_until is None
    assert mails("settings_changed") == []
    assert decision(trip.game_id, 0) == due + timedelta(days=2), "the game's own vacation"

    link = link_at(client, seat, T0)
    save_away(client, link, T0, away_until="2030-01-20")
    assert ann().away_until is not None
    assert "17 of 30 away days left this year" in page(client, link, T0)


def test_back_early_refunds_the_unused_days_and_deadlines_come_back(app, client):
    (trip,) = games(1)
    link = link_at(client, trip.tokens[0], T0)
    save_away(client, link, T0, away_until="2030-01-17")  # ten days
    assert ann().away_days_used == 10
    back = T0.replace(day=17, hour=0)  # (her zone: UTC)
    assert decision(trip.game_id, 0) == back + hours(DAY)
    now = T0 + timedelta(days=2, hours=3)
    link = link_at(client, trip.tokens[0], now)  # (the first one's hour has passed)
    save_away(client, link, now, away_back="1")
    row = ann()
    assert row.away_until is None and row.away_days_used == 3, "3 days started, 7 given back"
    assert decision(trip.game_id, 0) == T0 + timedelta(days=2, hours=3) + hours(DAY)
    assert "7 unused days given back" in mails("settings_changed", ANN)[-1].text
    assert "27 of 30 away days left this year" in page(client, link, now)


def test_away_costs_the_same_statements_in_eight_games_as_in_one(app):
    from sqlalchemy import text

    from app.db import get_engine

    def away_in(count: int) -> list[str]:
        with get_engine(app).begin() as conn:
            conn.execute(text("DELETE FROM person WHERE address = :a"), {"a": ANN})
        made = games(count, start=10 * count)
        with dl.at(T0):
            asked = person_settings.check({"away_until": "2030-01-17"})
            sent = statements_sent(app, lambda: person_settings.save(ANN, asked, "settings"))
        assert all(decision(g.game_id, 0) > T0 + timedelta(days=9) for g in made)
        return sent

    once, eightfold = away_in(1), away_in(8)
    assert len(eightfold) == len(once), (once, eightfold)
