"""The lobby: a form to start a game, and the page that hands out the seat links.

POST-redirect-GET: creating a game redirects to a page listing every seat's
link. That page's address carries a signed "creator" token (its own salt, so
it is worth nothing as a seat link and cannot be made from a game id), because
whoever sees it can open every seat.

Nobody logs in to the lobby, so its guards need no account: the form carries
a signed, timestamped token (``tokens.lobby_form_token``) checked on POST,
and each address may start only a few games an hour, counted in the database
(so every worker process sees the same count) under a keyed hash of the
address, never the address itself.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer

from app import services, tokens
from app.web import view_helpers

bp = Blueprint("lobby", __name__)
bp.record_once(view_helpers.install)

MAX_SEATS = 4
MIN_SEATS = 2
DEADLINE_MAX_HOURS = 24 * 30
ABSENT_MAX = 20
CREATOR_SALT = "silver-eye:creator"
#: Games one address may start per hour (config ``LOBBY_GAMES_PER_HOUR``).
GAMES_PER_HOUR = 10
SIMON_CHOICES = ("auto", "off")


# -- the creator link ------------------------------------------------------------

def _creator_serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt=CREATOR_SALT)


def creator_token(game_id: str) -> str:
    """The signed token of a game's "links" page (only its creator is shown it)."""
    return _creator_serializer().dumps(["creator", str(game_id)])


def read_creator_token(token: str) -> str:
    """The game id inside a creator token; ``Forbidden`` if forged."""
    try:
        payload = _creator_serializer().loads(token)
    except BadSignature:
        payload = None
    if not (isinstance(payload, list) and len(payload) == 2 and payload[0] == "creator"
            and isinstance(payload[1], str)):
        raise services.Forbidden("This link is not valid: it may have been cut short or "
                                 "changed.", reason="creator")
    return payload[1]


# -- the form --------------------------------------------------------------------

@dataclass
class LobbyForm:
    """What the lobby form says, kept as typed so a rejected form is shown again as it was."""

    name: str = ""
    seats: list[dict[str, str]] = field(default_factory=lambda: [
        {"name": "", "email": "", "kind": "human", "simon": "auto"} for _ in range(MAX_SEATS)])
    deadline: str = "2"
    deadline_unit: str = "days"
    reminders: str = "half, 2"
    absent_after: str = "3"
    memory: bool = False

    @classmethod
    def from_request(cls, form: Any) -> "LobbyForm":
        seats = []
        for i in range(MAX_SEATS):
            kind = form.get(f"seat{i}_kind", "human")
            simon = form.get(f"seat{i}_simon", "auto")
            seats.append({"name": form.get(f"seat{i}_name", "").strip(),
                          "email": form.get(f"seat{i}_email", "").strip(),
                          "kind": kind if kind in ("human", "bot") else "human",
                          "simon": simon if simon in SIMON_CHOICES else "auto"})
        return cls(name=form.get("name", "").strip(), seats=seats,
                   deadline=form.get("deadline", "").strip(),
                   deadline_unit=form.get("deadline_unit", "days"),
                   reminders=form.get("reminders", "").strip(),
                   absent_after=form.get("absent_after", "").strip(),
                   memory=form.get("memory") in ("1", "on", "true"))

    def players(self, errors: list[str]) -> list[dict[str, str]]:
        """The filled-in seats: a row counts if it has a name or email, or is a bot."""
        players = []
        for i, seat in enumerate(self.seats):
            if not (seat["name"] or seat["email"] or seat["kind"] == "bot"):
                continue
            if seat["kind"] == "human" and not seat["name"]:
                errors.append(f"Seat {i + 1} needs a name (or choose the bot).")
            players.append({"name": seat["name"], "email": seat["email"] if seat["kind"] == "human" else "",
                            "kind": seat["kind"],
                            # a bot never claims by hand: its Simon discards are automatic
                            "simon": seat["simon"] if seat["kind"] == "human" else "auto"})
        if not MIN_SEATS <= len(players) <= MAX_SEATS:
            errors.append(f"Fill in {MIN_SEATS} to {MAX_SEATS} seats (you filled in {len(players)}).")
        elif all(p["kind"] == "bot" for p in players):
            errors.append("At least one seat must be played by a person.")
        return players

    def options(self, errors: list[str], players: list[dict[str, str]]) -> dict[str, Any]:
        """The game options: the engine's (``memory``, ``simon`` per seat, R16) and the
        clock's (deadline, reminders...)."""
        options: dict[str, Any] = {"memory": self.memory,
                                   "simon": [p["simon"] for p in players]}
        hours = _number(self.deadline)
        if self.deadline_unit not in ("hours", "days"):
            errors.append("Choose hours or days for the time to make a move.")
        elif hours is None or hours <= 0:
            errors.append("The time to make a move must be a number above zero.")
        else:
            hours = hours * 24 if self.deadline_unit == "days" else hours
            if hours > DEADLINE_MAX_HOURS:
                errors.append("The time to make a move can be at most 30 days.")
            else:
                options["deadline_hours"] = hours
        leads: list[Any] = []
        for part in filter(None, (p.strip() for p in self.reminders.replace(";", ",").split(","))):
            if part.lower() in ("half", "halfway"):
                leads.append("half")
                continue
            lead = _number(part)
            if lead is None or lead <= 0:
                errors.append(f"“{part}” is not a number of hours for a reminder.")
            elif "deadline_hours" in options and lead >= options["deadline_hours"]:
                errors.append(f"A reminder {part} hours before the deadline would come before "
                              "the move is due to start; choose a smaller number.")
            else:
                leads.append(lead)
        options["reminders"] = leads
        absent = _number(self.absent_after)
        if absent is None or absent != int(absent) or not 1 <= absent <= ABSENT_MAX:
            errors.append(f"Missed deadlines before a player counts as away: a whole number "
                          f"from 1 to {ABSENT_MAX}.")
        else:
            options["absent_after"] = int(absent)
        return options


def _number(text: str) -> float | None:
    try:
        value = float(text.replace(",", "."))
    except (TypeError, ValueError):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return int(value) if value == int(value) else value


def _render_form(form: LobbyForm, errors: list[str] | None = None, status: int = 200) -> Any:
    """The form (again), always with a fresh token so the next press can succeed."""
    return render_template("lobby.html", form=form, errors=errors or [],
                           form_token=tokens.lobby_form_token(),
                           limits={"deadline_max": DEADLINE_MAX_HOURS, "absent_max": ABSENT_MAX}), status


# -- the guards ------------------------------------------------------------------

def _token_problem(token: str | None) -> str | None:
    """Why the posted form's token is refused (in words), or None if it is good."""
    max_age = int(current_app.config.get("LOBBY_FORM_MAX_AGE", tokens.LOBBY_FORM_MAX_AGE))
    try:
        tokens.check_lobby_form_token(token, max_age=max_age)
    except tokens.ExpiredToken:
        return (f"This form was open for more than {max_age // 3600} hours, so it expired and "
                "no game was created. Check the details below and press “Create the game” again.")
    except tokens.BadToken:
        return ("This form could not be checked (it did not come from this page, or it was "
                "changed), so no game was created. Check the details below and press "
                "“Create the game” again.")
    return None


def creator_key(address: str | None) -> str:
    """A keyed hash of the request's address: the same for one address, useless to anyone else.

    An IPv6 address counts by its /64 network, which one household or phone
    usually owns whole (so rotating the last bits does not reset the count).
    """
    text = (address or "").strip()
    try:
        ip = ipaddress.ip_address(text)
        if ip.version == 6 and not ip.ipv4_mapped:
            text = str(ipaddress.ip_network(f"{ip}/64", strict=False))
        elif ip.version == 6:
            text = str(ip.ipv4_mapped)
    except ValueError:
        pass
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, f"lobby-address:{text}".encode(), hashlib.sha256).hexdigest()


# -- routes ----------------------------------------------------------------------

@bp.get("/")
def index() -> Any:
    """The form to start a game."""
    return _render_form(LobbyForm())


@bp.post("/")
def create() -> Any:
    """Create the game, then redirect to its (signed) links page."""
    form = LobbyForm.from_request(request.form)
    problem = _token_problem(request.form.get("form_token"))
    if problem:
        return _render_form(form, [problem], 400)
    errors: list[str] = []
    players = form.players(errors)
    options = form.options(errors, players)
    if errors:
        return _render_form(form, errors, 400)
    per_hour = int(current_app.config.get("LOBBY_GAMES_PER_HOUR", GAMES_PER_HOUR))
    try:
        created = services.create_game(players, options=options, name=form.name,
                                       creator=creator_key(request.remote_addr),
                                       per_hour=per_hour)
    except (services.BadRequest, services.TooMany) as exc:
        return _render_form(form, [exc.message], exc.status)
    return redirect(url_for("lobby.links", token=creator_token(created.game_id)), code=303)


@bp.get("/created/<token>")
def links(token: str) -> Any:
    """Every seat's link, for the person who created the game."""
    game_id = read_creator_token(token)
    info = services.game_info(game_id)
    seat_tokens = services.seat_tokens(game_id)
    seats = [{"name": s.name, "kind": s.kind,
              "url": tokens.seat_url(seat_tokens[s.index])} for s in info.seats]
    return render_template("created.html", game=info, game_title=info.name, seats=seats,
                           no_referrer=True)
