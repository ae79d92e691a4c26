"""Moving to a new address, by oneself (issue 47 item 5), told from every side:

- **Vic**, who moves: his zone, quiet hours, mail mode, targets and seats in three running
  games go with him (his person's id stays), his old links answer in words, the new
  address's mail holds working links, a finished game keeps the old address;
- **Ann**, at Vic's table, who wants more than her own seat: a seat link cannot start a
  move, her own settings link moves only her, and never into an address that plays;
- **a stranger** holding one link of Vic's: a forwarded seat link, a confirm link that no
  key asked for, one used twice, one expired, one whose move was cancelled.
"""
from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import select

from app import services
from app.access import tokens
from app.clock import deadlines as dl
from app.db import get_engine, read_session
from app.gamelog import store
from app.mail.models import PENDING, Outbox
from app.people.models import Person, Tenure
from app.people.moves import AddressMove
from app.services import person_settings
from tests.person_keys import mails, settings_link

from .conftest import T0, hours

VIC, NEW, ANN, BOB = "vic@example.org", "vic.new@example.net", "ann@example.org", "bob@example.org"
MOVE_LINK = re.compile(r"https?://[^\s/]+(/move/(?!cancel/)[A-Za-z0-9_.\-]+)")
CANCEL_LINK = re.compile(r"https?://[^\s/]+(/move/cancel/[A-Za-z0-9_.\-]+)")
PLAY_LINK = re.compile(r"https?://[^\s/]+(/play/[A-Za-z0-9_.\-]+)")
HOOK = "json://127.0.0.1:9/vics-hook"


def game(name: str, first: str = VIC) -> services.Created:
    with dl.at(T0):
        return services.create_game(
            [{"name": "Vic", "email": first}, {"name": "Ann", "email": ANN},
             {"name": "Bob", "email": BOB}], {"deadline_hours": 24, "first": 0},
            name=name, seed="47")


def vics_tables() -> tuple[list[services.Created], services.Created]:
    """Three running games of Vic's and one that is over."""
    running = [game(f"Table {n}") for n in (1, 2, 3)]
    over = game("Old table")
    with get_engine().begin() as connection:  # (the game's end, as the log would have it)
        connection.execute(sa.update(store.Game.__table__).where(  # type: ignore[attr-defined]
            store.Game.__table__.c.id == over.game_id).values(status="over"))  # type: ignore[attr-defined]
    return running, over


def person(address: str) -> Person | None:
    with read_session() as session:
        found = session.exec(select(Person).where(
            sa.func.lower(Person.address) == address.lower())).first()
        if found is not None:
            session.expunge(found)
        return found


def seats_of(game_id: str) -> dict[int, tuple[str, int]]:
    with read_session() as session:
        return {s.index: (s.email, s.token_version) for s in store.load_seats(session, game_id)}


def tenure_address(game_id: str, seat: int = 0) -> str:
    with read_session() as session:
        return session.exec(select(Tenure.address).where(
            Tenure.game_id == game_id, Tenure.seat == seat)).one()


def link_in(kind: str, to: str, pattern: re.Pattern[str]) -> str:
    sent = mails(kind, to)
    assert sent, f"no {kind} mail to {to}"
    found = pattern.search(sent[-1].text)
    assert found, sent[-1].text
    return found.group(1)


def ask_move(client: Any, key: str, new: str, **extra: str) -> Any:
    return client.post(f"{key}/move", data={"new_address": new, **extra})


def moves_asked() -> list[AddressMove]:
    with read_session() as session:
        found = list(session.exec(select(AddressMove)).all())
        session.expunge_all()
        return found


# -- Vic, who moves ---------------------------------------------------------------------

def test_vic_moves_with_his_settings_and_three_games_and_his_old_links_say_so(
        app, client, db):
    app.config.update(NOTICE_ALLOW_PRIVATE=True)
    running, over = vics_tables()
    with dl.at(T0):
        key = settings_link(client, running[0].tokens[0], VIC)
        saved = client.post(key, data={"time_zone": "Europe/Paris", "quiet_start": "22:00",
                                       "quiet_end": "07:00"})
        assert saved.status_code == 303
        assert client.post(key, data={"address_mode": "daily", "by_mail": "1"}).status_code == 303
        assert client.post(key, data={"target_url": HOOK}).status_code == 303
    before = person(VIC)
    assert before is not None and before.time_zone == "Europe/Paris"

    # the settings page offers the move; asking moves nothing yet (in the link's sitting)
    with dl.at(T0 + timedelta(minutes=30)):
        page = client.get(key).get_data(as_text=True)
        assert 'name="new_address"' in page and f'action="{key}/move"' in page
        asked = ask_move(client, key, NEW)
        assert asked.status_code == 303
        told = client.get(asked.headers["Location"]).get_data(as_text=True)
        assert NEW in told and "Nothing moves until then" in told
    assert all(seats_of(g.game_id)[0] == (VIC, 1) for g in running)
    confirm = link_in("move_confirm", NEW, MOVE_LINK)
    assert link_in("move_old", VIC, CANCEL_LINK)
    assert VIC not in mails("move_confirm", NEW)[-1].text, "the new address sees the old masked"

    # the move link's GET shows what moves and changes nothing (a mail scanner opens it)
    dumped = db.dump()
    with dl.at(T0 + hours(2)):
        shown = client.get(confirm)
    text = shown.get_data(as_text=True)
    assert shown.status_code == 200 and "Table 1" in text and "Table 3" in text
    assert "v•••@example.org" in text and VIC not in text and "Old table" not in text
    assert db.dump() == dumped

    with dl.at(T0 + hours(2)):
        done = client.post(confirm)
    assert done.status_code == 200 and "Moved" in done.get_data(as_text=True)

    # his person keeps its id and its settings, at the new address
    after = person(NEW)
    assert after is not None and after.id == before.id and person(VIC) is None
    assert (after.time_zone, after.quiet_start, after.quiet_end, after.mode) == (
        before.time_zone, before.quiet_start, before.quiet_end, "daily")
    from app.channels.models import NoticeTarget
    with read_session() as session:
        assert session.exec(select(NoticeTarget.address).where(
            NoticeTarget.url == HOOK)).all() == [NEW]
    # his seats in running games moved, with new links; the finished one keeps history
    for g in running:
        assert seats_of(g.game_id)[0] == (NEW, 2)
        assert tenure_address(g.game_id) == NEW
    assert seats_of(over.game_id)[0] == (VIC, 1) and tenure_address(over.game_id) == VIC
    # nothing unsent of those games still goes to the old address
    with read_session() as session:
        assert session.exec(select(Outbox.id).where(
            Outbox.to == VIC, Outbox.status == PENDING,
            sa.and_(Outbox.game_id.is_not(None))).where(  # type: ignore[union-attr]
            Outbox.game_id.in_([g.game_id for g in running]))).all() == []  # type: ignore[attr-defined]

    # the old address's links answer in words, never naming the new address
    for g in running:
        refused = client.get(f"/play/{g.tokens[0]}")
        words = refused.get_data(as_text=True)
        assert refused.status_code == 403 and "moved to another address" in words
        assert NEW not in words and "vic.new" not in words
    with dl.at(T0 + hours(2)):
        old_settings = client.get(key)
    assert old_settings.status_code == 403
    assert "settings and games moved" in old_settings.get_data(as_text=True)
    assert "moved" in mails("move_old", VIC)[-1].text
    # the old seat link of the finished game still opens it (its history is Vic's)
    assert client.get(f"/play/{over.tokens[0]}").status_code == 200

    # the new address's one mail holds three working links
    (listing,) = mails("move_done", NEW)
    links = PLAY_LINK.findall(listing.text)
    assert len(links) == 3
    for link in links:
        opened = client.get(link)
        assert opened.status_code == 200, opened.get_data(as_text=True)[-1500:]

    # a confirm link is used once
    again = client.post(confirm)
    assert again.status_code == 403 and "made already" in again.get_data(as_text=True)


def test_a_default_row_of_the_new_address_gives_way_and_a_bouncing_one_is_warned(
        app, client, tick, mailbox):
    running = [game("Only table")]
    person_settings.set_time_zone(NEW, "Asia/Tokyo")  # the lobby's link: settings, no seat
    from app.mail import bounces
    from app.db import write_session
    with write_session() as session:
        bounces.mark_bouncing(session, NEW, "mailbox full", T0)
    assert person(NEW) is not None and person(NEW).bouncing_since is not None  # type: ignore[union-attr]
    vic = person_settings.set_time_zone(VIC, "Europe/Oslo")
    assert vic
    with dl.at(T0):
        key = settings_link(client, running[0].tokens[0], VIC)
        asked = ask_move(client, key, NEW)
        told = client.get(asked.headers["Location"]).get_data(as_text=True)
    assert "bounced" in told
    confirm = link_in("move_confirm", NEW, MOVE_LINK)
    # the confirmation is tried all the same (the one mail a bouncing address gets)
    tick(T0 + hours(1))
    assert [m for m in mailbox.sent if NEW in str(m[1]["To"])], "the move link was not sent"
    page = client.get(confirm).get_data(as_text=True)
    assert "yours replace them" in page
    vics_id = person(VIC).id  # type: ignore[union-attr]
    assert client.post(confirm).status_code == 200
    moved = person(NEW)
    assert moved is not None and moved.id == vics_id and moved.time_zone == "Europe/Oslo"
    assert moved.bouncing_since is None


# -- Ann, at the table, who wants more than her own seat --------------------------------

def test_a_seat_link_cannot_start_a_move_and_a_settings_link_moves_only_its_own(
        app, client, db):
    (table,) = [game("Shared table")]
    vic_seat = table.tokens[0]
    before = db.dump()
    page = client.get(f"/play/{vic_seat}")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))
    assert csrf
    refused = client.post(f"/play/{vic_seat}/settings",
                          data={"csrf_token": csrf.group(1), "new_address": "ann2@example.org"})
    assert refused.status_code == 403
    for path in (f"/settings/{vic_seat}/move", f"/my-games/{vic_seat}/settings/move",
                 f"/move/{vic_seat}", f"/move/cancel/{vic_seat}"):
        assert client.post(path, data={"new_address": "ann2@example.org"}).status_code == 403
    assert db.dump() == before

    with dl.at(T0):
        anns_key = settings_link(client, table.tokens[1], ANN)
        # into an address that plays: refused in words (no merge)
        taken = ask_move(client, anns_key, VIC)
        assert taken.status_code == 400 and "merging" in taken.get_data(as_text=True)
        same = ask_move(client, anns_key, ANN.upper())
        assert same.status_code == 400 and "nothing to move" in same.get_data(as_text=True)
        # naming someone else's address as the old one does nothing: the key's person moves
        assert ask_move(client, anns_key, "ann2@example.org", old_address=VIC).status_code == 303
    (move,) = moves_asked()
    assert move.old_address == ANN and move.new_address == "ann2@example.org"
    assert mails("move_old", VIC) == [] and seats_of(table.game_id)[0] == (VIC, 1)
    page = client.get(f"/play/{table.tokens[1]}").get_data(as_text=True)
    assert VIC not in page and BOB not in page


# -- a stranger holding one link ----------------------------------------------------------

def test_a_confirm_link_alone_expired_cancelled_or_forged_moves_nothing(app, client, db):
    (table,) = [game("Vic's table")]
    forged = tokens.sign(tokens.MOVE_CONFIRM, ["made-up-move-id"])
    before = db.dump()
    assert client.get(f"/move/{forged}").status_code == 403
    assert client.post(f"/move/{forged}").status_code == 403
    assert db.dump() == before

    with dl.at(T0):
        key = settings_link(client, table.tokens[0], VIC)
        assert ask_move(client, key, NEW).status_code == 303
    confirm = link_in("move_confirm", NEW, MOVE_LINK)
    cancel = link_in("move_old", VIC, CANCEL_LINK)
    # a cancel link is not a confirm link (its own purpose), nor the other way round
    assert client.post(confirm.replace("/move/", "/move/cancel/")).status_code == 403
    assert client.post(cancel.replace("/move/cancel/", "/move/")).status_code == 403
    # expired
    with dl.at(T0 + hours(25)):
        late = client.post(confirm)
    assert late.status_code == 403 and "24 hours" in late.get_data(as_text=True)
    assert seats_of(table.game_id)[0] == (VIC, 1)

    # asked again, then cancelled from the old address before it is confirmed
    with dl.at(T0 + hours(26)):
        key = settings_link(client, table.tokens[0], VIC)
        assert ask_move(client, key, NEW).status_code == 303
        confirm = link_in("move_confirm", NEW, MOVE_LINK)
        cancel = link_in("move_old", VIC, CANCEL_LINK)
        asking = client.get(cancel)
        assert asking.status_code == 200 and "v•••@example.net" in asking.get_data(as_text=True)
        assert client.post(cancel).status_code == 200
        cancelled = client.post(confirm)
    assert cancelled.status_code == 403 and "cancelled" in cancelled.get_data(as_text=True)
    assert seats_of(table.game_id)[0] == (VIC, 1) and person(NEW) is None

    # asked once more and confirmed: the old cancel link now only says so
    with dl.at(T0 + hours(27)):
        key = settings_link(client, table.tokens[0], VIC)
        assert ask_move(client, key, NEW).status_code == 303
        confirm = link_in("move_confirm", NEW, MOVE_LINK)
        cancel = link_in("move_old", VIC, CANCEL_LINK)
        assert client.post(confirm).status_code == 200
        after = client.post(cancel)
    assert after.status_code == 403 and "made already" in after.get_data(as_text=True)
    assert seats_of(table.game_id)[0] == (NEW, 2)
    # the forwarded old seat link shows neither address
    words = client.get(f"/play/{table.tokens[0]}").get_data(as_text=True)
    assert NEW not in words and VIC not in words and "moved to another address" in words


def test_the_games_link_asks_too_and_is_revoked_by_the_move(app, client):
    (table,) = [game("Games-link table")]
    from app.services import my_games
    secret = str(app.config["SECRET_KEY"])
    with read_session() as session:
        games_link = f"/my-games/{my_games.make_link_token(session, VIC, secret)}"
    assert client.get(f"{games_link}/settings").status_code == 200
    with dl.at(T0):
        assert ask_move(client, f"{games_link}/settings", NEW).status_code == 303
        assert client.post(link_in("move_confirm", NEW, MOVE_LINK)).status_code == 200
    with dl.at(T0 + hours(1)):
        for path in (games_link, f"{games_link}/settings"):
            refused = client.get(path)
            words = refused.get_data(as_text=True)
            assert refused.status_code == 403 and "moved" in words and NEW not in words
    assert seats_of(table.game_id)[0] == (NEW, 2)
