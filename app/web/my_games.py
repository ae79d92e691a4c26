"""All my games: ask for a magic link by address, open it, revoke it.

``GET /my-games`` shows the form; ``POST /my-games`` mails a link (the answer
is the same whether or not the address plays anywhere); ``GET
/my-games/<token>`` lists the address's seats, "your move" first (read only);
``POST /my-games/<token>/revoke`` makes every link so far stop working.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from app import services
from app.config import setting
from app.i18n import _, forms, pgettext
from app.services import my_games, person_settings
from app.web.doors import door

bp = Blueprint("my_games", __name__)

def status_words(status: str) -> str:
    """A game's status as its badge says it, in the reader's language."""
    return {"over": pgettext("game status", "over"),
            "abandoned": pgettext("game status", "abandoned"),
            "running": pgettext("game status", "running")}.get(status, status)


def day_words(moment: Any) -> str:
    """A day with its year, as the reader says it ('8 Dec 2026', '8. Dez. 2026',
    '2026年12月8日')."""
    from babel.dates import format_skeleton
    return format_skeleton("yMMMd", moment, locale=forms.cldr())


def _secret() -> str:
    return str(current_app.config["SECRET_KEY"])


@bp.get("/my-games")
@door("none", "the form that mails the games page's link")
def ask() -> Any:
    return render_template("my_games.html", seats=None, token=None, no_referrer=True,
                           status_words=status_words, day_words=day_words)


@bp.post("/my-games")
@door("none", "mailing the games page's link to the address typed, if it is seated "
      "(the same answer for any address)")
def send() -> Any:
    my_games.mail_link(request.form.get("email", ""), _secret(),
                       str(current_app.config["BASE_URL"]), str(setting("MAIL_FROM")))
    flash(_("If that address has a seat in any game here, a link to all its games is on its "
            "way (it works for %(days)s days).", days=my_games.LINK_DAYS), "success")
    return redirect(url_for("my_games.ask"), code=303)


@bp.get("/my-games/<token>")
@door("games link", "the list of its address's seats, with their links")
def show(token: str) -> Any:
    try:
        address = my_games.read_link(token, _secret())
    except services.Forbidden as exc:
        return render_template("my_games.html", seats=None, token=None, error=exc.message,
                               no_referrer=True, status_words=status_words,
                               day_words=day_words), 403
    seats = my_games.games_of(address)
    return render_template("my_games.html", seats=seats, token=token, address=address,
                           refused=person_settings.invitations_refused_at(address),
                           no_referrer=True, status_words=status_words, day_words=day_words)


@bp.post("/my-games/<token>/revoke")
@door("games link", "every games link of its address, to revoke them")
def revoke(token: str) -> Any:
    address = my_games.read_link(token, _secret())
    my_games.revoke(address, _secret())
    flash(_("Done: every link to your games list made so far no longer works."), "success")
    return redirect(url_for("my_games.ask"), code=303)
