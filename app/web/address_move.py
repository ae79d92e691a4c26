"""Moving to a new address, by oneself (issue 47 item 5): the doors of
``app.services.address_move``.

- ``POST /settings/<key>/move`` and ``POST /my-games/<token>/settings/move``: the settings
  page's "Move to a new address" form, behind the keys mailed to the old address; it only
  *asks*: a link goes to the new address, a cancel link to the old one;
- ``GET|POST /move/<token>``: the **move link**, mailed to the new address: the GET shows
  what would move (a mail scanner opens links: a GET changes nothing), the POST moves;
- ``GET|POST /move/cancel/<token>``: the **move cancel link**, mailed to the old address:
  ends a move not confirmed yet.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for

from app.i18n import _, forms
from app.services import address_move as moving
from app.services import my_games
from app.services import settings_keys as keys
from app.web.doors import door

bp = Blueprint("address_move", __name__)


@bp.context_processor
def _dates() -> dict[str, Any]:
    return {"long_when": forms.long_when}

ASKS = ("asking to move its person to a new address: mails a move link to the new address "
        "and a cancel link to this one (nothing moves until the new address confirms)")


def _asked(address: str, via: str, back: str, key_id: str | None = None) -> Any:
    asked = moving.ask(address, request.form.get("new_address", ""), via, key_id=key_id)
    flash(_("We mailed a link to %(address)s: open it from that mailbox within %(hours)s "
            "hours and confirm there. Nothing moves until then; this address got a mail that "
            "can cancel it.", address=asked.new_address, hours=asked.hours), "success")
    if asked.bouncing:
        flash(_("Careful: our mail to %(address)s bounced before (%(why)s). We try the link "
                "all the same; if it does not come, check the address.",
                address=asked.new_address, why=asked.bouncing), "warning")
    return redirect(back, code=303)


@bp.post("/settings/<key>/move")
@door("settings link", ASKS)
def ask_by_key(key: str) -> Any:
    opened = keys.open_settings_key(key)
    return _asked(opened.address, "settings", url_for("person.key_show", key=key),
                  key_id=opened.id)


@bp.post("/my-games/<token>/settings/move")
@door("games link", ASKS)
def ask_by_games_link(token: str) -> Any:
    address = my_games.read_link(token, str(current_app.config["SECRET_KEY"]))
    return _asked(address, "games", url_for("person.games_show", token=token))


@bp.get("/move/<token>")
@door("move link", "what moving to the address it was mailed to would carry (read)")
def show(token: str) -> Any:
    return render_template("address_move.html", mode="confirm", move=moving.page(token),
                           token=token, no_referrer=True)


@bp.post("/move/<token>")
@door("move link", "moving the person who asked to the address it was mailed to, once: "
      "their settings, their seats of running games (new links), their open tenures")
def confirm(token: str) -> Any:
    return render_template("address_move.html", mode="done", done=moving.confirm(token),
                           token=token, no_referrer=True)


@bp.get("/move/cancel/<token>")
@door("move cancel link", "whether that move waits for its confirmation (read)")
def cancel_show(token: str) -> Any:
    return render_template("address_move.html", mode="cancel", move=moving.cancel_page(token),
                           token=token, no_referrer=True)


@bp.post("/move/cancel/<token>")
@door("move cancel link", "cancelling that move, before the new address confirms it")
def cancel(token: str) -> Any:
    return render_template("address_move.html", mode="cancelled", shown=moving.cancel(token),
                           token=token, no_referrer=True)
