"""Mail and clock routes: unsubscribe, a seat's mail/clock settings, the dev mailbox.

- ``GET /unsubscribe/<token>`` only shows a confirm form (mail scanners open
  links); ``POST`` is the RFC 8058 one-click unsubscribe.
- ``GET /invitations/<token>`` (an invitation's ``List-Unsubscribe``) asks, and
  ``POST`` is its one click: no more invitations to that address, from any
  creator (issue 17 item 7); ``POST .../undo`` changes it back (the games page's
  switch is the person's: ``app.web.person``).
- ``POST /play/<token>/prefs|back|vacation`` change this game's mail preference (its
  mode, its table talk by mail; zone, quiet hours and the mode across games are the
  person's: ``app.web.person``), log "I'm back", or pause its clock; each checks the
  seat's CSRF token.
- ``GET /dev/mail`` lists the file mailbox (``instance/mail``), only in DEBUG.
"""
from __future__ import annotations

import re
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import Any

from flask import (Blueprint, abort, current_app, flash, redirect, render_template,
                   request, url_for)

from app import services
from app.i18n import _, forms
from app.services import absence
from app.services import seat_settings as preferences
from app.mail.backends import mail_folder
from app.people.calendar import zone_of
from app.web.seat_request import SeatRequest, seat_required
from app.web.doors import door

bp = Blueprint("mail", __name__)

EML_NAME = re.compile(r"^\d{9}-[a-z_]+\.eml$")


# -- unsubscribe (RFC 8058) ----------------------------------------------------------

#: What the unsubscribe page calls the mail of an address across all its games.
ALL_GAMES = {"name": "all your games"}


def _unsubscribe_page(token: str, target: tuple[str, int] | str, done: bool) -> Any:
    if isinstance(target, str):  # the daily digest's link: every game of the address
        return render_template("mail/unsubscribe_page.html", token=token, done=done,
                               game=ALL_GAMES, name=target, no_referrer=True)
    game_id, seat = target
    info = services.game_info(game_id)
    return render_template("mail/unsubscribe_page.html", token=token, done=done, game=info,
                           name=info.names[seat] if seat < len(info.names) else "",
                           no_referrer=True)


@bp.get("/unsubscribe/<token>")
@door("unsubscribe link", "what the one click would stop (read)")
def unsubscribe_form(token: str) -> Any:
    """Ask before doing anything: a GET never changes state."""
    return _unsubscribe_page(token, preferences.read_token(token), done=False)


@bp.post("/unsubscribe/<token>")
@door("unsubscribe link", "one seat's mail in one game (the digest's: its address's game mail, "
      "mailed to it with an undo link)")
def unsubscribe(token: str) -> Any:
    """One click (a mail client posting ``List-Unsubscribe=One-Click``) or the form."""
    return _unsubscribe_page(token, preferences.unsubscribe(token), done=True)


# -- invitations (issue 17 item 7) ------------------------------------------------------

def _invitations_page(token: str, guard: preferences.InvitationGuard, state: str) -> Any:
    return render_template("mail/invitations_page.html", token=token, guard=guard,
                           state=state, no_referrer=True)


@bp.get("/invitations/<token>")
@door("invitation link", "what refusing invitations would do (read)")
def invitations_form(token: str) -> Any:
    """Ask before doing anything: a GET never changes state (mail scanners open links)."""
    return _invitations_page(token, preferences.guard_status(token), "ask")


@bp.post("/invitations/<token>")
@door("invitation link", "refusing invitations to its address (mailed to it with an undo link) "
      "and the invited seat's mail")
def invitations_refuse(token: str) -> Any:
    """One click (a mail client posting ``List-Unsubscribe=One-Click``, RFC 8058) or
    the page's button: the same, whatever the body says."""
    return _invitations_page(token, preferences.refuse_invitations(token), "done")


@bp.post("/invitations/<token>/undo")
@door("invitation link", "allowing invitations again, within an hour of the refusal")
def invitations_undo(token: str) -> Any:
    """The done page's undo: invitations welcome again, the game's mail back on."""
    ref = preferences.read_guard(token)
    preferences.allow_invitations(ref.address, ref)
    return _invitations_page(token, preferences.guard_status(token), "undone")


# -- a seat's settings -----------------------------------------------------------------


def _back_to_seat(token: str) -> Any:
    return redirect(url_for("play.show", token=token), code=303)


@bp.post("/play/<token>/prefs")
@seat_required
def prefs(seat: SeatRequest) -> Any:
    """This game's mail settings: its mail mode and its table talk by mail. Zone, quiet
    hours and the mode across games are the person's (their settings page: issue 32)."""
    access = seat.access
    form = request.form
    # check every field before storing any, so a bad one changes nothing
    if "mode" in form and form["mode"] not in preferences.MODE_WORDS:
        raise services.BadRequest(_("Choose one of: every decision, digest, or no mail."))
    talk = form.get("talk_mode") or None  # (issue 20 item 2)
    if talk is not None and talk not in preferences.TALK_MODE_WORDS:
        raise services.BadRequest(_(str(preferences.TALK_MODE_REFUSAL)))
    said = []
    if "mode" in form:
        mode = preferences.set_mode(access.game_id, access.seat, form["mode"])
        said.append(preferences.describe(mode))
    if talk is not None:
        preferences.set_talk_mode(access.game_id, access.seat, talk)
        said.append(_("table talk by mail: %(mode)s",
                      mode=_(str(preferences.TALK_MODE_WORDS[talk]))))
    if not said:
        raise services.BadRequest(_("Nothing to save: choose how this game's mail comes (your "
                                    "time zone and quiet hours are on your settings page)."))
    flash(_("Mail settings saved: %(what)s.", what="; ".join(said)), "success")
    return _back_to_seat(seat.token)


@bp.post("/play/<token>/back")
@seat_required
def back(seat: SeatRequest) -> Any:
    absence.come_back(seat.access.game_id, seat.access.seat)
    flash(_("Welcome back: your decisions wait for you again, with normal deadlines."),
          "success")
    return _back_to_seat(seat.token)


@bp.post("/play/<token>/vacation")
@seat_required
def vacation(seat: SeatRequest) -> Any:
    access = seat.access
    raw = request.form.get("days", "").strip()
    if not (raw.isascii() and raw.isdigit() and len(raw) < 6):  # (int takes "٣" and "３")
        raise services.BadRequest(_("Say how many days your vacation lasts, as a number "
                                    "written with the digits 0-9."))
    days = int(raw)
    until = absence.start_vacation(access.game_id, access.seat, days)
    zone = preferences.status(access.game_id, access.seat)["time_zone"]
    flash(_("Your clock is paused until %(when)s.", when=forms.long_when(until, zone_of(zone))),
          "success")
    return _back_to_seat(seat.token)


# -- the file mailbox (development only) ---------------------------------------------------

def _mail_dir() -> Path:
    return mail_folder(current_app.config, current_app.instance_path)


def _require_debug() -> None:
    if not current_app.debug:  # Flask's ``debug`` is the DEBUG setting
        abort(404)


def _read(path: Path) -> Any:
    with path.open("rb") as handle:
        return BytesParser(policy=policy.default).parse(handle)


@bp.get("/dev/mail")
@door("debug", "the file mailbox, in DEBUG only")
def mailbox() -> Any:
    _require_debug()
    folder = _mail_dir()
    files = sorted((p for p in folder.glob("*.eml") if EML_NAME.match(p.name)),
                   reverse=True) if folder.is_dir() else []
    mails = []
    for path in files[:500]:
        message = _read(path)
        mails.append({"name": path.name, "to": str(message["To"] or ""),
                      "subject": str(message["Subject"] or ""), "date": str(message["Date"] or "")})
    return render_template("mail/dev_mailbox.html", mails=mails, folder=str(folder), mail=None)


@bp.get("/dev/mail/<name>")
@door("debug", "one mail of the file mailbox, in DEBUG only")
def mailbox_message(name: str) -> Any:
    _require_debug()
    path = _mail_dir() / name
    if not EML_NAME.match(name) or not path.is_file():
        abort(404)
    message = _read(path)
    text = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    headers = [(k, str(v)) for k, v in message.items()]
    return render_template("mail/dev_mailbox.html", mails=None, folder="", mail={
        "name": name, "headers": headers,
        "text": text.get_content() if text is not None else "",
        "html": html.get_content() if html is not None else "",
    })
