"""A person's settings page (issue 32 item 2): the choices that hold in all their games.

Zone, quiet hours, how mail comes across games, whether notices also come by mail, the
notice targets of all their games, and invitations, set once for the address. Two doors
lead to the one page, each proving the address its own way:

- ``GET|POST /play/<token>/settings``: a seat link (every seat page and the invitation
  link here); a post carries the seat's CSRF token;
- ``GET|POST /my-games/<token>/settings``: the games page's magic link (the games page
  links here); ``POST /my-games/<token>/invitations`` is its invitations switch.

A post checks every field before storing any (a bad one changes nothing), stores
through ``app.services.person_settings`` and redirects back to the page (303) with what
was saved in words. This game's own choices (its mail mode, its table talk) stay on the
seat page.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from app import services
from app.services import my_games, notice_targets
from app.services import person_settings as settings
from app.web.seat_request import SeatRequest, seat_required

bp = Blueprint("person", __name__)


def _page(address: str, *, token: str, via: str, csrf: str | None) -> Any:
    back = (url_for("play.show", token=token) if via == "seat"
            else url_for("my_games.show", token=token))
    return render_template("person.html", st=settings.status(address),
                           targets=notice_targets.of_address(address), token=token,
                           via=via, csrf=csrf, back=back,
                           action=url_for(f"person.{via}_save", token=token),
                           no_referrer=True)


def _save(address: str) -> list[str]:
    """Store what the form says; what was saved, in words."""
    form = request.form
    zone = settings.check_zone(form["time_zone"]) if form.get("time_zone") else None
    quiet_asked = "quiet_start" in form or "quiet_end" in form
    quiet = settings.check_quiet(form.get("quiet_start"), form.get("quiet_end")) \
        if quiet_asked else None
    across = form.get("address_mode") or None
    if across is not None and across not in settings.ADDRESS_MODE_WORDS:
        raise services.BadRequest("Choose one of: as chosen in each game, or one digest a day.")
    url = (form.get("target_url") or "").strip()
    said = []
    if zone is not None:
        settings.set_time_zone(address, zone)
        said.append(f"times in {zone}")
    if quiet_asked:
        settings.set_quiet(address, form.get("quiet_start"), form.get("quiet_end"))
        said.append(f"quiet hours {form.get('quiet_start')}–{form.get('quiet_end')}"
                    if quiet is not None else "no quiet hours")
    if across is not None:
        settings.set_address_mode(address, across)
        said.append(f"mail across your games: {settings.ADDRESS_MODE_WORDS[across]}")
    if "by_mail" in form:
        on = any(v in ("1", "on", "true", "yes") for v in form.getlist("by_mail"))
        notice_targets.set_address_by_mail(address, on)
        said.append("notices also by mail" if on else "notices on your targets instead of mail")
    if url:
        added = notice_targets.add_for_address(address, url)
        said.append(f"notices of all your games go to {added['shown']} as well")
    if form.get("remove_target"):
        gone = notice_targets.remove_for_address(address, form["remove_target"])
        said.append(f"no more notices to {gone}")
    if not said:
        raise services.BadRequest("Nothing to save: choose a time zone, quiet hours or how "
                                  "your mail comes.")
    return said


def _saved(said: list[str], to: str) -> Any:
    flash(f"Saved for all your games: {'; '.join(said)}.", "success")
    return redirect(to, code=303)


# -- from a seat page (and the invitation) ---------------------------------------------

@bp.get("/play/<token>/settings")
@seat_required
def seat_show(seat: SeatRequest) -> Any:
    access = seat.access
    address = settings.address_of_seat(access.game_id, access.seat)
    return _page(address, token=seat.token, via="seat", csrf=access.csrf)


@bp.post("/play/<token>/settings")
@seat_required
def seat_save(seat: SeatRequest) -> Any:
    access = seat.access
    said = _save(settings.address_of_seat(access.game_id, access.seat))
    return _saved(said, url_for("person.seat_show", token=seat.token))


# -- from the games page --------------------------------------------------------------

def _games_address(token: str) -> str:
    return my_games.read_link(token, str(current_app.config["SECRET_KEY"]))


@bp.get("/my-games/<token>/settings")
def games_show(token: str) -> Any:
    return _page(_games_address(token), token=token, via="games", csrf=None)


@bp.post("/my-games/<token>/settings")
def games_save(token: str) -> Any:
    said = _save(_games_address(token))
    return _saved(said, url_for("person.games_show", token=token))


@bp.post("/my-games/<token>/invitations")
def games_invitations(token: str) -> Any:
    """The games page's switch: ``choice=allow`` or ``choice=refuse`` (its own link proves
    the address); anything else is refused and changes nothing."""
    address = _games_address(token)
    choice = request.form.get("choice", "")
    if choice == "allow":
        settings.set_invitations(address, allowed=True)
        flash("Done: creators here may invite you to games again.", "success")
    elif choice == "refuse":
        settings.set_invitations(address, allowed=False)
        flash("Done: nobody can invite you to a game here any more (your games go on as "
              "before).", "success")
    else:
        raise services.BadRequest("Choose to allow or to refuse invitations.")
    return redirect(url_for("my_games.show", token=token), code=303)
