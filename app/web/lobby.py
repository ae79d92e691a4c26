"""The lobby: a form to start a game, and the page that says where the seat links went.

POST-redirect-GET: creating a game redirects to a page listing the seats: a seat with
an address says its link was mailed there (and can mail it again), a seat without one
shows its link for the creator to hand out (issue 45: a creator never holds the link of
a seat that has an address). That page is no standing key: its address carries a
signed, timestamped "creator" token (its own salt, worth nothing as a seat link) that
lives an hour, it opens only in the browser that created the game (a cookie holding a
nonce whose hash is in the token), and it never shows a newer link (rotate-link).

Nobody logs in to the lobby, so its guards need no account: the form carries
a signed, timestamped token (``tokens.lobby_form_token``) checked on POST and
good for one game, and each address may start only a few games an hour,
counted in the database under a lock on a keyed hash of the address (never the
address itself), so every worker process sees the same count, even at once.
The options typed in are checked by ``app.services.options``, like every other caller's;
the seats by ``services.create_game`` (one address per seat, an address that
refused invitations, a never-played address's mail for the day: issue 17 item 7).
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass
from typing import Any

from flask import (Blueprint, current_app, flash, make_response, redirect, render_template,
                   request, url_for)
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from app.i18n import _
from app.services import options as game_options
from app.services import open_tables, settings_keys
from app import services
from app.access import tokens
from app.mail import trust
from app.web import view_helpers
from app.web.doors import door
from app.seating.rules import GATE_WORDS
from app.web.lobby_form import DAY_WORDS, LobbyForm

bp = Blueprint("lobby", __name__)
bp.record_once(view_helpers.install)

CREATOR_SALT = "silver-eye:creator-page"


# -- the creator link ------------------------------------------------------------

def _creator_serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=CREATOR_SALT)


def _nonce_hash(nonce: str) -> str:
    return hashlib.sha256(f"creator-browser:{nonce}".encode()).hexdigest()[:32]


def creator_token(game_id: str, versions: list[int] | None = None, nonce: str = "") -> str:
    """The signed, timestamped token of a game's links page.

    It names the game, the seat link versions it may show (a rotated seat's
    link is never shown), and a hash of the nonce kept in the creating
    browser's cookie (without that cookie the page shows nothing).
    """
    return _creator_serializer().dumps(["creator", str(game_id), list(versions or []),
                                       _nonce_hash(nonce) if nonce else ""])


@dataclass(frozen=True)
class CreatorLink:
    """What a valid links-page token says."""

    game_id: str
    versions: list[int]
    nonce_hash: str


def read_creator_token(token: str) -> CreatorLink:
    """The links page a token opens; ``Forbidden`` if forged or older than its life."""
    max_age = int(current_app.config["CREATED_PAGE_SECONDS"])
    try:
        payload = _creator_serializer().loads(token, max_age=max_age)
    except SignatureExpired:
        raise services.Forbidden(
            _("This page of links was shown for %(minutes)s minutes after the game was "
              "created and is gone now. Every player with an address has their link in the "
              "invitation mail; a player who lost it can have it mailed again from any "
              "replaced link's page.", minutes=max_age // 60),
            reason="creator_expired") from None
    except BadSignature:
        payload = None
    if not (isinstance(payload, list) and len(payload) == 4 and payload[0] == "creator"
            and isinstance(payload[1], str) and isinstance(payload[2], list)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in payload[2])
            and isinstance(payload[3], str)):
        raise services.Forbidden(_("This link is not valid: it may have been cut short or "
                                   "changed."), reason="creator")
    return CreatorLink(payload[1], payload[2], payload[3])


def _cookie_name(game_id: str) -> str:
    return f"created_{game_id}"


def _creating_browser(link: CreatorLink) -> bool:
    """Whether this request comes from the browser that created the game."""
    nonce = request.cookies.get(_cookie_name(link.game_id), "")
    return bool(nonce and link.nonce_hash
                and hmac.compare_digest(_nonce_hash(nonce), link.nonce_hash))


def _render_form(form: LobbyForm, errors: list[str] | None = None, status: int = 200) -> Any:
    """The form (again), always with a fresh token so the next press can succeed."""
    return render_template("lobby.html", form=form, errors=errors or [],
                           form_token=tokens.lobby_form_token(),
                           day_names=DAY_WORDS, gates=GATE_WORDS,
                           limits={"deadline_max": game_options.DEADLINE_MAX_HOURS,
                                   "bank_max": game_options.BANK_MAX_DAYS,
                                   "allowance_max": game_options.ALLOWANCE_MAX_HOURS,
                                   "more_time_max": game_options.MORE_TIME_MAX_PER_ROUND,
                                   "absent_max": game_options.ABSENT_AFTER_MAX,
                                   "max_reminders": game_options.MAX_REMINDERS,
                                   "turn_mail_max": game_options.TURN_MAIL_DELAY_MAX_SECONDS // 60,
                                   "turn_mail_default": f"{float(current_app.config['TURN_MAIL_DELAY_SECONDS']) / 60:g}",
                                   # issue 17 item 7: what a never-played address may get
                                   "stranger_mails": trust.STRANGER_MAILS_PER_DAY}), status


# -- the guards ------------------------------------------------------------------

def _form_max_age() -> int:
    return int(current_app.config["LOBBY_FORM_MAX_AGE"])


def _check_form_token(token: str | None) -> tuple[str | None, str]:
    """``(why the posted form's token is refused in words, or None; the token's id)``."""
    max_age = _form_max_age()
    try:
        return None, tokens.check_lobby_form_token(token, max_age=max_age)
    except tokens.ExpiredToken:
        return _("This form was open for more than %(hours)s hours, so it expired and no "
                 "game was created. Check the details below and press “Create the game” "
                 "again.", hours=max_age // 3600), ""
    except tokens.BadToken:
        return _("This form could not be checked (it did not come from this page, or it was "
                 "changed), so no game was created. Check the details below and press "
                 "“Create the game” again."), ""


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
@door("none", "the lobby's form")
def index() -> Any:
    """The form to start a game."""
    return _render_form(LobbyForm())


@bp.post("/")
@door("lobby form", "creating one game")
def create() -> Any:
    """Create the game, then redirect to its (signed) links page."""
    form = LobbyForm.from_request(request.form)
    problem, form_token_id = _check_form_token(request.form.get("form_token"))
    if problem:
        return _render_form(form, [problem], 400)
    errors: list[str] = []
    players = form.players(errors)
    options = form.options(errors, players)
    if errors:
        return _render_form(form, errors, 400)
    per_hour = int(current_app.config["LOBBY_GAMES_PER_HOUR"])
    if form.open_table:  # issue 48: a seat left open makes an open table, not a game
        return _open_table(form, players, options, form_token_id, per_hour)
    try:
        created = services.create_game(
            players, options=options, name=form.name, creator=creator_key(request.remote_addr),
            per_hour=per_hour, form_token_id=form_token_id, form_max_age=_form_max_age(),
            talk_spectators=form.talk_spectators)
    except (services.BadRequest, services.TooMany) as exc:
        return _render_form(form, [exc.message], exc.status)
    nonce = secrets.token_urlsafe(24)
    versions = [tokens.read_seat_token(token).version for token in created.tokens]
    answer = redirect(url_for("lobby.links", token=creator_token(created.game_id, versions, nonce)),
                      code=303)
    max_age = int(current_app.config["CREATED_PAGE_SECONDS"])
    answer.set_cookie(_cookie_name(created.game_id), nonce, max_age=max_age, path="/created/",
                      secure=request.is_secure, httponly=True, samesite="Lax")
    return answer


def _open_table(form: LobbyForm, players: list[dict[str, str]], options: dict[str, Any],
                form_token_id: str, per_hour: int) -> Any:
    """Open the table; its page in the list says the creator's link is on its way (the
    creator holds no link here: their seat is confirmed from their mail, like anyone's)."""
    try:
        opened = open_tables.open_table(
            players, options, name=form.name, gate=form.gate, wait_days=form.wait_days,
            creator=creator_key(request.remote_addr), per_hour=per_hour,
            form_token_id=form_token_id, form_max_age=_form_max_age(),
            talk_spectators=form.talk_spectators)
    except (services.BadRequest, services.TooMany) as exc:
        return _render_form(form, [exc.message], exc.status)
    flash(_("Your table is open and listed below. We mailed a link to each named seat "
            "(%(names)s): click yours to confirm your seat. The game starts when every seat "
            "is confirmed.", names=", ".join(opened.mailed)), "success")
    return redirect(url_for("tables.index", _anchor=f"table-{opened.table_id}"), code=303)


def _creator_link(token: str) -> CreatorLink:
    """The links page's token, checked, in the creating browser only."""
    link = read_creator_token(token)
    if not _creating_browser(link):
        raise services.Forbidden(_("This page of links is shown only in the browser that "
                                   "created the game, for an hour. Every player with an "
                                   "address has their link in the invitation mail."),
                                 reason="creator_browser")
    return link


@bp.get("/created/<token>")
@door("created page", "the links of the seats without an address (to hand out), and where "
      "the others' links were mailed, masked")
def links(token: str) -> Any:
    """The game's seats, for an hour, in the browser that created the game only.

    A seat with an address shows where its link went (masked), never the link: it was
    mailed there, and showing it would hand a stranger's seat — and everything a seat
    link opens — to whoever typed the address (issue 45). A seat without one shows its
    link, to be handed out by the creator. A seat whose link was replaced since
    (rotate-link) is listed without a link: this page never hands out a link newer than
    the one it was made with.
    """
    link = _creator_link(token)
    info = services.game_info(link.game_id)
    current = services.seat_tokens(link.game_id)
    mailed = settings_keys.mailed_seats(link.game_id)
    seats = []
    for s in info.seats:
        shown = (s.index < len(link.versions)
                 and tokens.read_seat_token(current[s.index]).version == link.versions[s.index])
        address = mailed.get(s.index)
        seats.append({"index": s.index, "name": s.name, "kind": s.kind,
                      "replaced": not shown, "mailed_to": address,
                      "url": tokens.seat_url(current[s.index])
                      if shown and address is None else None})
    answer = make_response(render_template("created.html", game=info, game_title=info.name,
                                           seats=seats, token=token, no_referrer=True))
    answer.headers["Cache-Control"] = "no-store, private"
    return answer


@bp.post("/created/<token>/mail/<int:seat>")
@door("created page", "mailing a seat's current link again to that seat's own address")
def mail_again(token: str, seat: int) -> Any:
    """The seat's link goes to its address again (``FRESH_LINK_MINUTES``), never here."""
    link = _creator_link(token)
    services.request_fresh_link(link.game_id, seat=seat)
    flash(_("If that seat has an address, its link is on its way there again (at most one "
            "mail every few minutes)."), "success")
    return redirect(url_for("lobby.links", token=token), code=303)
