"""A person's settings (issue 32 item 2), behind the keys that prove an address (issue 45,
"one key, one door").

Zone, quiet hours, how mail comes across games, whether notices also come by mail, the
notice targets of all their games, and invitations hold in every game of an address, so
they open only with a key mailed *to* that address:

- ``GET|POST /settings/<key>``: a settings link (``app.people.keys``: mailed on
  request, a day unused, an hour after its first change);
- ``GET|POST /my-games/<token>/settings``: the games page's link (a week, revocable);
  ``POST /my-games/<token>/invitations`` is its invitations switch.

A seat link opens one seat: ``GET /play/<token>/settings`` says where the settings are
and ``POST`` (the seat's CSRF token; ``POST /api/play/<token>/settings-link`` in JSON)
mails the settings link to the seat's address —
never anything else: a form posting settings fields to it is refused (403) and changes
nothing. ``POST /settings-link`` (the lobby) mails it to any address, one with no seat
yet included, and answers the same whether or not a mail went.

Every change is one use case (``app.services.person_settings``): checked whole, stored
in one transaction, mailed to the address at once with a link that undoes it
(``GET|POST /settings/undo/<token>``: the GET only asks).
"""
from __future__ import annotations

from typing import Any

from flask import (Blueprint, current_app, flash, jsonify, redirect, render_template, request,
                   url_for)

from app import services
from app.i18n import _, forms
from app.services import my_games, notice_targets
from app.services import person_settings as settings
from app import i18n
from app.web import language
from app.services import settings_keys as keys
from app.web.doors import door
from app.web.openapi_parts import BAD_LINK, TOKEN
from app.web.seat_request import SeatRequest, seat_required

bp = Blueprint("person", __name__)


@bp.context_processor
def _dates() -> dict[str, Any]:
    from app.web.my_games import day_words
    return {"long_when": forms.long_when, "day_words": day_words}


#: The fields of the settings form: posted to a seat's door, they are refused.
SETTINGS_FIELDS = ("time_zone", "language", "quiet_start", "quiet_end", "address_mode", "by_mail",
                   "push_instead",
                   "target_url", "remove_target", "invitations", "away_until", "away_back",
                   "standing", "new_address")


def _page(address: str, *, action: str, back: tuple[str, str] | None, push_url: str) -> Any:
    st = settings.status(address)
    if st.get("language_chosen"):  # the person's page in the person's language (issue 50)
        language.for_person(st["language_chosen"])
        st["language"] = st["language_chosen"]
    return render_template("person.html", st=st,
                           targets=notice_targets.of_address(address), action=action,
                           back=back, no_referrer=True, push_url=push_url)


def _save(address: str, via: str, to: str, key_id: str | None = None) -> Any:
    said = settings.save(address, settings.check(request.form, request.form.getlist), via,
                        key_id=key_id)
    if not request.form.get("language"):  # the first post behind a key: keep its language
        settings.guess_language(address, i18n.current())
    flash(_("Saved for all your games: %(what)s. We mailed you what changed, with a link "
            "that undoes it.", what="; ".join(said)), "success")
    return redirect(to, code=303)


# -- a seat's door: it only mails the key --------------------------------------------

@bp.get("/play/<token>/settings")
@seat_required
def seat_show(seat: SeatRequest) -> Any:
    access = seat.access
    return render_template("person_ask.html", ask=keys.ask_status(access.game_id,
                                                                        access.seat),
                           token=seat.token, csrf=access.csrf, no_referrer=True)


@bp.post("/play/<token>/settings")
@seat_required
def seat_save(seat: SeatRequest) -> Any:
    """Mail the settings link to the seat's address (nothing else, ever)."""
    if any(name in request.form for name in SETTINGS_FIELDS):
        raise services.Forbidden(
            _("Your settings for all your games open only with the link we mail to your "
              "address, not with a seat link (anyone you forward a mail to holds that). "
              "Nothing was changed: press \"Send me the link to my settings\"."),
            reason="person_key_needed")
    access = seat.access
    shown = keys.mail_settings_link_for_seat(access.game_id, access.seat)
    flash(_("The link to your settings is on its way to %(address)s (we send at most one "
            "every %(minutes)s minutes). It works for a day.", address=shown,
            minutes=keys.link_minutes()), "success")
    return redirect(url_for("person.seat_show", token=seat.token), code=303)


@bp.post("/api/play/<token>/settings-link")
@seat_required(opens="mailing the settings link to the seat's own address, nothing more")
def api_settings_link(seat: SeatRequest) -> Any:
    """The JSON twin of the seat page's button: ``{"mailed_to": "v•••@example.org",
    "minutes": 10}`` (at most one mail every ``minutes``; the address masked)."""
    access = seat.access
    shown = keys.mail_settings_link_for_seat(access.game_id, access.seat)
    return jsonify({"mailed_to": shown, "minutes": keys.link_minutes()}), 202


# -- the settings link ---------------------------------------------------------------

@bp.get("/settings/<key>")
@door("settings link", "the settings of the address it was mailed to (read)")
def key_show(key: str) -> Any:
    opened = keys.open_settings_key(key)
    return _page(opened.address, action=url_for("person.key_save", key=key), back=None,
                 push_url=url_for("push.key_subscribe", key=key))


@bp.post("/settings/<key>")
@door("settings link", "the settings of the address it was mailed to: zone, quiet hours, "
      "mail across games, notices by mail, targets for all games, invitations, away until "
      "a date")
def key_save(key: str) -> Any:
    opened = keys.open_settings_key(key)
    return _save(opened.address, "settings", url_for("person.key_show", key=key),
                 key_id=opened.id)


# -- the games page's link -------------------------------------------------------------

def _games_address(token: str) -> str:
    return my_games.read_link(token, str(current_app.config["SECRET_KEY"]))


@bp.get("/my-games/<token>/settings")
@door("games link", "the settings of its address (read)")
def games_show(token: str) -> Any:
    return _page(_games_address(token), action=url_for("person.games_save", token=token),
                 back=(url_for("my_games.show", token=token), _("Back to all your games")),
                 push_url=url_for("push.games_subscribe", token=token))


@bp.post("/my-games/<token>/settings")
@door("games link", "the settings of its address, as the settings link")
def games_save(token: str) -> Any:
    return _save(_games_address(token), "games", url_for("person.games_show", token=token))


@bp.post("/my-games/<token>/invitations")
@door("games link", "whether creators may invite its address")
def games_invitations(token: str) -> Any:
    """The games page's switch: ``choice=allow`` or ``choice=refuse``; anything else is
    refused and changes nothing."""
    choice = request.form.get("choice", "")
    if choice not in ("allow", "refuse"):
        raise services.BadRequest(_("Choose to allow or to refuse invitations."))
    settings.save(_games_address(token), settings.check({"invitations": choice}), "games")
    flash(_("Done: creators here may invite you to games again.") if choice == "allow" else
          _("Done: nobody can invite you to a game here any more (your games go on as "
            "before)."), "success")
    return redirect(url_for("my_games.show", token=token), code=303)


# -- an address with no seat yet (the lobby) -------------------------------------------

@bp.post("/settings-link")
@door("none", "mailing a settings link to the address typed (the same answer for any "
      "address; one every few minutes; a never-played address within its day's bound)")
def ask_by_address() -> Any:
    keys.mail_settings_link_to(request.form.get("email", ""))
    flash(_("If we may write to that address, the link to its settings is on its way (it "
            "works for a day). Nothing changes unless it is used."), "success")
    back = url_for("my_games.ask") if request.form.get("back") == "my-games" \
        else url_for("lobby.index")
    return redirect(back, code=303)


# -- undoing a change --------------------------------------------------------------------

@bp.get("/settings/undo/<token>")
@door("undo link", "what one person-wide change did (read)")
def undo_show(token: str) -> Any:
    return render_template("person_undo.html", change=settings.undo_page(token),
                           token=token, no_referrer=True)


@bp.post("/settings/undo/<token>")
@door("undo link", "putting back what that one change replaced, once")
def undo_save(token: str) -> Any:
    said = settings.undo(token)
    return render_template("person_undo.html", change=None, done=said, token=token,
                           no_referrer=True)


#: OpenAPI path items of the JSON route here (merged into /api/openapi.json).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/play/{token}/settings-link": {"post": {
        "parameters": [TOKEN],
        "summary": "Mail the link to the person's settings to the seat's address",
        "description": "A seat link opens one seat (issue 45): zone, quiet hours and mail "
                       "across games open only with a link mailed to the address. At most "
                       "one such mail every few minutes; the answer is the same whether or "
                       "not one went.",
        "responses": {"202": {"description": "On its way", "content": {"application/json": {
            "schema": {"type": "object", "properties": {
                "mailed_to": {"type": "string", "description": "the address, masked"},
                "minutes": {"type": "integer"}}}}}},
            "400": {"description": "The seat has no address (so no settings across games)"},
            "403": BAD_LINK}}},
}
