"""Replies that decide ahead (issue 35): a plan for the rest of the turn and/or standing
orders, read by ``app.mail.commands.read_plan`` (the words: ``app.plans.grammar``).

A plan whose first step is the decision the mail asked for is that move, judged like
any reply (a late one by ``engine.still_means``, a re-sent one applied once), with the
plan stored in its transaction; the seat's next mail says what the plan did. A plan
whose turn has not come, and orders, are kept and answered in words: what they will do.
A plan that cannot start is answered with why, and nothing changes.

The inbound door of plans, as ``table_replies`` is the door of talk and votes:
``worker._decide`` sends a reply here after the checks every reply gets (the reply address,
the sender, the operator's MTA), and a plan's move goes back through ``worker._submit``,
so a late plan is judged like a late command. Its own module rather than the worker's
(which is about any reply, and near 400 lines): what a plan reply does is the plans'
use cases (``services.plans``), one call each.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from app import services
from app.i18n import _
from app.access import tokens
from app.engine import plans as ep
from app.inbound.answers import Verdict
from app.inbound.models import ANSWERED, APPLIED
from app.mail import commands
from app.mail.commands import Parsed
from app.services import plans


def judge(ref: tokens.ReplyRef, parsed: Parsed,
          submit: Callable[..., Verdict]) -> Verdict:
    payload: dict[str, Any] = dict(parsed.plan or {})
    key = plans.key_of(ref.step, parsed.line)
    try:
        plans.check_cards(ref.game, ref.seat, payload)
        if payload.get("plan") is None:
            sent = plans.store(ref.game, ref.seat, payload, "mail", key)
            said = " ".join(sent.words) or _("You have no standing orders now.")
            return Verdict(ANSWERED, "orders kept", answer=(said, parsed.line, "view"))
        action = parsed.action
        if action is None:
            got, _unused = plans.first_move(ref.game, ref.seat, payload["plan"])
            if isinstance(got, ep.Stop):
                return Verdict(ANSWERED, "plan refused", answer=(
                    _("Your plan cannot start: %(why)s. Nothing was changed.", why=got.reason),
                    parsed.line, "menu"))
            if not isinstance(got, ep.Move):
                sent = plans.store(ref.game, ref.seat, payload, "mail", key)
                return Verdict(ANSWERED, "plan kept", answer=(
                    " ".join(sent.words), parsed.line, "view"))
            action = got.action
        verdict = submit(ref, replace(parsed, action=action),
                         plan={**payload, "at": 1, "first": action, "key": key})
    except services.ServiceError as exc:
        return Verdict(ANSWERED, f"refused: {exc.code}", answer=(
            commands.mail_words(exc.message), parsed.line, "menu"))
    if verdict.status != APPLIED:
        return verdict
    shown = plans.state_of(ref.game, ref.seat)
    if shown["plan"] is not None:  # it waits for its turn: say what it will do, once
        return replace(verdict, follow_up=False, answer=(
            " ".join(plans.words_now(ref.game, ref.seat)), parsed.line, "view"))
    return verdict
