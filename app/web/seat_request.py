"""One seat request: every route under ``/play/<token>`` and ``/api/play/<token>`` opens
its seat here, once, and nowhere else (flaskr's ``login_required`` + ``get_post``, for
seat links).

``@seat_required`` checks the link (ours, a seat that exists, its current version), and
on a page's form (a POST outside ``/api/``) the form's CSRF token: a form carries the
token of the link it was made for, bound to the seat's token version, so another site
cannot post for a player and a form left open from before a link was replaced is
refused. The view gets the checked seat as its first argument (a ``SeatRequest``), also
kept in ``g.seat`` for the error pages of the same request.

Three ways a route reads its seat, all through here:

- ``@seat_required``: the link opened in a read session of its own (``open_seat``);
- ``@seat_required(read=f)``: the link opened and ``f(session, access, snap)`` read in
  the same read session (the seat page's presenter; the table's JSON);
- ``@seat_required(in_unit=True)``: a use case that changes the game checks the link
  inside its own transaction (a move, a message said): the view gets the ``token`` and
  the ``check`` to run there, so the check is the same and the statements are not
  doubled.

An earlier holder's link (the seat handed over, issue 32) opens, on a page's GET, what
happened instead of the seat.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Concatenate, Literal, ParamSpec, Protocol, TypeVar, overload

from flask import g, render_template, request

from app import services
from app.i18n import _
from app.access import tokens
from app.web.doors import door

#: What a read gets: the read session, the checked seat and its game.
Read = Callable[[Any, services.SeatAccess, services.Snapshot], Any]
#: The check ``in_unit`` hands a view, to run in its use case's transaction.
Check = Callable[[services.SeatAccess], None]

P = ParamSpec("P")  # the route's other URL values (``talk_id``, ...)
R = TypeVar("R")  # what the view answers
R_co = TypeVar("R_co", covariant=True)
#: What an earlier holder's link opens instead of the seat (``handed_over_page``).
LeftPage = tuple[str, int]


@dataclass
class SeatRequest:
    """The seat a request is for, checked once; with ``read``, its game and what the
    read returned (the seat page's ``SeatPage``)."""

    access: services.SeatAccess
    snap: services.Snapshot | None = None
    page: Any = None

    @property
    def token(self) -> str:
        return self.access.token


#: A view as written: it takes the opened seat (or, ``in_unit``, the token and the
#: check) and the rule's other values ...
SeatView = Callable[Concatenate[SeatRequest, P], R]
UnitView = Callable[Concatenate[str, Check, P], R]


class Route(Protocol[P, R_co]):
    """... and as routed: the rule's ``<token>`` (Flask passes it by name) and its
    other values."""

    def __call__(self, token: str, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


def with_game(_session: Any, _access: services.SeatAccess, _snap: services.Snapshot) -> None:
    """A ``read`` for a route that needs the seat's game and nothing more (the game is
    read with the link, in its one statement)."""


def check_csrf(access: services.SeatAccess) -> None:
    """Refuse (403) a posted form that was not made for this very link."""
    if not tokens.check_csrf(request.form.get("csrf_token"), access.game_id, access.seat,
                             access.version):
        raise services.Forbidden(_("This form was not made for your seat (or your link "
                                   "was replaced). Reload your page and try again."),
                                 reason="csrf")


def _is_form() -> bool:
    """A page's form: a POST outside ``/api/`` (the JSON routes carry no CSRF token:
    they are called by programs with the link, not by a page another site could post)."""
    return request.method != "GET" and not request.path.startswith("/api/")


def _no_check(_access: services.SeatAccess) -> None:
    """The JSON routes' check beyond the link: none."""


def open_request(token: str, read: Read | None = None) -> SeatRequest:
    """The seat of ``token`` opened (and ``read`` read with it), the form's CSRF checked:
    what ``seat_required`` gives a view, for a page shown again after a refused form."""
    if read is not None:
        access, snap, page = services.seat_page(token, read)
        seat = SeatRequest(access, snap, page)
    else:
        seat = SeatRequest(services.open_seat(token))
    if _is_form():
        check_csrf(seat.access)
    g.seat = seat
    return seat


#: What a seat link opens (issue 45: one key, one door), unless a route says less.
SEAT_DOOR = "that one seat: its view, its moves, this game's choices (its mail, its talk)"


@overload
def seat_required(view: SeatView[P, R], /
                  ) -> Route[P, R | LeftPage]: ...
@overload
def seat_required(*, read: Read | None = None, in_unit: Literal[False] = False,
                  opens: str = SEAT_DOOR
                  ) -> Callable[[SeatView[P, R]],
                                Route[P, R | LeftPage]]: ...
@overload
def seat_required(*, in_unit: Literal[True], opens: str = SEAT_DOOR
                  ) -> Callable[[UnitView[P, R]],
                                Route[P, R]]: ...
def seat_required(view: Callable[..., Any] | None = None, *, read: Read | None = None,
                  in_unit: bool = False, opens: str = SEAT_DOOR) -> Callable[..., Any]:
    """Open the seat of the route's ``<token>`` once; see the module's docstring. The
    route is marked as a seat link's door (``app.web.doors``).

    Typed per form (the overloads): with ``@seat_required`` or ``read=`` the view takes
    the ``SeatRequest`` first, with ``in_unit=True`` the ``token`` and the ``check``;
    either way the route takes the ``token`` and the rule's other values."""
    if in_unit:
        return _checked_in_unit(opens)
    decorate = _opened(read, opens)
    return decorate(view) if view is not None else decorate


def _opened(read: Read | None, opens: str
            ) -> Callable[[SeatView[P, R]],
                          Route[P, R | LeftPage]]:
    """``@seat_required`` and ``@seat_required(read=...)``: the view gets the opened seat."""
    def decorate(func: SeatView[P, R]
                 ) -> Route[P, R | LeftPage]:
        @functools.wraps(func)
        def wrapped(token: str, *args: P.args, **kwargs: P.kwargs) -> R | LeftPage:
            try:
                seat = open_request(token, read)
            except services.Forbidden as exc:
                if request.method != "GET" or request.path.startswith("/api/") or \
                        exc.details.get("reason") != "revoked":
                    raise
                left = services.handed_over_link(token)
                if left is None:
                    raise
                return handed_over_page(left)
            return func(seat, *args, **kwargs)
        return door("seat link", opens)(wrapped)
    return decorate


def _checked_in_unit(opens: str) -> Callable[[UnitView[P, R]],
                                             Route[P, R]]:
    """``@seat_required(in_unit=True)``: the view gets the token and the check to run in
    its own transaction (the form's CSRF token on a page's form, nothing more by JSON)."""
    def decorate(func: UnitView[P, R]
                 ) -> Route[P, R]:
        @functools.wraps(func)
        def wrapped(token: str, *args: P.args, **kwargs: P.kwargs) -> R:
            return func(token, check_csrf if _is_form() else _no_check, *args, **kwargs)
        return door("seat link", opens)(wrapped)
    return decorate


def handed_over_page(left: services.HandedOver) -> LeftPage:
    """What an earlier holder's link opens (issue 32 item 3): what happened, and the
    game to watch; no card of the seat and no link to it (a GET changes nothing)."""
    return render_template("seat_left.html", left=left, no_referrer=True), 403
