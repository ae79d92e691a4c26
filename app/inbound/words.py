"""The words of the answers to replies (issue 50): whole sentences in the language of
the person whose seat a reply is for (``language_of``), for ``answers`` and ``worker``.
"""
from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Session, col, select

from app.gamelog import store
from app.i18n import N_, _, ngettext
from app.people.models import Person

#: What the seat hears when its reply was given up on (the fault was ours, not theirs).
DEAD = N_("We received a reply for your seat but could not apply it: something went "
          "wrong on our side, and after {attempts} tries we gave up on it. Nothing was "
          "changed. Reply again with your command, or use the link to your seat.")
UNREADABLE = N_("We received a reply for your seat but could not read it: the mail itself "
                "is malformed (its sender line or its parts). Nothing was changed. Reply "
                "again with just the command, or use the commands below.")
RETIRED = N_("This reply came to an address that no longer plays your seat (your seat's "
             "link was replaced). Nothing was changed. Reply to the newest mail, or use "
             "the commands below.")
NOT_YOURS = N_("A reply for your seat came from an address that is not yours "
               "(%(address)s). Nothing was changed. We take replies only when they say they "
               "are from your address, but a sender line is easy to fake: what lets a reply "
               "play your seat is the reply address of your mails, like the link in them, so "
               "keep your turn mails to yourself.")
NOT_VOUCHED = N_("A reply for your seat said it came from your address, but our mail server "
                 "could not confirm that your mail provider sent it (%(why)s), so it may be "
                 "forged. Nothing was changed. If you sent it, reply again from your usual "
                 "mail account; the commands are below.")
#: A turn mail's line for orders changed by reply (it lists them: issue 51), and how
#: answers and turn mails say the orders.
ORDERS_KEPT = N_("your standing orders are changed; the ones in force are listed below.")
ORDERS_WORDS = N_("Your standing orders: ")
#: What the answer to a reply we could not read adds (issue 20 item 2).
SAY = N_("To talk to the table, start your reply with SAY.")


def language_of(session: Session, game_id: str, seat: int) -> str | None:
    """The language the person holding ``seat`` reads, None when unset: the answers to
    their replies, and the words of what their replies did, are in it."""
    return session.exec(select(Person.language).join(
        store.Seat, sa.func.lower(col(store.Seat.email)) == sa.func.lower(col(Person.address)))
        .where(store.Seat.game_id == game_id, store.Seat.index == seat)).first()


def held(count: int, limit: int, last: str) -> str:
    """The head of a held answer: ``count`` replies over the hourly ``limit``, the last
    of which said ``last`` ("" when it said nothing worth quoting)."""
    said = ngettext(
        "You sent %(num)d reply that did not become a move while we had already answered "
        "%(limit)d in an hour (the most we send, so that two auto-responders cannot write "
        "to each other for ever). This one mail answers it: nothing was changed by it.",
        "You sent %(num)d replies that did not become a move while we had already answered "
        "%(limit)d in an hour (the most we send, so that two auto-responders cannot write "
        "to each other for ever). This one mail answers them all: nothing was changed by "
        "any of them.", count, limit=limit)
    if not last:
        return said
    return said + " " + _("The last one said: “%(said)s”.", said=last)


def earlier_holder(title: str, now: str, when: str, url: str) -> list[str]:
    """What the seat's earlier holder hears of a reply to one of their old mails."""
    return [_("Your seat in “%(title)s” is now played by %(name)s: the players handed it "
              "over%(when)s. This reply came to the address of one of your mails from "
              "before, which no longer plays the seat, so nothing was changed.",
              title=title, name=now, when=when),
            _("You can still watch the game: %(url)s", url=url), _("Thank you for playing.")]
