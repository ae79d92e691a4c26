"""Every door says which key opens it (issue 45 item 7), and no key opens another's door.

The app's URL map is walked: a route without a declared key kind fails, and so does a
route that ``docs/security.md``'s door table does not list as the code marks it (the
table is ``flask --app app doors``'s output). Then each door opened by a key other
than a seat link is tried with a seat link in that key's place — the key everyone who
was forwarded a mail holds — and must open nothing and change nothing.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from app.web import doors

SECURITY = Path(__file__).resolve().parents[2] / "docs" / "security.md"
BEGIN, END = "<!-- doors:begin -->", "<!-- doors:end -->"


@pytest.fixture
def app_with_every_route(app):
    """The app with the benchmark's baseline route too (``BENCH_ENDPOINTS``)."""
    from app import create_app

    return create_app({**app.config, "BENCH_ENDPOINTS": True})


def test_every_route_declares_the_key_that_opens_it(app_with_every_route):
    app = app_with_every_route
    missing = [f"{sorted(rule.methods or ())} {rule.rule} ({rule.endpoint})"
               for rule in app.url_map.iter_rules()
               if doors.of_endpoint(app, rule.endpoint) is None]
    assert missing == [], "mark these views with @door(...) or @seat_required"
    assert len(list(app.url_map.iter_rules())) > 80


def test_the_door_table_of_security_md_is_the_apps(app):
    text = SECURITY.read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    written = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert written == doors.table(app), (
        "docs/security.md's door table is out of date: paste `flask --app app doors`")


def test_every_key_kind_is_in_the_key_table_of_security_md():
    text = SECURITY.read_text(encoding="utf-8")
    keys_section = text.split(BEGIN, 1)[0]
    for kind in doors.KEYS:
        assert f"**{kind}**" in keys_section, f"docs/security.md does not describe {kind!r}"


def test_an_unknown_key_kind_cannot_be_declared():
    with pytest.raises(ValueError, match="unknown key kind"):
        doors.door("seat link or anything", "everything")


#: Arguments of a door's rule that hold its key.
KEY_ARGUMENTS = ("token", "key")


def test_a_seat_link_opens_no_door_of_another_key(app, client, db, new_game):
    """Whoever holds a forwarded seat link tries it on every door another key opens (the
    settings link's, the games page's, the undo link's, the created page's, an
    invitation's...): each answers 4xx and changes nothing."""
    created = new_game(seats=2)
    seat_token = created.tokens[0]
    before = db.dump()
    tried = 0
    for rule in app.url_map.iter_rules():
        door = doors.of_endpoint(app, rule.endpoint)
        assert door is not None
        holds = [name for name in rule.arguments if name in KEY_ARGUMENTS]
        if door.key in ("none", "seat link", "debug") or not holds:
            continue
        path = rule.rule
        for name in rule.arguments:
            value = seat_token if name in KEY_ARGUMENTS else "1"
            path = re.sub(rf"<(?:[a-z]+:)?{name}>", value, path)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            answer: Any = client.open(path, method=method,
                                      data={"choice": "refuse", "time_zone": "UTC",
                                            "target_url": "json://example.org/hook"})
            assert 400 <= answer.status_code < 500, (method, path, answer.status_code)
            tried += 1
    assert tried >= 12, "the walk must reach the settings, games, undo and created doors"
    assert db.dump() == before


def test_every_reply_command_is_in_the_reply_doors_table():
    """A reply command is a door too: the one its reply address opens, on one seat. The
    grammar's verbs are all listed in docs/security.md; a new one must be written there."""
    from app.mail import commands

    text = SECURITY.read_text(encoding="utf-8")
    section = text.split("### The reply commands", 1)[1].split("### ", 1)[0]
    listed = {word.lower() for word in re.findall(r"`([^`]+)`", section)}
    verbs = set(commands.SHAPES) | {w for w in commands.VOTE_WORDS if " " not in w
                                    or w.startswith("vote ")} | {"say ...", "help"}
    verbs = {v for v in verbs if v not in ("vote y", "vote n")}
    assert verbs - listed == set()
    assert "back" in listed
