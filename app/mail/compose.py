"""Writing the mails: Jinja2 text + HTML templates fed from private views only.

Everything a mail says about cards comes from ``engine.view(state, seat)`` of
the seat it goes to, put in words by ``app.mail.view_words`` (public events as
``engine.describe.event_sentence`` says them), never from the raw state, so a mail can
only show what its reader has seen.
Names typed by players are cleaned here (``clean_name``) before they come near a
header; the headers and the message as it leaves live in ``app.mail.headers``.

Long because: every kind of mail (turn, invitation, round, game over, digest, notice) is
worded here, in one module, so that one reader sees how each kind is worded beside the
others.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Iterable, Sequence

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from app import i18n
from app.i18n import _, ngettext, forms
from app.clock.time import as_utc, short_time_words
from app.standing.outcome import place_words
from app.engine import words
from app.engine.summary import last_summary
from app.mail.layout import inline_styles
from app.mail.menu import build as build_menu  # issue 11: the moves as reply commands
from app.mail.view_words import (Played, card_info, played_lines, scores_info, since_lines,
                                 village_info)

#: What every subject starts with, and the name a game gets when nobody names it.
BRAND = "Silver Eye"
TEMPLATES = Path(__file__).resolve().parent.parent.parent / "templates"
NAME_LIMIT = 60

_env = Environment(
    loader=FileSystemLoader(str(TEMPLATES)),
    autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
i18n.install(_env)  # the reader's language: each mail is composed ``in_language`` (issue 50)
_env.globals["html_lang"] = i18n.current


def _capital(text: Any) -> str:
    """Jinja's ``capitalize`` in English (as the mails always said it); in another
    language only the first letter is raised (German nouns keep their capitals)."""
    text = str(text)
    return text.capitalize() if i18n.current() == "en" else text[:1].upper() + text[1:]


_env.filters["capital"] = _capital
#: What goes between two sentences: a space, none in Japanese (。 ends a sentence).
_env.globals["gap"] = lambda: "" if i18n.current() == "ja" else " "

#: What a pending decision asks of the player, in words (the engine's short names).
#: What a seat must decide, as a mail says it (the words live in app.engine.words).
DECISION_WORDS = words.DECISION_WORDS

#: What a turn mail's subject says is asked (the words live in app.engine.words).
SUBJECT_WORDS = words.SUBJECT_WORDS


@dataclass(frozen=True)
class Mail:
    """A composed mail: the subject and both bodies."""

    subject: str
    text: str
    html: str
    #: The seat-and-step address replies go to (turn mails: play by replying).
    reply_to: str | None = None


@dataclass(frozen=True)
class MailGame:
    """A game as its mails name it: what compose needs to know of a game besides a view
    (not ``app.services.results.GameInfo``, a game as the pages show it)."""

    id: str
    name: str
    names: list[str]
    base_url: str
    commitment: str = ""
    links: dict[int, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The game's name, or its id when it has none of its own (the lobby's
        default name is the brand, which every subject already starts with)."""
        return self._title(english=False)

    def _title(self, *, english: bool) -> str:
        name = clean_name(self.name)
        if name and name != BRAND:
            return name
        return f"game {self.id}" if english else _("game %(id)s", id=self.id)

    @property
    def label(self) -> str:
        """Name and id, as a mail's brand line and footer say it: two games may share a
        name, and the id is what the lobby, the fresh-link form and a reply ask for."""
        return self._label(english=False)

    def _label(self, *, english: bool) -> str:
        title = self._title(english=english)
        if not self.id or clean_name(self.name) in ("", BRAND):
            return title
        if english:
            return f"{title} (game {self.id})"
        return _("%(title)s (game %(id)s)", title=title, id=self.id)


# -- cleaning what players typed ----------------------------------------------

def clean_name(value: Any, limit: int = NAME_LIMIT) -> str:
    """A name safe for a header and a subject: no control characters, one line.

    Line breaks, tabs and every other control or format character (Unicode
    category C*) become spaces, runs of spaces collapse, and the result is
    cut to ``limit`` characters.
    """
    text = "".join(" " if unicodedata.category(ch).startswith("C") else ch
                   for ch in str(value or ""))
    text = re.sub(r"\s+", " ", text).strip()
    return text[:limit].strip()


def local_time_words(moment: datetime, zone: tzinfo | None = None) -> str:
    """'Tuesday, 1 December 2026, 15:00 CET' in the reader's zone (UTC by default) and
    language (``forms.long_when``)."""
    return forms.long_when(as_utc(moment), zone or timezone.utc)


def deadline_words(due: datetime | None, now: datetime, zone: tzinfo | None = None) -> str:
    """'Tuesday, 1 December 2026, 14:00 UTC (in 2 days)', in the reader's zone."""
    if due is None:
        return ""
    due, now = as_utc(due), as_utc(now)
    return _("%(when)s (%(left)s)", when=local_time_words(due, zone), left=_span(due - now))


def _span(left: timedelta, *, direction: bool = True) -> str:
    """'in 2 days' ('in 2 Tagen', '2 日後'), or 'now'; without ``direction`` the length
    alone ('2 days'). At least a minute: 'in less than a minute' reads as 'in 1 minute'."""
    if left.total_seconds() <= 0 and direction:
        return forms.span(left)
    return forms.span(max(left, timedelta(minutes=1)), direction=direction)


# -- rendering ------------------------------------------------------------------

def render(template: str, subject: str, *, lead: str = "", **context: Any) -> Mail:
    """Render ``mail/<template>.txt`` and ``.html`` with the same context.

    ``lead``: what the mail asks or tells, in one line ("Your turn: your draw (round
    2)"). The subject of a game's mail is the same for every kind (``thread_subject``),
    so the lead is what the inbox line shows after it: the first line of the text
    body and the HTML preheader (hidden text at the start of the body, which clients
    show as the preview). A template may write its own (``inbound_answer``)."""
    context.setdefault("subject", subject)
    context["lead"] = clean_name(lead, limit=200)
    text = _env.get_template(f"mail/{template}.txt").render(**context)
    if context["lead"]:
        text = f"{context['lead']}\n\n{text}"
    html = inline_styles(_env.get_template(f"mail/{template}.html").render(**context))
    return Mail(subject=clean_name(subject, limit=200), text=text, html=html)


def thread_subject(game: MailGame) -> str:
    """The one subject of every mail of a game, to every seat (issue 19 item 4): Gmail
    puts mails in one conversation only if their subjects match (after "Re:") and one
    refers to another, and Outlook groups by the subject as well. Name and id: two games
    may share a name, and must not share a thread.

    Never translated (issue 50): the thread must not break when a reader changes
    language, so the subject is the same English in every language."""
    return clean_name(f"{BRAND} · {game._label(english=True)}", limit=200)


#: What the lead of a turn mail says is asked, without the seat's view: the seat page's
#: words (``words.PENDING_WORDS``), one vocabulary (issue 49 item 1).
LEAD_WORDS = {**words.PENDING_WORDS, "peek": i18n.N_("peek at two of your cards")}
#: What a lead or a subject says when the decision has no words of its own.
YOUR_DECISION = i18n.N_("your decision")
A_DECISION = i18n.N_("you have a decision to make")


def lead_words(pending: str | None, view: dict[str, Any] | None = None,
               seat: int | None = None, names: Sequence[str] = ()) -> str:
    """What a turn mail's first line says is asked: with the seat's ``view``, the page's
    own words for it (``words.asked_words``: "draw, or take the 7 Ghost from the
    discard", "turn cards over with the Twister (1 more to turn)")."""
    if view is not None and seat is not None and pending:
        return words.asked_words(view, seat, pending, names)
    return _(LEAD_WORDS.get(pending or "", YOUR_DECISION))


def turn_lead(round_no: Any, pending: str | None, *, has_decision: bool, reminder: bool,
              digest: bool, deadline: str, others: list[str], due: str = "",
              left: str = "", clock: str = "", asked: str = "") -> str:
    """The first line of a turn mail (its reminder, its digest): what is asked, first,
    then by when (``due``: ``short_time_words`` in the reader's zone; ``left``: "in 2
    hours"; ``clock``: what the clock then does, ``words.timeout_words``, said by a
    reminder; ``asked``: ``lead_words`` of the seat's view, when the caller has it). Public
    words only (the decision's kind, the discard's top, the round, the time): a notice or
    a push says this same line (``deliveries.short_form``, issue 49 item 1), never a card
    the seat knows privately."""
    asked = asked or lead_words(pending)
    if not has_decision:
        if others:
            waiting = forms.names(others)
            return (_("Round %(round)s digest: nothing waits for you; waiting for %(names)s",
                      round=round_no, names=waiting) if digest else
                    _("Round %(round)s: nothing waits for you; waiting for %(names)s",
                      round=round_no, names=waiting))
        return (_("Round %(round)s digest: nothing waits for you", round=round_no) if digest
                else _("Round %(round)s: nothing waits for you", round=round_no))
    if reminder:
        if due:
            line = _("Reminder, your turn: %(asked)s (round %(round)s) · due %(due)s",
                     asked=asked, round=round_no, due=due)
            # (``left``: the length alone, "2 hours"; an English "in 2 hours" or "now", as
            # callers once gave it, is read the same way)
            left = "" if left == "now" else left.removeprefix("in ")
            if left:
                line = _("%(line)s, %(left)s left", line=line, left=left)
            if clock:
                line = _("%(line)s, then %(clock)s", line=line, clock=clock)
            return line
        if deadline:
            return _("Reminder, your turn: %(asked)s (round %(round)s), by %(deadline)s",
                     asked=asked, round=round_no, deadline=deadline)
        return _("Reminder, your turn: %(asked)s (round %(round)s)", asked=asked,
                 round=round_no)
    if digest:
        if deadline:
            return _("Round %(round)s digest; your turn: %(asked)s, by %(deadline)s",
                     round=round_no, asked=asked, deadline=deadline)
        return _("Round %(round)s digest; your turn: %(asked)s", round=round_no, asked=asked)
    if due:
        return _("Your turn: %(asked)s (round %(round)s) · due %(due)s", asked=asked,
                 round=round_no, due=due)
    return _("Your turn: %(asked)s (round %(round)s)", asked=asked, round=round_no)


def subject_words(pending: str | None) -> str:
    """What a subject says is asked: "your draw", "place your Nelly"."""
    return _(SUBJECT_WORDS.get(pending or "", YOUR_DECISION))


def decision_words(pending: str | None) -> str:
    if not pending:
        return _(A_DECISION)
    return _(DECISION_WORDS.get(pending, A_DECISION))


# The short name of the decision a seat faces in a view (None: nothing): one definition,
# the engine's, by which late replies are judged too (issue 17 item 4).
from app.engine.meaning import decision_of  # noqa: E402,F401


def turn_mail(game: MailGame, seat: int, view: dict[str, Any], *, since_step: int,
              due: datetime | None, now: datetime, link: str, unsubscribe: str,
              reminder: bool = False, digest: bool = False,
              zone: tzinfo | None = None, reply_address: str | None = None,
              played: Played | None = None, plan: list[str] | None = None,
              round_over: int | None = None, orders: list[str] | None = None,
              offer: str | None = None) -> Mail:
    """The mail of a seat with a pending decision (also its reminders and digests).

    The subject is the game's (``thread_subject``); the first line and the preheader
    say what is asked: "Your turn: Twister: turn two cards (round 3)" (``turn_lead``);
    deadlines are in the seat's zone.
    With a ``reply_address`` (the signed seat-and-step address of issue 11)
    the mail ends with the moves as reply commands and replies go there.
    ``played``: the steps the server played for a seat (issue 17 item 2): what it
    played for this seat is said first, what it played for others in the news.
    ``plan``: what the seat's plan or standing orders did (issue 35), said first.
    Issue 51 item 1: ``round_over``, the round whose end this mail tells too (its
    round-end mail rides in it: ``turn_mails.carry_round``); ``orders``, the seat's
    standing orders in force, in words; ``offer``, the one-line order that would have
    answered this decision ("ALWAYS SKIP TWISTER"), when one could have.
    """
    names = game.names
    round_no = view.get("round")
    has_decision = seat in (view.get("to_act") or [])
    hand = view.get("hand") if view.get("hand_seat") == seat else None
    discard = view.get("discard") or []
    subject = thread_subject(game)
    deadline = deadline_words(due, now, zone)
    others = [names[s] for s in (view.get("to_act") or []) if s != seat]
    pending = decision_of(view, seat)
    clock = words.timeout_words(pending, view.get("legal_actions") or ())
    lead = turn_lead(round_no, pending, has_decision=has_decision,
                     reminder=reminder, digest=digest, deadline=deadline, others=others,
                     due=short_time_words(due, zone) if due is not None else "",
                     left=(_span(as_utc(due) - as_utc(now), direction=False)
                           if due is not None and as_utc(due) > as_utc(now) else ""),
                     clock=clock, asked=lead_words(pending, view, seat, names))
    menu = build_menu(view, seat, reply_address, names, f"Re: {subject}")  # (not translated)
    return replace(render(
        "turn", subject, lead=lead, menu=menu,
        game=game, seat=seat, name=names[seat], names=names, round=round_no,
        has_decision=has_decision, decision=decision_words(decision_of(view, seat)),
        village=village_info(view, seat), hand=card_info(hand) if hand else None,
        discard_top=card_info(discard[-1]) if discard else None,
        deck_count=view.get("deck_count"), scores=scores_info(view, names),
        since=since_lines(view, since_step, names, seat, played),
        played=[*(plan or []), *played_lines(view, since_step, names, seat, played)],
        deadline=deadline, clock=clock,
        link=link, unsubscribe=unsubscribe, reminder=reminder, digest=digest,
        others=others, round_over=round_over,
        summary=summary_words(view, names, round_over) if round_over else None,
        orders=orders or [], offer=offer if has_decision and reply_address else None,
    ), reply_to=menu.address if menu else None)


#: What an invitation says of the mail a seat will get, by its mail mode
#: (``app.mail.models``): only what the server will do.
INVITATION_MAIL_WORDS = {
    "every": i18n.N_("you get a mail whenever it is your turn"),
    "digest": i18n.N_("this game mails you a digest of its news instead of a mail each turn"),
    "daily": i18n.N_("you get one mail a day across all your games while one waits for you"),
    "none": i18n.N_("this game sends you no turn mail: your seat page shows when it is your "
                    "turn"),
}


def invitation_mail(game: MailGame, seat: int, *, link: str, unsubscribe: str,
                    deadline_hours: float, clock: str | None = None,
                    rematch_of: str | None = None, yours: Any = None,
                    mode: str = "every", absent_after: int | None = None) -> Mail:
    """The first mail of a seat. ``clock``: how the game's clock runs, in words, when it
    is not simply a deadline per decision (a time bank, running days: issue 21);
    ``rematch_of``: the title of the game this one is a rematch of (issue 21 item 6);
    ``yours``: the person's zone and quiet hours, or how a newcomer sets them
    (``invitations.YourSettings``, issue 32); ``mode``: the seat's mail mode, so the mail
    promises only the mail that will come; ``absent_after``: the missed deadlines after
    which the server plays the seat at once.

    The game has started when this leaves and nobody waits for an answer (issue 33
    item 4): it says what the person can do now (play, set their zone and quiet hours,
    refuse further invitations) and what happens if they do nothing, never "accept"."""
    span = _span(timedelta(hours=deadline_hours), direction=False)
    lead = (_("Rematch of %(game)s: your seat is ready", game=clean_name(rematch_of))
            if rematch_of else
            _("You are invited to play: your seat is ready, the game has started"))
    return render("invitation", thread_subject(game), lead=lead,
                  game=game, seat=seat, name=game.names[seat], names=game.names,
                  link=link, unsubscribe=unsubscribe, commitment=game.commitment,
                  deadline=span, clock=clock, rematch_of=rematch_of, yours=yours,
                  mail_words=_(INVITATION_MAIL_WORDS.get(mode, INVITATION_MAIL_WORDS["every"])),
                  absent_after=absent_after)


def people_mail(game: MailGame, seat: int, *, lead: str, lines: list[str], link: str | None,
                button: str, unsubscribe: str, reply_hint: str | None = None,
                reply_to: str | None = None) -> Mail:
    """What the people of a game did or ask (issue 21): a resignation, a substitute,
    time given, a vote opened or decided, a seat handed over. ``lead`` says it in one
    line, ``lines`` in full; ``reply_hint``: how to answer by replying (with
    ``reply_to``, the seat's reply address); ``link`` None: the mail opens no seat (a
    seat handed over to someone else)."""
    mail = render("people", thread_subject(game), lead=lead, game=game, seat=seat,
                  name=game.names[seat], lines=lines, link=link, button=button,
                  unsubscribe=unsubscribe, reply_hint=reply_hint)
    return replace(mail, reply_to=reply_to)


def summary_words(view: dict[str, Any], names: list[str],
                  round_no: int | None = None) -> dict[str, Any] | None:
    """The last scored round of ``view`` explained (``app.engine.summary``), if it is
    round ``round_no`` (any round when None). Built from public events only."""
    summary = last_summary(view)
    if summary is None or (round_no is not None and summary.round != round_no):
        return None
    return summary.words(names)


def round_mail(game: MailGame, seat: int, view: dict[str, Any], round_no: int, *,
               link: str, unsubscribe: str) -> Mail:
    """Everyone's mail at a round's end: how the round was scored, and the totals."""
    return render("round_end", thread_subject(game),
                  lead=_("Round %(round)s is over: how it was scored, and the totals",
                         round=round_no),
                  game=game, seat=seat, name=game.names[seat], round=round_no,
                  scores=scores_info(view, game.names), village=village_info(view, seat),
                  summary=summary_words(view, game.names, round_no),
                  link=link, unsubscribe=unsubscribe)


def game_over_mail(game: MailGame, seat: int, view: dict[str, Any], *, link: str,
                   replay: str, unsubscribe: str, rating: str | None = None) -> Mail:
    """The last round explained (no round mail is sent for it), the winner and why;
    ``rating``: how a rated game moved the reader's rating, in words (issue 47)."""
    winner = view.get("winner")
    who = (_("The game is over: you won") if winner == seat else
           _("The game is over: %(name)s won", name=game.names[winner])
           if isinstance(winner, int) else _("The game is over: the final scores"))
    place = place_words(view, seat)  # first, in the inbox line and the mail (issue 51)
    return render("game_over", thread_subject(game),
                  lead=(_("The game is over: %(place)s", place=_lower_first(place)) if place
                        else who),
                  place=place, game=game, seat=seat, name=game.names[seat],
                  winner=game.names[winner] if isinstance(winner, int) else None,
                  you_won=winner == seat, scores=scores_info(view, game.names),
                  summary=summary_words(view, game.names), rating=rating,
                  link=link, replay=replay, unsubscribe=unsubscribe)


def _lower_first(text: str) -> str:
    """'You came second' as the middle of a line: 'you came second' (a language without
    capitals keeps it)."""
    return f"{text[0].lower()}{text[1:]}" if i18n.current() != "de" else text


def daily_digest_mail(entries: list[dict[str, Any]], *, base_url: str,
                      unsubscribe: str | None = None) -> Mail:
    """One digest across games: every game where the reader is waited on, with links."""
    count = len(entries)
    subject = clean_name(ngettext("Silver Eye · %(num)d game waits for you",
                                  "Silver Eye · %(num)d games wait for you", count), limit=200)
    overview = MailGame(id="", name=_("your games"), names=[], base_url=base_url)
    return render("daily", subject, game=overview, name=entries[0]["name"], entries=entries,
                  unsubscribe=unsubscribe)


def notice_mail(game: MailGame, seat: int, notice: str, *, about: int | None, link: str,
                unsubscribe: str, absent_after: int = 3, played: list[str] | None = None,
                reason: str | None = None, reply_to: str | None = None) -> Mail:
    """absent (about someone), you_absent, abandoned, fresh_link, address_changed (the
    operator's ``change-address``); ``played``: what the
    server played for this seat since it last played (``played_lines``, issue 17 item 2);
    ``reply_to``: the seat's reply address, where a reply ``BACK`` ends its absence (the
    mail then says so: issue 33, a mail promises only what the server does)."""
    leads = {
        "absent": _("%(name)s is away: the server plays their turns",
                    name=game.names[about] if about is not None else _("A player")),
        "you_absent": _("You are marked away"),
        "abandoned": _("The game was abandoned"),
        "fresh_link": _("Your link to your seat, as you asked"),
        "address_changed": _("Your seat's mail now comes to this address, with a new link"),
    }
    mail = render("notice", thread_subject(game), lead=leads[notice], game=game, seat=seat,
                  name=game.names[seat], notice=notice,
                  about=game.names[about] if about is not None else None,
                  absent_after=absent_after, link=link, unsubscribe=unsubscribe,
                  played=played or [], reason=reason, reply_back=bool(reply_to))
    return replace(mail, reply_to=reply_to)


def all_labels() -> Iterable[str]:
    """Every card label (for leak scans in tests and tools)."""
    from app.engine import cards

    return sorted({cards.label(c) for c in range(cards.DECK_SIZE)})
