"""A seat's private view in words: its cards, its village, the scores, and what
happened since it last looked (the same sentences its page shows).

Apart from ``app.mail.compose`` because these read a view and say nothing about a
mail: compose picks which of them a kind of mail shows and in what order, while the
sender (``app.mail.notify``) also uses ``played_lines`` to say what the server
played for a seat. Everything here reads ``engine.view(state, seat)`` of the seat the
words go to, never the raw state, so the words can only show what that seat has seen.
"""
from __future__ import annotations

from typing import Any

from app.engine.describe import event_sentence, played_parts
from app.i18n import ngettext


def card_words(card: dict[str, Any] | None) -> str:
    """'7 Ghost' for a card the reader knows, '?' for one it does not."""
    from app.engine import cards

    if not card or card.get("id") is None:
        return "?"
    return cards.label(int(card["id"]))


def card_info(card: dict[str, Any] | None) -> dict[str, Any]:
    """A card for the templates: label, name, ability, faceup, known."""
    from app.engine import cards

    card_id = card.get("id") if card else None
    return {
        "known": card_id is not None,
        "faceup": bool(card and card.get("faceup")),
        "label": card_words(card),
        "value": cards.VALUE[int(card_id)] if card_id is not None else None,
        "name": cards.name(int(card_id)) if card_id is not None else "",
        "ability": cards.ability(int(card_id)) if card_id is not None else "",
    }


def village_info(view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    villages = view.get("villages") or []
    return [card_info(c) for c in (villages[seat] if seat < len(villages) else [])]


def scores_info(view: dict[str, Any], names: list[str]) -> list[dict[str, Any]]:
    """One row per seat: name, each round's score, total."""
    rounds = view.get("round_scores") or []
    totals = view.get("totals") or []
    rows = []
    for seat, name in enumerate(names):
        rows.append({
            "name": name,
            "rounds": [r[seat] if seat < len(r) else None for r in rounds],
            "total": totals[seat] if seat < len(totals) else None,
        })
    return rows


#: Steps the server played for a seat (issue 17 item 2): ``{step: (seat, why)}``, why
#: being ``describe.TIMED_OUT`` or ``describe.AWAY`` (``app.mail.unsent.played_steps``).
Played = dict[int, tuple[int, str]]


def _steps_after(view: dict[str, Any], after_step: int) -> list[tuple[int, list[dict[str, Any]]]]:
    """The public events of the view's logs after ``after_step``, grouped by step.

    The previous round's log too: a seat that last acted before a round ended
    hears how that round finished."""
    groups: list[tuple[int, list[dict[str, Any]]]] = []
    for event in [*(view.get("previous_log") or []), *(view.get("log") or [])]:
        step = int(event.get("step") or 0)
        if step <= after_step:
            continue
        if groups and groups[-1][0] == step:
            groups[-1][1].append(event)
        else:
            groups.append((step, [event]))
    return groups


def since_lines(view: dict[str, Any], after_step: int, names: list[str],
                seat: int | None = None, played: Played | None = None) -> list[str]:
    """The public events of the view's log after ``after_step``, in words: the same
    sentences the seat's page shows (its own deeds say "you").

    A step the server played for another seat says so ("Time ran out for Eve:
    their 10 Dracula was discarded."); one it played for the reader itself is
    left to ``played_lines``, which the mail says first.
    """
    played = played or {}
    lines: list[str] = []
    for step, events in _steps_after(view, after_step):
        if step in played:
            who, why = played[step]
            lead, rest = played_parts(events, names, who, seat, why)
            lines.extend([*([lead] if lead and who != seat else []), *rest])
            continue
        lines.extend(event_sentence(event, names, seat) for event in events)
    return [line for line in lines if line]


def played_lines(view: dict[str, Any], after_step: int, names: list[str], seat: int,
                 played: Played | None) -> list[str]:
    """What the server played for ``seat`` itself after ``after_step``, and why, in its
    own words ("Time ran out: your 10 Dracula was discarded for you."): the first thing
    its next mail and its page say (issue 17 item 2)."""
    lines: list[str] = []
    for step, events in _steps_after(view, after_step):
        who, why = (played or {}).get(step, (None, ""))
        if who == seat:
            lead, _ = played_parts(events, names, seat, seat, why)
            lines.extend([lead] if lead else [])
    return counted(lines)


def counted(lines: list[str]) -> list[str]:
    """Each sentence once, in the order first said, with how often it was said when more
    than once: "You were away: your turn was passed for you (23 times)." (issue 33: a
    seat away to the end of a game met 23 identical sentences above its result)."""
    times: dict[str, int] = {}
    for line in lines:
        times[line] = times.get(line, 0) + 1
    return [line if n == 1 else ngettext("%(line)s (%(num)d time).", "%(line)s (%(num)d times).",
                                         n, line=line.removesuffix(".").removesuffix("。"))
            for line, n in times.items()]
