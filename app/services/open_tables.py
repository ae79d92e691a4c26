"""Open tables (issue 48): opening one from the lobby, the list at ``/tables``, and a
stranger asking to sit down by address. The mailed link's use cases (seeing the table,
sitting down, leaving, the creator's start and close) and the clock's expiry are
``app.services.table_seats``.

Nobody is seated by asking: ``sit_down`` checks everything it can before any mail (the
table is open with a seat free, the address is not at the table already, in any ``+tag``
or case, did not refuse invitations, meets the gate, is under its cap and its hour's
asks, and may still be mailed today as a stranger), then holds a seat for
``OPEN_TABLE_HOLD_HOURS`` and mails one short mail with one link. The click is the
muster: it proves the address and seats the person (``table_seats.confirm``).

Each ask runs under locks on the table, the address's person key and the asking
network's key (``store.lock_keys``, sorted), so two asks at once cannot both take the
last seat or both pass an hour's bound.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.access import tokens
from app import i18n
from app.i18n import forms
from babel.dates import get_day_names
from app import i18n
from app.access.masking import shown_address
from app.clock import deadlines as dl
from app.config import setting
from app.db import read_session
from app.db.unit import Unit, unit_of_work
from app.gamelog import store as log_store
from app.mail import addresses, compose, invitations, notify, unsent
from app.mail.headers import mail_domain
from app.seating import rules
from app.seating import store
from app.seating.models import BOT, HUMAN, OPEN, OPEN_SEAT
from app.services import options as game_options
from app.services.errors import FORM_USED, BadRequest, NotFound, TooMany
from app.services.games import MAX_NAME_LENGTH, MAX_SEATS, MIN_SEATS, _has_control
from app.services.settings_keys import base_url
from app.services.standing import line

#: Outbox kind of the one mail a sit-down sends (and a named seat's, at opening).
JOIN_KIND = "table_seat"
#: Days a table may wait for its players (the lobby's choice; default 3).
WAIT_DAYS_DEFAULT, WAIT_DAYS_MAX = 3, 14
#: Tables a page of the list shows.
PAGE_SIZE = 50


def _now(now: datetime | None) -> datetime:
    return dl.as_utc(now or dl.now())


def link_url(hold_id: str) -> str:
    return f"{base_url()}/tables/seat/{tokens.sign(tokens.TABLE_SEAT, [hold_id])}"


def _name(value: Any, what: str = "Your name") -> str:
    name = " ".join(str(value or "").split())
    if not name:
        raise BadRequest(f"{what} is missing: the others at the table see it.")
    if len(name) > MAX_NAME_LENGTH or _has_control(name):
        raise BadRequest(f"{what} must be at most {MAX_NAME_LENGTH} plain characters.")
    return name


def _address(value: Any) -> str:
    try:
        return addresses.normalise(str(value or ""))
    except addresses.BadAddress as exc:
        raise BadRequest(i18n._("That email address does not look right: %(why)s",
                                why=exc)) from None


# -- opening ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Opened:
    table_id: str
    wait_until: datetime
    mailed: list[str]


def open_table(players: list[dict[str, Any]], options: dict[str, Any], *, name: str = "",
               gate: str = rules.OPEN_GATE, wait_days: Any = WAIT_DAYS_DEFAULT,
               creator: str | None = None, per_hour: int | None = None,
               form_token_id: str | None = None, form_max_age: int = 6 * 3600,
               talk_spectators: bool = True, now: datetime | None = None) -> Opened:
    """Open a table: ``players`` as the lobby's seats (``kind`` human, bot or open). The
    first person with an address is the creator: their link (mailed, like every named
    person's) confirms their seat and may start or close the table. Refused in words:
    no open seat, no seat of the creator's, a gate above the creator's tier, a named
    address that refused invitations or is past a stranger's mail for the day."""
    now = _now(now)
    if not MIN_SEATS <= len(players) <= MAX_SEATS:
        raise BadRequest(i18n._("A game needs %(least)s to %(most)s seats.",
                                least=MIN_SEATS, most=MAX_SEATS))
    seats: list[dict[str, Any]] = []
    keys: set[str] = set()
    for index, player in enumerate(players):
        kind = str(player.get("kind") or HUMAN)
        if kind == OPEN_SEAT:
            seats.append({"index": index, "kind": OPEN_SEAT, "simon": "auto"})
            continue
        if kind == BOT:
            seats.append({"index": index, "kind": BOT, "simon": "auto",
                          "name": _name(player.get("name") or f"Bot {index + 1}"),
                          "confirmed_at": now})
            continue
        who = _name(player.get("name"), f"The name of seat {index + 1}")
        if not player.get("email"):
            raise BadRequest(i18n._("%(name)s needs an address at an open table: everyone "
                                    "there confirms their seat by a mailed link before the "
                                    "game starts.", name=who))
        email = _address(player.get("email"))
        key = addresses.person_key(email)
        if key in keys:
            raise BadRequest(i18n._("%(name)s's address is at the table already (one "
                                    "address, one seat; a +tag reaches the same inbox).",
                                    name=who))
        keys.add(key)
        seats.append({"index": index, "kind": HUMAN, "name": who, "email": email,
                      "person_key": key, "simon": str(player.get("simon") or "auto")})
    names = [s["name"].casefold() for s in seats if s.get("name")]
    if len(set(names)) != len(names):
        raise BadRequest(i18n._("Two seats have the same name; please tell them apart."))
    if not any(s["kind"] == OPEN_SEAT for s in seats):
        raise BadRequest(i18n._("Leave at least one seat open for a table others can find."))
    host = next((s for s in seats if s["kind"] == HUMAN), None)
    if host is None:
        raise BadRequest(i18n._("An open table needs your own seat, with your name and address: "
                         "your link confirms it, and tells you when the game starts."))
    try:
        days = int(str(wait_days).strip() or WAIT_DAYS_DEFAULT)
    except ValueError:
        days = 0
    if not 1 <= days <= WAIT_DAYS_MAX:
        raise BadRequest(i18n._("How long to wait for players: 1 to %(most)s days, in "
                                "digits.", most=WAIT_DAYS_MAX))
    try:
        options = game_options.validate(options, len(seats))
    except game_options.OptionError as exc:
        raise BadRequest(str(exc)) from None
    title = " ".join(str(name or "").split())[:200] or f"{host['name']}'s open table"
    if _has_control(title):
        raise BadRequest(i18n._("The table's name holds a control character; please type it plainly."))
    with unit_of_work() as unit:
        session = unit.session
        if creator and per_hour is not None:
            if not log_store.lock_key(session, creator):
                raise TooMany(i18n._("The server is busy; please try again in a minute."))
            if log_store.games_created_by(session, creator, now - timedelta(hours=1)) \
                    + store.tables_created_by(session, creator, now - timedelta(hours=1)) \
                    >= per_hour:
                raise TooMany(i18n._("Too many games and tables were started from your "
                                     "address in the last hour (at most %(most)s). Please try "
                                     "again later.", most=per_hour))
        if form_token_id is not None and not log_store.use_form_token(
                session, form_token_id, now - timedelta(seconds=form_max_age)):
            raise BadRequest(i18n._(FORM_USED))
        refused = rules.gate_allowed(gate, store.record_of(session, host["email"]))
        if refused:
            raise BadRequest(refused)
        for seat in seats:
            if seat["kind"] == HUMAN:
                _may_mail(session, seat["email"], f"The address given for {seat['name']}",
                          now)
        table_id = store.new_id()
        wait_until = now + timedelta(days=days)
        store.open_table(unit, {
            "id": table_id, "name": title, "options": options, "seats": len(seats),
            "talk_spectators": bool(talk_spectators), "gate": gate, "created_by": creator,
            "host_seat": host["index"], "created_at": now, "wait_until": wait_until,
            "status": OPEN, "ended_at": None, "game_id": None},
            [{"kind": s["kind"], "index": s["index"], "name": s.get("name"),
              "email": s.get("email"), "person_key": s.get("person_key"),
              "simon": s["simon"], "confirmed_at": s.get("confirmed_at"), "hold_id": None}
             for s in seats])
        unit.write()
        for seat in seats:
            if seat["kind"] == HUMAN:
                hold_id = store.new_id(16)
                store.new_hold(unit, {
                    "id": hold_id, "table_id": table_id, "name": seat["name"],
                    "email": seat["email"], "person_key": seat["person_key"], "ip_key": None,
                    "seat": seat["index"], "asked_at": now, "held_until": wait_until,
                    "link_until": wait_until, "seated_at": None, "left_at": None})
                _mail_link(unit, hold_id, seat["email"], seat["name"], title, now,
                           named=True, host=seat is host, until=wait_until)
        unit.write()
    return Opened(table_id, wait_until,
                  [shown_address(s["email"]) for s in seats if s["kind"] == HUMAN])


def _may_mail(session: Any, email: str, who: str, now: datetime, also: int = 0) -> None:
    """Refuse, in words and before any mail, an address that refused invitations or that
    is past a stranger's mail for the day (issue 17 item 7; ``also``: the day's join mails
    to its other ``+tag``s, the same inbox)."""
    why = invitations.why_not_mailed(session, email, now, also)
    if why == invitations.REFUSED:
        raise BadRequest(f"{who} asked for no invitations from this server, so it gets "
                         "none: nothing was sent.")
    if why == invitations.STRANGER_DAY:
        raise BadRequest(f"{who} has had as many mails from us today (counting its +tags) "
                         "as an address that never played here may get. Try again tomorrow.")


def _mail_link(unit: Unit, hold_id: str, email: str, name: str, table: str, now: datetime,
               *, named: bool, host: bool, until: datetime) -> None:
    """The one short mail with the one link (its kind is asked for: not held by quiet
    hours; a stranger's counts under their day's mail like any)."""
    with notify.writing_to(unit, email):  # its person's language, if known (issue 50)
        mail = compose.render(
            JOIN_KIND, f"Silver Eye · {table}",
            lead=(i18n._("Confirm your seat at your open table") if host else
                  i18n._("Confirm your seat at an open table")),
            name=name, table=table, link=link_url(hold_id), named=named, host=host,
            until=forms.short_when(until))
    unsent.queue(unit, game_id=None, seat=None, kind=JOIN_KIND, to=email, to_name=name,
                 mail=mail, idempotency=f"table-seat:{hold_id}",
                 domain=mail_domain(str(setting("MAIL_FROM"))), now=now, conversation=True)


# -- sitting down --------------------------------------------------------------------------

@dataclass(frozen=True)
class Asked:
    """What a visitor is told after asking (never a link)."""

    words: str
    held_until: datetime


def sit_down(table_id: str, name: Any, email: Any, network: str | None,
             now: datetime | None = None) -> Asked:
    """Ask to sit down at ``table_id`` as ``name`` at ``email`` from the network
    ``network`` (its keyed hash: ``web.lobby.creator_key``). See the module docstring."""
    now = _now(now)
    who, address = _name(name), _address(email)
    key, ip_key = addresses.person_key(address), network or ""
    hold_hours = float(setting("OPEN_TABLE_HOLD_HOURS"))
    with unit_of_work() as unit:
        session = unit.session
        log_store.lock_keys(session, [f"open-table:{table_id}", f"table-ask:{key}",
                                      f"table-ip:{ip_key}"])
        at = store.at_table(session, str(table_id))
        if at is None:
            raise NotFound(i18n._("There is no such table: it may have been mistyped."))
        table = at.table
        if table.status != OPEN or dl.as_utc(table.wait_until) <= now:
            raise BadRequest(i18n._("This table is not open any more: it started or stopped "
                             "waiting. Other tables are listed at /tables."))
        hour = now - timedelta(hours=1)
        per_ip = int(setting("OPEN_TABLE_ASKS_PER_IP_HOUR"))
        if store.asks_since(session, hour, ip_key=ip_key) >= per_ip:
            raise TooMany(i18n._("Too many asks to sit down came from your network in the "
                                 "last hour (at most %(most)s). Please try again later.",
                                 most=per_ip))
        per_address = int(setting("OPEN_TABLE_ASKS_PER_ADDRESS_HOUR"))
        if store.asks_since(session, hour, person_key=key) >= per_address:
            raise TooMany(i18n._("That address asked to sit down %(num)s times in the last "
                                 "hour, so no more mail goes to it for now. Use the newest "
                                 "mail, or try again later.", num=per_address))
        if key in at.person_keys(now):
            raise BadRequest(i18n._("That address is at this table already (or holds a seat that "
                             "waits for its click): one address, one seat, whatever its "
                             "+tag or capitals. Use the link in its mail."))
        taken = {s.name.casefold() for s in at.seats if s.name} | {
            h.name.casefold() for h in at.live_holds(now)}
        if who.casefold() in taken:
            raise BadRequest(i18n._("Someone at this table is called %(name)s already: "
                                    "please choose another name.", name=who))
        if at.free(now) <= 0:
            raise BadRequest(i18n._("Every open seat is taken or held for someone confirming "
                                    "by mail. A held seat opens again if its link is not "
                                    "clicked within %(hours)s hours: try again later.",
                                    hours=f"{hold_hours:g}"))
        _may_mail(session, address, "That address", now, also=store.asks_at_other_spellings(
            session, now - timedelta(days=1), key, address))
        record = store.record_of(session, address)
        refused = rules.refusal(table.gate, record)
        if refused:
            raise BadRequest(refused)
        over = rules.cap_words(store.in_play(session, key, now), record,
                               int(setting("OPEN_TABLE_CAP_MAX")))
        if over:
            raise BadRequest(over)
        hold_id = store.new_id(16)
        held_until = now + timedelta(hours=hold_hours)
        link_until = now + timedelta(hours=max(hold_hours,
                                               float(setting("OPEN_TABLE_LINK_HOURS"))))
        store.new_hold(unit, {
            "id": hold_id, "table_id": table.id, "name": who, "email": address,
            "person_key": key, "ip_key": ip_key, "seat": None, "asked_at": now,
            "held_until": held_until, "link_until": link_until, "seated_at": None,
            "left_at": None})
        _mail_link(unit, hold_id, address, who, table.name, now, named=False, host=False,
                   until=held_until)
        unit.write()
    return Asked(f"We mailed a link to {shown_address(address)}. A seat is held for you "
                 f"until {held_until:%a %d %b %H:%M} UTC: open the link from that mailbox "
                 "and press “Sit down” to take it. Nothing is seated until then.",
                 held_until)


# -- the list --------------------------------------------------------------------------

def listing(page: int = 1, now: datetime | None = None, only: str | None = None
            ) -> tuple[list[dict[str, Any]], int]:
    """One page of the open tables as everyone may see them (never an address or a link):
    ``(tables, how many are open)``."""
    now = _now(now)
    page = max(1, int(page))
    with read_session() as session:
        found = store.listed(session, now, PAGE_SIZE, (page - 1) * PAGE_SIZE, only=only)
    return [_public(t, found.seats[t["id"]], found.held[t["id"]], now)
            for t in found.tables], found.total


def _public(table: dict[str, Any], seats: list[dict[str, Any]], held: int,
            now: datetime) -> dict[str, Any]:
    shown, empty = [], 0
    for seat in seats:
        if seat["kind"] == OPEN_SEAT and not seat["taken"]:
            empty += 1
            continue
        entry: dict[str, Any] = {"seat": int(seat["index"]) + 1, "name": seat["name"],
                                 "kind": "bot" if seat["kind"] == BOT else "person"}
        if seat["kind"] != BOT:
            entry["confirmed"] = seat["confirmed_at"] is not None
            standing = line(store.Columns(seat) if seat["person_id"] is not None else None,
                            bool(seat["standing_hidden"]))
            entry["standing"] = {"tier": standing.tier, "words": standing.words,
                                 "public_id": standing.public_id, "rating": standing.rating,
                                 "provisional": standing.provisional}
        shown.append(entry)
    held = min(held, empty)
    options = dict(table["options"] or {})
    return {"id": table["id"], "name": table["name"], "seats": int(table["seats"]),
            "seated": shown, "held": held, "seats_left": empty - held,
            "gate": table["gate"], "gate_words": rules.GATE_WORDS[table["gate"]],
            "rated": bool(options.get("rated")), "clock": clock_words(options),
            "options": {k: options[k] for k in _SHOWN_OPTIONS if k in options},
            "created_at": dl.as_utc(table["created_at"]).isoformat(),
            "wait_until": dl.as_utc(table["wait_until"]).isoformat()}


#: The options the list shows (everything a joiner agrees to; none of them is secret).
_SHOWN_OPTIONS = ("deadline_hours", "bank_days", "allowance_hours", "reminders", "absent_after",
                  "clock_days", "more_time_per_round", "memory", "rated")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def clock_words(options: dict[str, Any]) -> str:
    """The table's clock in a few words: "2 days a move", "a time bank of 5 days, and 12
    hours more each move"; "(Mon–Fri)" when it does not run every day."""
    if options.get("bank_days") is not None:
        words = i18n._("a time bank of %(days)s days, and %(hours)s hours more each move",
                       days=f"{options['bank_days']:g}",
                       hours=f"{options.get('allowance_hours', 0):g}")
    else:
        hours = float(options.get("deadline_hours") or game_options.deadline_hours(options))
        if hours % 24 == 0:
            words = (i18n._("%(num)s day a move", num=f"{hours / 24:g}") if hours == 24
                     else i18n._("%(num)s days a move", num=f"{hours / 24:g}"))
        else:
            words = (i18n._("%(num)s hour a move", num=f"{hours:g}") if hours == 1
                     else i18n._("%(num)s hours a move", num=f"{hours:g}"))
    days = options.get("clock_days")
    if days and list(days) != list(range(7)):
        if i18n.current() == i18n.DEFAULT:
            named = ", ".join(_DAYS[int(d)] for d in days)
        else:  # the days' short names in the reader's language (CLDR's)
            short = get_day_names("abbreviated", locale=forms.cldr())
            named = forms.names([short[int(d)] for d in days])
        words = i18n._("%(clock)s (on %(days)s)", clock=words, days=named)
    return words
