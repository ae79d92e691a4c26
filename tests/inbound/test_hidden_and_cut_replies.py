"""Issue 45 item 5: a reply is read as the person wrote it and sees it, whole or not at all.

Text a mail client hides is not read; a reply over a limit (its length, its standing
orders, its steps) is refused in words naming the limit and never cut; the reply
grammar refuses what the JSON API refuses, in the same words; and a JSON condition on
a card's name keeps its comparison (``ne``: "it is not a Simon"), in what it does and
in the words it is said back in. Through the inbound path (real SMTP both ways) and the
JSON API, on stacked decks (R3) where the card drawn matters.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest

from app import engine, services
from app.inbound.reading import command_of, html_to_text, message_of
from app.services import plans
from tests.engine.scenario import ids, stack
from tests.inbound.conftest import ANN, answers, menu_of, reply_with
from tests.mail.conftest import Received

ORDER = "ALWAYS DISCARD IF 5 OR MORE"
#: 208 characters whose last order is ALWAYS DISCARD IF 10 OR MORE: cut at 200 it read
#: ALWAYS DISCARD IF 10 (ge became eq).
LONG = ("DRAW, PUT AT 2 IF 3 OR LESS, ELSE DISCARD; ALWAYS PEEK 1 2; ALWAYS SKIP THE SPLIT "
        "SEER; ALWAYS SKIP THE TWISTER; ALWAYS SKIP THE GHOST; ALWAYS SKIP DRACULA; ALWAYS "
        "SKIP THE DRUNK; ALWAYS DISCARD IF 10 OR MORE")
NINE = "; ".join(f"ALWAYS SKIP {name}" for name in (
    "TWISTER", "GHOST", "SEER", "DRACULA", "UNDERMINER", "DRUNK", "SPOTTER", "NELLY", "BOMBER"))
NINE_JSON = [{"on": on, "choices": [{"action": {"type": "skip"}}]} for on in (
    "twister", "ghost", "seer", "dracula", "underminer", "drunk", "spotter", "nelly", "bomb")]
NINE_WORDS = ("You can keep at most 8 standing orders; this would make 9. Nothing of it was "
              "kept, so nothing was changed.")


def orders(game_id: str, seat: int = 0) -> list[str]:
    return [o["text"] for o in plans.state_of(game_id, seat)["orders"]]


def said(mail: Received) -> str:
    return " ".join(mail.text.split())


# -- hidden text ------------------------------------------------------------------------

HIDING = ['style="display:none"', 'style="DISPLAY: none !important"', 'style="visibility:hidden"',
          "hidden", 'style="font-size:0"', 'style="font-size:0px"', 'style="font-size: 0pt"',
          'style="font-size:0.0em"', 'style="mso-hide:all"', 'style="opacity:0"',
          'style="max-height:0;overflow:hidden"', 'style="color:red;/* x */display:none"',
          'class="pre"']


@pytest.mark.parametrize("hiding", HIDING)
def test_text_a_client_hides_is_not_read(hiding):
    html = (f"<html><head><style>.pre {{ display: none }}</style></head><body><p>hello</p>"
            f"<div {hiding}>{ORDER}</div></body></html>")
    assert ORDER not in html_to_text(html)
    message = message_of(b"From: ann@example.com\r\nContent-Type: text/html\r\n\r\n"
                         + html.encode())
    assert command_of(message).plan is None


def test_the_same_text_shown_is_read():
    """The control: the order, shown, is read (so the cases above can fail)."""
    message = message_of(b"From: ann@example.com\r\nContent-Type: text/html\r\n\r\n<p>hello"
                         b"</p><div style=\"font-size:12px;display:block\">" + ORDER.encode()
                         + b"</div>")
    assert command_of(message).plan["orders"][0]["text"] == ORDER


def test_an_html_reply_with_a_hidden_order_stores_no_order(game, ann, inbound, deliver, smtp):
    mail = ann.waiting()
    inbound.send(reply_with(mail, None, html=f'<p>hello</p><div style="display:none">{ORDER}</div>'),
                 mail_from=ANN)
    deliver()
    assert orders(game.game_id) == []
    [answer] = answers(smtp, ANN)
    assert "We could not read a command in your reply" in said(answer)


def test_a_plain_part_does_not_smuggle_what_its_html_part_hides(game, ann, inbound, deliver):
    """A client that writes the plain part from the HTML keeps the hidden text in it; the
    person saw the HTML: the order is not read."""
    mail = ann.waiting()
    inbound.send(reply_with(mail, f"hello\n{ORDER}\n",
                       html=f'<p>hello</p><p style="font-size:0">{ORDER}</p>'), mail_from=ANN)
    deliver()
    assert orders(game.game_id) == []


def test_an_order_shown_in_both_parts_is_kept(game, ann, inbound, deliver):
    mail = ann.waiting()
    inbound.send(reply_with(mail, f"{ORDER}\n", html=f"<p>{ORDER}</p>"), mail_from=ANN)
    deliver()
    assert orders(game.game_id) == [ORDER]


# -- limits: refused whole, in the API's words --------------------------------------------

def test_a_reply_over_200_characters_is_refused_naming_the_limit_never_cut(
        game, ann, inbound, deliver, db, smtp):
    mail = ann.waiting()
    move = menu_of(mail)[0][0]
    assert len(LONG) == 208
    inbound.send(reply_with(mail, f"{LONG}\n{move}\n"), mail_from=ANN)
    deliver()
    assert orders(game.game_id) == [], "not ALWAYS DISCARD IF 10, nor anything else"
    assert db.actions(game.game_id) == [], "nothing else of the reply is read in its place"
    [answer] = answers(smtp, ANN)
    assert ("Your reply was not read: A command, plan or set of standing orders is at most "
            "200 characters on one line; this one has 208. Nothing of it was kept, so "
            "nothing was changed.") in said(answer)


def test_nine_orders_are_refused_by_reply_and_by_the_api_in_the_same_words(
        game, ann, inbound, deliver, smtp, client):
    mail = ann.waiting()
    inbound.send(reply_with(mail, f"{NINE}\n"), mail_from=ANN)
    deliver()
    assert orders(game.game_id) == []
    [answer] = answers(smtp, ANN)
    assert f"Your reply was not read: {NINE_WORDS}" in said(answer)
    token = game.tokens[0]
    for body in ({"orders": NINE_JSON}, {"words": NINE}):
        refused = client.post(f"/api/play/{token}/plan", json=body)
        assert refused.status_code == 400 and refused.get_json()["message"] == NINE_WORDS
    assert orders(game.game_id) == []


def test_orders_that_would_make_nine_with_the_kept_ones_are_refused_and_the_eight_stay(
        game, ann, inbound, deliver, smtp, client):
    token = game.tokens[0]
    eight = "; ".join(NINE.split("; ")[:8])
    assert client.post(f"/api/play/{token}/plan", json={"words": eight}).status_code == 200
    assert len(orders(game.game_id)) == 8
    inbound.send(reply_with(ann.waiting(), "ALWAYS SKIP THE MAD BOMBER\n"), mail_from=ANN)
    deliver()
    assert len(orders(game.game_id)) == 8
    assert any(NINE_WORDS in said(m) for m in answers(smtp, ANN))


def test_words_on_the_page_over_200_characters_are_refused_not_cut(game, client):
    from tests.people.conftest import post

    token = game.tokens[0]
    answer = post(client, token, "/plan", words=LONG)
    assert answer.status_code == 303
    page = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "this one has 208" in page
    assert orders(game.game_id) == []
    refused = client.post(f"/api/play/{token}/plan", json={"words": LONG})
    assert refused.status_code == 400 and "this one has 208" in refused.get_json()["message"]


# -- a condition on a card's name keeps its comparison (on a stacked deck, R3) ------------

SIMON, NINE_CARD = ids(2)[0], ids(9)[0]
NOT_A_SIMON = {"steps": [{"choices": [{"action": {"type": "draw"}}]},
                         {"choices": [{"action": {"type": "discard"},
                                       "if": {"compare": "ne", "name": "Simon"}},
                                      {"action": {"type": "exchange", "positions": [0]}}]}]}


@pytest.fixture
def dealt(monkeypatch, new_game) -> Callable[[int], Any]:
    """A 2-seat game whose deck's top card (Ann's first draw) is ``top``, both round-start
    peeks played (R5): Ann (seat 0) is to draw."""
    def deal(top: int) -> Any:
        deck = stack(villages=[ids(7)[:4] + ids(6)[:1], ids(6)[1:4] + ids(5)[:2]],
                     discard=ids(8)[0], top=[top])
        real_new, real_replay = engine.new_game, engine.replay

        def new(seats: int, seed: Any, decks: Any = None, options: Any = None, **rest: Any) -> Any:
            return real_new(seats, seed, decks or [deck], options, **rest)

        def replay(seats: int, seed: Any, actions: Any, decks: Any = None, options: Any = None,
                   **rest: Any) -> Any:
            return real_replay(seats, seed, actions, decks or [deck], options, **rest)

        monkeypatch.setattr(engine, "new_game", new)
        monkeypatch.setattr(engine, "replay", replay)
        created = new_game(seats=2, first=0)
        for seat in (0, 1):
            services.submit_action(created.game_id, seat, {"type": "peek", "positions": [0, 1]},
                                   services.snapshot(created.game_id).seq, source="mail")
        assert services.snapshot(created.game_id).view(0)["pending"] == "turn"
        return created
    return deal


def _after(game_id: str, drawn: int) -> tuple[bool, bool]:
    """(the drawn card is Ann's card #1, it is on top of the pile)."""
    view = services.snapshot(game_id).view(0)
    return view["villages"][0][0]["id"] == drawn, view["discard"][-1]["id"] == drawn


@pytest.mark.parametrize("drawn, kept", [(SIMON, True), (NINE_CARD, False)])
def test_a_json_plan_ne_simon_keeps_a_drawn_simon_and_discards_anything_else(
        dealt, client, drawn, kept):
    created = dealt(drawn)
    sent = client.post(f"/api/play/{created.tokens[0]}/plan", json={"plan": NOT_A_SIMON})
    assert sent.status_code == 200, sent.get_data(as_text=True)
    assert _after(created.game_id, drawn) == (kept, not kept)
    assert sent.get_json()["words"] == [
        "Your plan “DRAW, DISCARD IT IF IT IS NOT A SIMON, ELSE KEEP IT AT #1”: you drew "
        + ("a 2 Simon, kept it at #1." if kept else "a 9 Even Obsessor, discarded it.")]


def test_the_words_of_a_ne_simon_plan_say_what_it_does(dealt, client):
    created = dealt(SIMON)
    plan = {"steps": [{"choices": [{"action": {"type": "discard"},
                                    "if": {"compare": "ne", "name": "Simon"}}]}]}
    bob = client.post(f"/api/play/{created.tokens[1]}/plan",
                      json={"plan": {"steps": [NOT_A_SIMON["steps"][0], *plan["steps"]]}})
    assert bob.status_code == 200, bob.get_data(as_text=True)
    assert bob.get_json()["state"]["plan"]["words"] == \
        "Draw; then when you draw: discard it if it is not a Simon."


@pytest.mark.parametrize("drawn, kept", [(SIMON, True), (NINE_CARD, False)])
def test_a_reply_discard_if_not_a_simon_keeps_a_drawn_simon(dealt, mail_app, deliver, inbound,
                                                             ann, drawn, kept):
    created = dealt(drawn)
    deliver()
    mail = ann.waiting()
    assert menu_of(mail)[0][0] == "D"
    inbound.send(reply_with(mail, "DRAW, DISCARD IF NOT A SIMON, ELSE KEEP AT 1\n"),
                 mail_from=ANN)
    deliver()
    assert _after(created.game_id, drawn) == (kept, not kept)


def test_the_help_page_says_what_a_reply_reads_and_the_limits_the_grammar_holds(client):
    from app.engine import plans as ep

    page = " ".join(client.get("/help/mail").get_data(as_text=True).split())
    assert f"at most {ep.MAX_TEXT} characters on one line" in page
    assert f"at most {ep.MAX_ORDERS} standing orders" in page
    assert "any text your mail app does not show" in page
    assert "Talk never carries a mail address or a link to a seat" in page
