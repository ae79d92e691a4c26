"""Acceptance (issue 20): three seats talk through a whole game, by page and by reply.

Ann, Bob and Cid play a whole game only by replying to their turn mails over SMTP, as
fast as the clock applies them. Every few moves one of them says something at the
table: by the seat page's form (Ann, Bob) or by a reply whose first line is ``SAY``
(everyone). Ann, the creator, hides one message the moment it is said, and keeps the
talk from spectators for a stretch; Cid mutes the talk two thirds of the way in. One
message is HTML with a script.

Then, as the people who received it:

- every seat's page lists every message in order with its sender (the hidden one as
  "hidden by the creator"; Cid, muted, sees that it muted), the script as text;
- every message of another seat is in exactly one mail of each seat — the talk mail or
  a mail it got anyway — never twice; the hidden one in none; none said after Cid muted
  in Cid's mails;
- the replay afterwards shows every message, the spectator page per the creator's choice;
- no mail or page about the talk names a card: the only card words are the players' own.
"""
from __future__ import annotations

import html
import random
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from app import services
from app.runners import clock
from tests.conftest import PEOPLE
from tests.inbound.conftest import Player, menu_of, reply_to
from tests.web.test_talk_page import form_post, page, say

SEED = "20261202"
NAMES = [name for name, _ in PEOPLE[:3]]
HIDDEN_WORDS = "hidden by the creator"

pytestmark = pytest.mark.slow  # a whole game over real SMTP (make test-slow)


def turn_mail(player: Player) -> Any:
    """The player's newest mail with a menu, if not answered yet (a talk mail, which can be
    replied to with SAY, has no menu: it is no turn)."""
    with_menu = [m for m in player.mails() if m.header("Reply-To") and menu_of(m)]
    if not with_menu or with_menu[-1].header("Message-ID") in player.answered:
        return None
    return with_menu[-1]


def any_reply_address(player: Player) -> Any:
    """The player's newest mail that can be replied to (its step may be stale: talk is no
    move, any of its reply addresses talks)."""
    return [m for m in player.mails() if m.header("Reply-To")][-1]


def marker(n: int) -> str:
    return f"talk-{n:02d}-mark"


def test_three_seats_talk_by_page_and_by_reply_through_a_whole_game(
        mail_app, smtp, inbound, deliver, client, db):
    created = services.create_game([{"name": n, "email": e, "kind": "human"}
                                    for n, e in PEOPLE[:3]], {}, name="Talk all game",
                                   seed=SEED)
    game_id, tokens = created.game_id, created.tokens
    players = [Player(name, address, smtp) for name, address in PEOPLE[:3]]
    rng = random.Random(20)
    said: list[dict[str, Any]] = []  # n, seat, text, by, hidden, after_mute
    muted = False
    deliver()
    moves = 0
    for _ in range(3000):
        if services.game_info(game_id).status == "over":
            break
        waiting = [(p, m) for p in players if (m := turn_mail(p)) is not None]
        assert waiting, "nobody has a turn mail to answer, but the game is not over"
        player, mail = waiting[0]
        player.answer(inbound, mail, player.choose(mail, rng))
        moves += 1
        if moves % 3 == 0:  # someone talks
            n = len(said)
            seat = n % 3
            text = f"{marker(n)} from {NAMES[seat]}: well played"
            if n == 4:
                text = f"<b>{marker(n)}</b> <script>alert('{n}')</script> ha"
            by = "mail" if seat == 2 or n % 2 else "page"
            if by == "page":
                answer = say(client, tokens[seat], text)
                assert answer.status_code == 303, answer.get_data(as_text=True)[:300]
            else:
                inbound.send(reply_to(any_reply_address(players[seat]), f"SAY {text}"),
                             mail_from=players[seat].address)
            said.append({"n": n, "seat": seat, "text": text, "by": by, "hidden": False,
                         "after_mute": muted})
            if n == 6:  # the creator hides it at once: no mail may carry it
                assert by == "page"
                shown = page(client, tokens[0])
                hide = re.findall(r'action="(/play/[^"]+/talk/(\d+)/hide)"', shown)
                path = hide[-1][0]
                assert form_post(client, tokens[0], path).status_code == 303
                said[-1]["hidden"] = True
            if n == 8:  # the creator keeps the talk among the players for a while
                form_post(client, tokens[0], f"/play/{tokens[0]}/talk/spectators", on="0")
                public = client.get(f"/games/{game_id}").get_data(as_text=True)
                assert marker(0) not in public
                assert "keep their table talk to themselves" in public
                form_post(client, tokens[0], f"/play/{tokens[0]}/talk/spectators", on="1")
            if n == 14 and not muted:  # Cid has heard enough
                assert form_post(client, tokens[2], f"/play/{tokens[2]}/talk/mute",
                                 muted="1").status_code == 303
                muted = True
        deliver()
    assert services.game_info(game_id).status == "over"
    assert len(said) >= 18, f"only {len(said)} messages in {moves} moves"
    assert {m["by"] for m in said} == {"page", "mail"}
    # the talk mails still waiting (one an hour at most) leave
    later = datetime.now(timezone.utc) + timedelta(hours=3)
    clock.send_mail_due(mail_app, later)
    clock.send_mail_due(mail_app, later + timedelta(hours=2))

    # -- every message at the table: the pages ---------------------------------------
    for seat, token in enumerate(tokens):
        shown = page(client, token)
        if seat == 2:
            assert "You muted the table talk" in shown
            assert marker(0) not in shown
            continue
        assert "<script>alert(" not in shown and "&lt;script&gt;alert(" in shown
        # the messages of the talk box, after its folded one-line summary (the newest)
        shown = shown[shown.index("</summary>", shown.index('id="talk"')):]
        positions = []
        for message in said:
            if message["hidden"]:
                assert marker(message["n"]) not in shown
                continue
            where = shown.find(marker(message["n"]))
            assert where > 0, f"seat {seat} does not see message {message['n']}"
            positions.append(where)
        assert positions == sorted(positions), "the talk is shown in the order it was said"
        assert HIDDEN_WORDS in shown

    # -- every message in exactly one mail of each other seat --------------------------
    counts: dict[int, dict[int, int]] = {}
    for seat, player in enumerate(players):
        mails = player.mails()
        for mail in mails:
            assert "<script>alert(" not in (mail.html or ""), "HTML in a talk mail is text"
        counts[seat] = {}
        for message in said:
            if message["seat"] == seat:
                continue
            counts[seat][message["n"]] = sum(marker(message["n"]) in m.text for m in mails)
    for seat, per_message in counts.items():
        for message in said:
            if message["seat"] == seat:
                continue
            got = per_message[message["n"]]
            if message["hidden"] or (seat == 2 and message["after_mute"]):
                assert got == 0, (seat, message)
            elif seat == 2:
                assert got <= 1, (seat, message)
            else:
                assert got == 1, f"{NAMES[seat]} got message {message['n']} in {got} mails"
    # talk never floods: at most one talk mail of its own an hour (all of this game
    # took less than one), plus the ones the final flush sent hours later
    for seat, player in enumerate(players):
        talk_mails = [m for m in player.mails() if m.lead.startswith("At the table of ")]
        assert len(talk_mails) <= 3, (NAMES[seat], len(talk_mails))

    # -- the replay afterwards, the spectators ----------------------------------------
    last = services.current_seq(game_id)
    replay = client.get(f"/games/{game_id}/replay?step={last}").get_data(as_text=True)
    public = client.get(f"/games/{game_id}").get_data(as_text=True)
    for message in said:
        for shown in (replay, public):
            assert (marker(message["n"]) in shown) != message["hidden"], message
    assert HIDDEN_WORDS in replay

    # -- nothing generated about talk names a card ------------------------------------
    card_words = re.compile(r"\b(Dracula|Twister|Spotter|Obsessor|Simon|Nelly)\b")
    for player in players:
        for mail in player.mails():
            if not mail.lead.startswith("At the table of "):
                continue
            assert not card_words.search(html.unescape(mail.text)), mail.text
