"""Refuse input no handler should ever see, before any handler runs: one place, every route.

The attack on issue 9 found three kinds of input that reached code unable to
take them and ended in a 500: NUL bytes (PostgreSQL text cannot hold them, so
``/games/a%00b`` or a lobby name with ``%00`` failed in the driver), and JSON
nested a thousand levels deep (the parser and ``json.dumps`` of the action
ran out of stack). Here each gets a 400 with words instead, for every route,
so a new route is covered the day it is added.
"""
from __future__ import annotations

from typing import Any

from flask import request

from app.i18n import N_

#: No request of this API nests deeper than a few levels (an action holds a
#: list of positions); the limit leaves room and stops stack-deep bodies.
MAX_JSON_DEPTH = 16
#: (said in the reader's language by ``errors.input_refused``)
NUL_WORDS = N_("The request contains a NUL character (%00), which no name, link or field "
               "here can hold. Nothing was changed.")
DEPTH_WORDS = N_("The JSON body is nested more than %(most)s levels deep; a move is an object "
                 'like {"action": {"type": "draw"}, "expected_seq": 3}. Nothing was changed.')


class InputRefused(Exception):
    """Input refused before any handler; ``errors`` turns it into a 400 with words."""

    status, code = 400, "bad_request"

    def __init__(self, words: str, **values: Any) -> None:
        #: the English message id and its values (``errors`` says it in the reader's
        #: language); ``message``: in English
        self.words, self.values = words, values
        self.message = words % values if values else words
        super().__init__(self.message)
        self.details: dict[str, Any] = {}


def json_depth(raw: bytes, limit: int = MAX_JSON_DEPTH) -> int:
    """How deep ``raw`` JSON nests (stops counting just past ``limit``); strings skipped."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _has_nul(values: Any) -> bool:
    return any("\x00" in key or any("\x00" in value for value in values.getlist(key))
               for key in values.keys())


def check_request() -> None:
    """``before_app_request``: refuse NUL bytes anywhere and stack-deep JSON bodies."""
    if "\x00" in request.path or _has_nul(request.args):
        raise InputRefused(NUL_WORDS)
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        if _has_nul(request.form):
            raise InputRefused(NUL_WORDS)
    elif request.is_json:
        raw = request.get_data(cache=True)
        if b"\x00" in raw or b"\\u0000" in raw.lower():
            raise InputRefused(NUL_WORDS)
        # (nesting needs an opening bracket a level: a body with few, every move's, is
        # not walked byte by byte in Python, a loop of a few hundred steps a request)
        if raw.count(b"[") + raw.count(b"{") > MAX_JSON_DEPTH \
                and json_depth(raw) > MAX_JSON_DEPTH:
            raise InputRefused(DEPTH_WORDS, most=MAX_JSON_DEPTH)
