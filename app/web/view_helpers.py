"""Turning an ``engine.view`` into what a page shows: cards, villages, buttons, the recent log.

Long because: the filters and small helpers every seat and table template uses live
in one place; issue 50 made their words whole translatable sentences.

Everything here reads a *view* (the dict ``engine.view(state, seat)`` returns)
and never the engine's state, so a template cannot show more than the viewer is
allowed to know. The words come from ``app.engine.words`` (one vocabulary for
pages, mails and replays); this module only arranges them for the templates,
and the routes pass the result in (no template reaches for a global).
"""
from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone, tzinfo
from typing import Any, Mapping, Sequence

from flask import Flask
from flask.blueprints import BlueprintSetupState
from zoneinfo import ZoneInfo

from app import i18n
from app.i18n import _, forms
from app.clock.time import as_utc, iso_in, short_time_words
from app.standing.outcome import place_words
from app.engine import ROUNDS
from app.engine import cards as card_info
from app.engine import words
from app.engine.describe import as_seen_by, event_sentence, played_parts
from app.engine.meaning import decision_of
from app.web.choices import CardChoice

View = Mapping[str, Any]


# -- cards -----------------------------------------------------------------------

def value_band(value: int | None) -> str:
    """A colour band for a card value: few werewolves are good, many are bad."""
    if value is None:
        return ""
    if value < 1:
        return "band-neg"
    if value <= 4:
        return "band-low"
    if value <= 8:
        return "band-mid"
    return "band-high"


def card_face(card: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a card macro needs to draw one card of a view.

    ``kind`` is ``faceup`` (everyone sees it), ``known`` (facedown, but this
    viewer knows it), ``back`` (facedown and unknown: only its back is drawn)
    or ``empty`` (no card). A card the viewer does not know carries no id and
    no value in the view, so nothing about it can be drawn by mistake.
    """
    if not card:
        return {"kind": "empty", "id": None, "value": None}
    card_id = card.get("id")
    faceup = bool(card.get("faceup"))
    if card_id is None:
        return {"kind": "back", "id": None, "value": None, "faceup": faceup}
    return {
        "kind": "faceup" if faceup else "known",
        "id": card_id,
        "value": card_info.VALUE[card_id],
        "name": card_info.name(card_id),
        "label": card_info.label(card_id),
        "ability": card_info.ability(card_id),
        "text": words.card_text(card_id),
        "band": value_band(card_info.VALUE[card_id]),
        "faceup": faceup,
    }


# -- buttons (decisions that are not made by tapping cards) -----------------------------

def action_json(action: Mapping[str, Any]) -> str:
    """The action exactly as the engine listed it, for a form field."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def group_actions(actions: Sequence[Mapping[str, Any]], view: View, me: int | None,
                  names: Sequence[str]) -> list[dict[str, Any]]:
    """Legal actions sorted into groups by type, each with a title and help text.

    Order follows ``ACTION_GROUPS`` (the order of a turn), unknown types last;
    within a group the engine's order is kept.
    """
    groups: dict[str, dict[str, Any]] = {}
    for action in actions:
        kind = str(action.get("type", ""))
        if kind not in groups:
            title, help_text = words.ACTION_GROUPS.get(kind, (kind.replace("_", " ").capitalize(), ""))
            groups[kind] = {"type": kind, "title": _(title) if kind in words.ACTION_GROUPS else title,
                            "help": _(help_text) if help_text else help_text, "items": []}
        groups[kind]["items"].append({
            "action": dict(action),
            "json": action_json(action),
            "label": words.action_label(action, view, me, names),
        })
    for group in groups.values():
        _shared_lead(group["items"])
    order = list(words.ACTION_GROUPS)
    result = sorted(groups.values(),
                    key=lambda g: order.index(g["type"]) if g["type"] in order else len(order))
    return result


def _shared_lead(items: list[dict[str, Any]]) -> None:
    """A long group's buttons ("Take deck card #1 (11 Underminer)", ... 23 of them) open
    with the same words, which the group's title already says to the eye: each item's
    ``lead`` is drawn for a screen reader only and ``rest`` is what shows, so that the
    buttons fit the first screen (issue 51 item 2). The button's name stays the whole
    label, the words shown inside it."""
    labels = [str(item["label"]) for item in items]
    prefix = os.path.commonprefix(labels) if len(labels) > 4 else ""
    lead = prefix[:prefix.rfind(" ") + 1].strip()
    for item in items:
        item["lead"] = lead
        item["rest"] = item["label"][len(lead):].strip() if lead else item["label"]


def top_discard_value(view: View) -> int | None:
    """The value of the card on top of the discard pile (faceup: everyone sees it)."""
    pile = view.get("discard") or []
    top = pile[-1] if pile else None
    if not top or top.get("id") is None:
        return None
    return card_info.VALUE[top["id"]]



# -- the log ---------------------------------------------------------------------

def last_own_step(log: Sequence[Mapping[str, Any]], me: int | None) -> int:
    """The step of the viewer's last own action in this round's log (0 if none)."""
    if me is None:
        return 0
    steps = [int(e.get("step") or 0) for e in log if e.get("seat") == me]
    return max(steps, default=0)


def log_entries(log: Sequence[Mapping[str, Any]], names: Sequence[str],
                me: int | None = None, since_step: int | None = None,
                view: View | None = None) -> list[dict[str, Any]]:
    """The round's public log as sentences ("you" on the viewer's own page; with the
    seat's ``view``, its own draw names the card it still holds: ``as_seen_by``)."""
    if since_step is None:
        since_step = last_own_step(log, me)
    entries = []
    for event in log:
        step = int(event.get("step") or 0)
        entries.append({
            "text": event_sentence(as_seen_by(event, view, me) if view else event, names, me),
            "step": step,
            "mine": me is not None and event.get("seat") == me,
            "new": me is not None and step > since_step and event.get("seat") != me,
            "type": event.get("type"),
        })
    return entries


def since_last_acted(view: View, names: Sequence[str], me: int | None,
                     played: Mapping[int, tuple[int, str]] | None = None) -> list[str]:
    """What the others did since this seat's last action, in words.

    Looks back into the previous round's log too, so the first page of a new
    round still tells how the last one ended. ``played`` (``unsent.played_steps``):
    the steps the server played for a seat, told as such ("Time ran out for Eve:
    their 2 Simon was discarded.", issue 17 item 2), in the mail's sentences.
    """
    log = list(view.get("previous_log") or []) + list(view.get("log") or [])
    since = last_own_step(log, me)
    later = [e for e in log if int(e.get("step") or 0) > since and e.get("seat") != me]
    if not played:
        return [event_sentence(e, names, me) for e in later]
    lines: list[str] = []
    for step in sorted({int(e.get("step") or 0) for e in later}):
        events = [e for e in later if int(e.get("step") or 0) == step]
        if step in played:
            who, why = played[step]
            lead, rest = played_parts(events, names, who, me, why)
            lines.extend([*([lead] if lead else []), *rest])
        else:
            lines.extend(event_sentence(e, names, me) for e in events)
    return [line for line in lines if line]


# -- the table -------------------------------------------------------------------

def score_rows(view: View, names: Sequence[str], me: int | None = None) -> list[dict[str, Any]]:
    """One row per player: name, round scores (None for unplayed) and total."""
    rounds = view.get("round_scores") or []
    totals = view.get("totals") or []
    rows = []
    for seat, name in enumerate(names):
        per_round = []
        for r in range(ROUNDS):
            try:
                per_round.append(rounds[r][seat])
            except (IndexError, TypeError):
                per_round.append(None)
        total = totals[seat] if seat < len(totals) else None
        rows.append({"seat": seat, "name": name, "rounds": per_round, "total": total,
                     "mine": seat == me, "winner": view.get("winner") == seat})
    return rows


def _scoring_marks(view: View) -> tuple[set[int], dict[int, str]]:
    """Cards that were faceup when the round was scored, and the Nelly tucked under a card."""
    scoring = view.get("scoring") or {}
    faceup = {int(c) for c in scoring.get("faceup_at_scoring") or [] if isinstance(c, int)}
    tucks = {}
    for tuck in scoring.get("tucks") or []:
        if isinstance(tuck.get("target"), int) and isinstance(tuck.get("nelly"), int):
            tucks[tuck["target"]] = card_info.label(tuck["nelly"])
    return faceup, tucks


def viewer_zone(name: str | tzinfo | None) -> tzinfo:
    """The zone a page's times are shown in: its viewer's (a seat's person's, issue 32),
    UTC for a spectator or a name ``zoneinfo`` does not know."""
    if isinstance(name, tzinfo):
        return name
    try:
        return ZoneInfo(name or "UTC")
    except (ValueError, KeyError, OSError):
        return timezone.utc


def time_words(moment: datetime, zone: str | tzinfo | None) -> str:
    """'Mon 07 Jan 10:54 CET': a time on a badge, in the viewer's zone (issue 33: the
    village badge said "09:54 UTC" beside "10:54 CET")."""
    local = as_utc(moment).astimezone(viewer_zone(zone))
    if i18n.current() != i18n.DEFAULT:  # the reader's language: CLDR's words (issue 50)
        return forms.short_when(local, local.tzinfo)
    return f"{local:%a %d %b %H:%M} {local.tzname() or 'UTC'}"


def page_when(moment: datetime, english: str) -> str:
    """A moment a page shows in a sentence ("Tuesday 08 December, 18:00 CET"): English as
    it always read (``english``, a strftime pattern of the moment's own zone), another
    language the CLDR way (``forms.long_when``, issue 50)."""
    if i18n.current() == i18n.DEFAULT:
        return moment.strftime(english)
    return forms.long_when(moment, moment.tzinfo)


def _clock_words(clock: Mapping[str, datetime] | None, now: datetime | None,
                 zone: str | tzinfo | None = None) -> dict[str, str]:
    if not clock or now is None:
        return {}
    from app.web.table_clock import span

    due, since, where = clock["due"], clock["since"], viewer_zone(zone)
    return {"due": time_words(due, where), "due_iso": iso_in(due, where),
            "since": span((now - since).total_seconds()), "since_iso": iso_in(since, where)}


def due_line(view: View, me: int, clocks: Mapping[int, Mapping[str, datetime]] | None,
             zone: str | tzinfo | None) -> str:
    """Under the seat's question: "Due Tue 8 Dec 18:00 CET; then the clock passes your
    turn." The same time words and clock words as the turn mail's lead and every notice
    (issue 49 item 1); empty when nothing of the seat's is due."""
    clock = (clocks or {}).get(me)
    if not clock or me not in (view.get("to_act") or []):
        return ""
    then = words.timeout_words(decision_of(view, me), view.get("legal_actions") or ())
    return _("Due %(when)s; then %(then)s.",
             when=short_time_words(clock['due'], viewer_zone(zone)), then=then)


def village_rows(view: View, names: Sequence[str], me: int | None,
                 kinds: Sequence[str] | None = None, choice: CardChoice | None = None,
                 clocks: Mapping[int, Mapping[str, datetime]] | None = None,
                 now: datetime | None = None,
                 zone: str | tzinfo | None = None) -> list[dict[str, Any]]:
    """The villages with their owners, the viewer's own first; their clocks' times in
    ``zone``, the viewer's.

    With a ``choice``, each card that may be ticked carries its checkbox value
    (``pick``) and the words a screen reader and the live line say for it; a
    card left out carries the reason (``why``).
    """
    villages = view.get("villages") or []
    eye = view.get("silver_eye") or {}
    faceup_at_scoring, tucks = _scoring_marks(view)
    rows = []
    for seat, village in enumerate(villages):
        if seat >= len(names):
            break
        faces = []
        for position, card in enumerate(village):
            face = card_face(card)
            face["say"] = _spot_words(seat, me, names, position)
            if choice is not None:
                face["pick"] = choice.value_for(seat, position)
                face["why"] = choice.refused.get((seat, position))
            if face.get("id") is not None:
                face["scored_faceup"] = face["id"] in faceup_at_scoring
                face["tucked"] = tucks.get(face["id"])
            faces.append(face)
        rows.append({
            "seat": seat,
            "name": names[seat],
            "cards": faces,
            "mine": seat == me,
            "current": view.get("current") == seat and view.get("phase") == "play",
            "to_act": seat in (view.get("to_act") or []),
            "eye": eye.get("holder") == seat,
            "eye_open": eye.get("holder") == seat and bool(eye.get("open")),
            "caller": view.get("caller") == seat,
            "bot": bool(kinds and seat < len(kinds) and kinds[seat] == "bot"),
            "clock": _clock_words((clocks or {}).get(seat), now, zone)
            if seat in (view.get("to_act") or []) else {},
            "scored": bool(faceup_at_scoring),
        })
    rows.sort(key=lambda row: (not row["mine"], row["seat"]))
    return rows


def pile_picks(view: View, choice: CardChoice | None) -> list[dict[str, Any]]:
    """The discard pile, bottom first, as cards to tick (Underminer)."""
    if choice is None or not choice.pile:
        return []
    pile = view.get("discard") or []
    return [{"card": card_face(card), "pick": choice.pile.get(index),
             "say": _pile_words(index + 1)}
            for index, card in enumerate(pile) if index in choice.pile]


def _spot_words(seat: int, me: int | None, names: Sequence[str], position: int) -> str:
    """'your #2', "Ann's #2": a card's place, as a screen reader and the live line say it."""
    spot = words.spot(position)
    if seat == me:
        return _("your %(spot)s", spot=spot)
    if 0 <= seat < len(names):
        if i18n.current() == i18n.DEFAULT:  # English's owner: "James' #2"
            return f"{words.possessive(names[seat])} {spot}"
        return _("%(name)s's %(spot)s", name=names[seat], spot=spot)
    return _("seat %(num)s's %(spot)s", num=seat + 1, spot=spot)


def _pile_words(place: int) -> str:
    """'the 3rd card of the pile from the bottom' (Underminer)."""
    if i18n.current() == i18n.DEFAULT:
        return f"the {words.ordinal(place)} card of the pile from the bottom"
    return _("card %(num)s of the pile from the bottom", num=place)


def deck_known(view: View) -> list[dict[str, Any]]:
    """Cards of the deck this viewer knows, with their place from the top (1 = top)."""
    known = []
    for entry in view.get("deck_known") or []:
        known.append({"place": int(entry.get("position", 0)) + 1,
                      "card": card_face(entry.get("card"))})
    return sorted(known, key=lambda e: e["place"])


# -- registration ----------------------------------------------------------------

_FRACTION = re.compile(r"(T\d\d:\d\d:\d\d)\.\d+")


def html_time(iso: str) -> str:
    """An ISO 8601 moment as ``<time datetime>`` takes it: whole seconds (HTML allows at
    most three digits of a fraction; Python writes six: a Nu HTML Checker error, issue 51
    item 6)."""
    return _FRACTION.sub(r"\1", str(iso))


def install(setup: BlueprintSetupState | Flask) -> None:
    """Make the card filters available to every template (called once per app)."""
    app = setup.app if isinstance(setup, BlueprintSetupState) else setup
    app.jinja_env.filters.setdefault("html_time", html_time)
    app.jinja_env.filters.setdefault("card_face", card_face)
    app.jinja_env.filters.setdefault("card_words", words.card_words)
    app.jinja_env.filters.setdefault("spot", words.spot)
    app.jinja_env.filters.setdefault("an", words.with_article)
    app.jinja_env.filters.setdefault("page_when", page_when)


def table_context(view: View, names: Sequence[str], kinds: Sequence[str] | None,
                  me: int | None, choice: CardChoice | None = None,
                  clocks: Mapping[int, Mapping[str, datetime]] | None = None,
                  now: datetime | None = None,
                  zone: str | tzinfo | None = None) -> dict[str, Any]:
    """Everything the table macros need, for a seat (``me``) or a spectator (None);
    ``zone``: the viewer's, every time shown is in it (a spectator's: UTC)."""
    log = view.get("log") or []
    return {
        "view": view,
        "names": list(names),
        "me": me,
        "villages": village_rows(view, names, me, kinds, choice, clocks, now, zone),
        "scores": score_rows(view, names, me),
        "log": log_entries(log, names, me, view=view),
        "deck_cards": deck_known(view),
        "pending": words.pending_sentence(view, me, names),
        # the reader's place, first on the page once the game is over (issue 51 item 4)
        "place": place_words(view, me) if me is not None else None,
        "pile_picks": pile_picks(view, choice),
    }
