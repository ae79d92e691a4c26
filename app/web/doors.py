"""Every door says which key opens it and what it may touch (issue 45 item 7).

A *door* is a route of the app. Each view is marked with the kind of key that opens it
(``KEYS``: a seat link, a settings link, the games page's link, ...) and, in words, what
it may touch; ``seat_required`` marks every seat route itself. ``tests/web/test_doors.py``
walks the app's URL map and fails on a route without a mark, or with a key kind that
``docs/security.md``'s table of keys does not list: a new route cannot open more than its
row says without someone writing the row.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

View = TypeVar("View", bound=Callable[..., Any])

#: The kinds of key, as ``docs/security.md`` names them, and what each proves.
KEYS: dict[str, str] = {
    "none": "nothing: a public page, or a request whose answer is the same for anyone",
    "seat link": "one seat of one game, at its current version (its CSRF token on a form)",
    "settings link": "an address: mailed to it on request, a day, one sitting",
    "games link": "an address: the games page's link mailed to it, a week, revocable",
    "undo link": "one person-wide change, mailed to its address",
    "move link": "a new address: mailed to it when its person asked to move there, a day, once",
    "move cancel link": "the old address of a move asked for, mailed to it: ending the move",
    "table link": "an address at one open table: its hold, mailed to it (a few hours; a "
                  "named seat's for the table's wait); the creator's also starts or closes it",
    "created page": "a game's creator, in the creating browser, for an hour",
    "lobby form": "one game's creation",
    "unsubscribe link": "one seat's mail (or, the digest's, an address's game mail), to stop it",
    "invitation link": "the address an invitation was mailed to, to refuse invitations",
    "left link": "an earlier holder's old seat, to stop this game's mail to them",
    "inbound secret": "the operator's mail relay",
    "metrics token": "the operator's scraper",
    "debug": "the developer's machine: only with the file mailbox outside production",
}


@dataclass(frozen=True)
class Door:
    key: str
    opens: str


def door(key: str, opens: str) -> Callable[[View], View]:
    """Mark a view with the key kind that opens it and what it may touch."""
    if key not in KEYS:
        raise ValueError(f"unknown key kind {key!r}: add it to KEYS and docs/security.md")

    def mark(view: View) -> View:
        setattr(view, "door", Door(key, opens))
        return view
    return mark


def door_of(view: Any) -> Door | None:
    """The mark of a view (through ``functools.wraps`` layers), or None."""
    while view is not None:
        found = getattr(view, "door", None)
        if isinstance(found, Door):
            return found
        view = getattr(view, "__wrapped__", None)
    return None


#: Routes Flask makes itself.
FRAMEWORK: dict[str, Door] = {"static": Door("none", "the files under static/")}


def of_endpoint(app: Any, endpoint: str) -> Door | None:
    """The door of one of ``app``'s endpoints (None: unmarked, a defect)."""
    return FRAMEWORK.get(endpoint) or door_of(app.view_functions.get(endpoint))


def table(app: Any) -> str:
    """Every route of ``app`` as a row of ``docs/security.md``'s door table: method and
    rule, the key kind, what it may touch (``flask --app app doors`` prints it)."""
    rows = []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, sorted(r.methods or ()))):
        found = of_endpoint(app, rule.endpoint)
        methods = ",".join(sorted(m for m in (rule.methods or ()) if m not in ("HEAD",
                                                                                "OPTIONS")))
        key, opens = (found.key, found.opens) if found else ("**none declared**", "")
        rows.append(f"| `{methods} {rule.rule}` | {key} | {opens} |")
    return "\n".join(["| route | key | opens |", "|---|---|---|", *rows])

