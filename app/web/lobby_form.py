"""The lobby's form as typed (``LobbyForm``): read from the request, kept as typed so a
refused form is shown again as it was, and turned into the players and game options that
``app.services.options`` checks like every other caller's. Numbers are read in the digits
0-9 only (issue 45 item 6)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine import MAX_SEATS, MIN_SEATS
from app.i18n import N_, _
from app.services import options as game_options

SIMON_CHOICES = game_options.SIMON_CHOICES

#: The weekdays of the running-days boxes (0 = Monday), as the form sends and shows them.
DAY_VALUES = tuple(str(day) for day in range(7))
DAY_WORDS = (N_("Mon"), N_("Tue"), N_("Wed"), N_("Thu"), N_("Fri"), N_("Sat"), N_("Sun"))


@dataclass
class LobbyForm:
    """What the lobby form says, kept as typed so a rejected form is shown again as it was."""

    name: str = ""
    seats: list[dict[str, str]] = field(default_factory=lambda: [
        {"name": "", "email": "", "kind": "human", "simon": "auto"} for _ in range(MAX_SEATS)])
    deadline: str = "2"
    deadline_unit: str = "days"
    reminders: str = "half, 2"
    absent_after: str = "3"
    #: The clock (issue 21): a fixed time per move, or a time bank with an allowance.
    clock_kind: str = "deadline"
    bank_days: str = "5"
    allowance_hours: str = "12"
    #: The days the clock runs (0 = Monday), and how often a player may give another
    #: one more day per round.
    days: list[int] = field(default_factory=lambda: list(range(7)))
    more_time: str = "1"
    memory: bool = False
    #: A rated game (issue 47): off unless ticked, so friends' games stay friendly.
    rated: bool = False
    #: Spectators may read the table talk (issue 20 item 1): on unless unticked.
    talk_spectators: bool = True
    #: An open table's (issue 48): who may sit down, and how many days it waits.
    gate: str = "open"
    wait_days: str = "3"
    #: Minutes a turn mail waits for the player to act from an open page (issue 51 item
    #: 5; empty: the server's ``TURN_MAIL_DELAY_SECONDS``).
    turn_mail_minutes: str = ""

    @classmethod
    def from_request(cls, form: Any) -> "LobbyForm":
        seats = []
        for i in range(MAX_SEATS):
            kind = form.get(f"seat{i}_kind", "human")
            simon = form.get(f"seat{i}_simon", "auto")
            seats.append({"name": form.get(f"seat{i}_name", "").strip(),
                          "email": form.get(f"seat{i}_email", "").strip(),
                          # issue 48: "open" leaves the seat for a stranger to sit down in
                          "kind": kind if kind in ("human", "bot", "open") else "human",
                          "simon": simon if simon in SIMON_CHOICES else "auto"})
        return cls(name=form.get("name", "").strip(), seats=seats,
                   deadline=form.get("deadline", "").strip(),
                   deadline_unit=form.get("deadline_unit", "days"),
                   reminders=form.get("reminders", "").strip(),
                   absent_after=form.get("absent_after", "").strip(),
                   clock_kind="bank" if form.get("clock_kind") == "bank" else "deadline",
                   bank_days=form.get("bank_days", "5").strip(),
                   allowance_hours=form.get("allowance_hours", "12").strip(),
                   # an unticked day sends nothing: only a form that showed them can say so
                   days=(sorted({int(d) for d in form.getlist("days") if d in DAY_VALUES})
                         if form.get("days_shown") else list(range(7))),
                   more_time=form.get("more_time", "1").strip(),
                   memory=form.get("memory") in ("1", "on", "true"),
                   rated=form.get("rated") in ("1", "on", "true"),
                   # an unticked box sends nothing: only a form that showed it can say no
                   talk_spectators=(form.get("talk_spectators") in ("1", "on", "true")
                                    if form.get("talk_shown") else True),
                   gate=str(form.get("gate", "open")), wait_days=form.get("wait_days", "3").strip(),
                   turn_mail_minutes=form.get("turn_mail_minutes", "").strip())

    @property
    def open_table(self) -> bool:
        """Whether a seat is left open: the form opens a table instead of a game."""
        return any(seat["kind"] == "open" for seat in self.seats)

    def players(self, errors: list[str]) -> list[dict[str, str]]:
        """The filled-in seats: a row counts if it has a name or email, or is a bot."""
        players = []
        for i, seat in enumerate(self.seats):
            if not (seat["name"] or seat["email"] or seat["kind"] in ("bot", "open")):
                continue
            if seat["kind"] == "human" and not seat["name"]:
                errors.append(_("Seat %(number)s needs a name (or choose the bot).",
                                number=i + 1))
            if seat["kind"] == "open":
                players.append({"name": "", "email": "", "kind": "open", "simon": "auto"})
                continue
            players.append({"name": seat["name"], "email": seat["email"] if seat["kind"] == "human" else "",
                            "kind": seat["kind"],
                            # a bot never claims by hand: its Simon discards are automatic
                            "simon": seat["simon"] if seat["kind"] == "human" else "auto"})
        if not MIN_SEATS <= len(players) <= MAX_SEATS:
            errors.append(_("Fill in %(least)s to %(most)s seats (you filled in %(filled)s).",
                            least=MIN_SEATS, most=MAX_SEATS, filled=len(players)))
        elif all(p["kind"] == "bot" for p in players):
            errors.append(_("At least one seat must be played by a person."))
        return players

    def options(self, errors: list[str], players: list[dict[str, str]]) -> dict[str, Any]:
        """The game options: the engine's (``memory``, ``simon`` per seat, R16) and the
        clock's (deadline, reminders...). This only reads the typed text; the ranges
        are ``app.services.options``' (the same for every way a game is made)."""
        options: dict[str, Any] = {"memory": self.memory,
                                   "simon": [p["simon"] for p in players]}
        if self.rated:
            options["rated"] = True
        if self.clock_kind == "bank":  # issue 21 item 2
            bank, allowance = _number(self.bank_days), _number(self.allowance_hours)
            if bank is None or allowance is None:
                errors.append(_("A time bank needs its days and the hours of each move, as "
                                "numbers."))
            else:
                options["bank_days"], options["allowance_hours"] = bank, allowance
        else:
            hours = _number(self.deadline)
            if self.deadline_unit not in ("hours", "days"):
                errors.append(_("Choose hours or days for the time to make a move."))
            elif hours is None or hours <= 0:
                errors.append(_("The time to make a move must be a number above zero, "
                                "written with the digits 0-9."))
            else:
                options["deadline_hours"] = hours * 24 if self.deadline_unit == "days" else hours
        if not self.days:
            errors.append(_("Tick at least one day on which the clock runs."))
        elif self.days != list(range(7)):
            options["clock_days"] = list(self.days)
        more = _number(self.more_time)
        if not isinstance(more, int):
            errors.append(_("Days of more time a player may give per round: a whole number "
                            "from 0 to %(most)s.", most=game_options.MORE_TIME_MAX_PER_ROUND))
        else:
            options["more_time_per_round"] = more
        leads: list[Any] = []
        for part in filter(None, (p.strip() for p in self.reminders.replace(";", ",").split(","))):
            if part.lower() in ("half", "halfway"):
                leads.append("half")
                continue
            lead = _number(part)
            if lead is None or lead <= 0:
                errors.append(_("“%(typed)s” is not a number of hours for a reminder.",
                                typed=part[:20]))
            else:
                leads.append(lead)
        if self.clock_kind == "bank" and self.reminders == LobbyForm.reminders:
            pass  # the form's default is for a fixed time: a bank's are its own (24, 2)
        else:
            options["reminders"] = leads
        if self.turn_mail_minutes:
            wait = _number(self.turn_mail_minutes)
            most = game_options.TURN_MAIL_DELAY_MAX_SECONDS // 60
            if wait is None or not 0 <= wait <= most:
                errors.append(_("Wait before mailing a turn: 0 to %(most)s minutes, in digits.",
                                most=most))
            else:
                options["turn_mail_delay_seconds"] = int(round(wait * 60))
        absent = _number(self.absent_after)
        if absent is None:
            errors.append(_("Missed deadlines before a player counts as away: a whole number "
                            "from %(least)s to %(most)s.", least=game_options.ABSENT_AFTER_MIN,
                            most=game_options.ABSENT_AFTER_MAX))
        else:
            options["absent_after"] = absent
        if not errors:
            try:
                options = game_options.validate(options, len(players))
            except game_options.OptionError as exc:
                errors.append(str(exc))
        return options


def _number(text: str) -> float | None:
    if not str(text).isascii():  # the digits 0-9 only: float takes "２" and "٣" (issue 45)
        return None
    try:
        value = float(text.replace(",", "."))
    except (TypeError, ValueError):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return int(value) if value == int(value) else value
