"""One composed mail of every kind, with long names and long words, for layout checks.

Built with the same ``compose`` functions the server enqueues with, from real
engine views: an invitation, a turn mail (with a card in hand and events since
the seat last played), its reminder and digest, a round-end mail with a full
summary (three seats, a failed call, a tie), a game-over mail, and every notice.
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from app import engine
from app.mail import compose
from tests.summary import scenarios as S

#: Long names with no space to break at: the worst case for a narrow screen.
NAMES = ["Wolfeschlegelsteinhausenbergerdorffschneidermannsohnsdottir",
         "Bob", "Cidalia Fernanda dos Santos Albuquerque"]
LINK = "http://silver-eye.test/play/" + "x" * 180
UNSUBSCRIBE = "http://silver-eye.test/unsubscribe/" + "y" * 120
REPLAY = "http://silver-eye.test/games/abcdefghjk/replay"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def game_info(seats: int = 3) -> compose.MailGame:
    return compose.MailGame(id="abcdefghjk", name="The Thursday-evening-werewolf-hunting-league game",
                            names=NAMES[:seats], base_url="http://silver-eye.test",
                            commitment="9f" * 32)


#: A reply address as long as a real one (issue 11's menu of commands goes with it).
REPLY = "play+g1a2b3c4d5e.0.1.12.abcdefghijklmnopqrstuvwxyz234567@silver-eye.test"


def every_mail() -> dict[str, compose.Mail]:
    """``{kind: mail}`` for every kind of mail the server sends."""
    info = game_info()
    mails: dict[str, compose.Mail] = {}
    mails["invitation"] = compose.invitation_mail(info, 0, link=LINK, unsubscribe=UNSUBSCRIBE,
                                                  deadline_hours=48)
    state = engine.new_game(3, 11)
    for seat in range(3):
        state, _ = engine.apply_action(state, seat, {"type": "peek", "positions": [0, 1]})
    current = engine.view(state, None)["current"]
    state, _ = engine.apply_action(state, current, {"type": "draw"})
    view = engine.view(state, current)
    due = NOW + timedelta(hours=20)
    for kind, flags in (("turn", {}), ("reminder", {"reminder": True}), ("digest", {"digest": True})):
        mails[kind] = compose.turn_mail(info, current, view, since_step=0, due=due, now=NOW,
                                        link=LINK, unsubscribe=UNSUBSCRIBE, **flags,
                                        reply_address=REPLY)
    tie = S.TIE_FOR_FEWEST.play()
    mails["round_end"] = compose.round_mail(info, 0, tie.view(0), 1, link=LINK,
                                            unsubscribe=UNSUBSCRIBE)
    # issue 51 item 1: the next round's first decision, with the round's end in it, the
    # seat's standing orders and the one order that would have answered it
    mails["turn_round_over"] = compose.turn_mail(
        info, 0, tie.view(0), since_step=0, due=due, now=NOW, link=LINK,
        unsubscribe=UNSUBSCRIBE, reply_address=REPLY, round_over=1,
        orders=["Always skip the Split Seer.", "Always skip the Twister."],
        offer="ALWAYS PEEK 1 2")
    rng = random.Random(2)
    while tie.state.phase != "over":
        seat = tie.view(None)["to_act"][0]
        tie.act(seat, rng.choice(tie.legal(seat)))
    mails["game_over"] = compose.game_over_mail(info, 0, tie.view(0), link=LINK, replay=REPLAY,
                                                unsubscribe=UNSUBSCRIBE)
    for notice in ("absent", "you_absent", "abandoned", "fresh_link"):
        mails[f"notice_{notice}"] = compose.notice_mail(
            info, 0, notice, about=1 if notice == "absent" else None, link=LINK,
            unsubscribe=UNSUBSCRIBE)
    mails["talk"] = talk_mail(info)
    # issue 21: what the people of a game did or ask (a vote, with its reply words), and
    # the invitation of a rematch with a time bank on weekdays
    mails["people"] = compose.people_mail(
        info, 1, lead=f"{NAMES[0]} proposes {NAMES[2]} to take over Bob's seat",
        lines=[f"{NAMES[0]} proposes {NAMES[2]} to take over Bob's seat in “{info.title}”: "
               "they would get the seat's cards, what it has seen and its score, and a link "
               "of their own; the seat's old links stop working.",
               "It passes when everyone agrees, or at Thursday 3 December 2026, 12:00 UTC "
               "unless someone vetoes it."],
        link=LINK, button="Answer on your seat page", unsubscribe=UNSUBSCRIBE,
        reply_hint="Or reply to this mail with VOTE YES or VOTE NO.", reply_to=REPLY)
    mails["invitation_rematch"] = compose.invitation_mail(
        info, 2, link=LINK, unsubscribe=UNSUBSCRIBE, deadline_hours=48,
        clock="Each player has a time bank of 5 days, and 12 hours for each decision before "
              "their bank starts to run; the clock runs Monday to Friday only",
        rematch_of="The Thursday-evening-werewolf-hunting-league game")
    return mails


def talk_mail(info: compose.MailGame) -> compose.Mail:
    """A talk mail (issue 20 item 2) as it leaves: its body, and the "At the table:"
    block the sender adds, with long names, a long word and a link typed by people."""
    from app.mail import table_talk
    from app.talk.store import Line

    said = ["nice Dracula! " + "Wunderbar" * 12, "see https://example.org/" + "z" * 90,
            "<b>not bold</b> & two\nlines"]
    lines = [Line(id=n + 1, seat=n % 2 * 2, text=text, step=4, at=NOW - timedelta(minutes=9 - n),
                  source="page", hidden=False) for n, text in enumerate(said)]
    mail = table_talk.compose_talk(info, 1, f"{NAMES[0]}: {said[0]}", link=LINK,
                                   unsubscribe=UNSUBSCRIBE, reply_to=REPLY)
    told = table_talk.block(lines, info.names, NOW, timezone.utc)
    assert told is not None
    text, html = table_talk.with_talk(mail.text, mail.html, told)
    return compose.Mail(mail.subject, text, html or "", reply_to=mail.reply_to)


def answer_mail() -> compose.Mail:
    """The answer to a reply that did not become a move (``app.inbound.answers``), from
    the same turn as ``every_mail``'s turn mail."""
    from app.inbound.answers import answer_mail as answer

    state = engine.new_game(3, 11)
    for seat in range(3):
        state, _ = engine.apply_action(state, seat, {"type": "peek", "positions": [0, 1]})
    current = engine.view(state, None)["current"]
    return answer(game_info(), current, engine.view(state, current), link=LINK,
                  reply_address=REPLY, unsubscribe=UNSUBSCRIBE,
                  why="We could not read a move in your reply.", quoted="dra", show="view")


def daily_mail() -> compose.Mail:
    """The one digest a day across games (not one game's mail: its own subject)."""
    entries = [{"game": f"Silver Eye · {game_info().label}", "name": NAMES[0],
                "decision": "your draw", "deadline": "Wednesday 2 December 2026, 08:00 UTC",
                "link": LINK},
               {"game": "Silver Eye · Sunday cards (game mnpqrstuvw)", "name": NAMES[0],
                "decision": "the Ghost: choose a card to discard", "deadline": "", "link": LINK}]
    return compose.daily_digest_mail(entries, base_url="http://silver-eye.test",
                                     unsubscribe=UNSUBSCRIBE)


def every_kind() -> dict[str, compose.Mail]:
    """``every_mail`` and the mails composed outside a game's notices: the answer to a
    reply (``inbound_answer``) and the daily digest across games (``daily``)."""
    return {**every_mail(), "inbound_answer": answer_mail(), "daily": daily_mail()}
