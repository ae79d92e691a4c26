"""Abuse of the sit-down doors (issue 48, acceptance "Abuse"): a stranger's form at
``/tables`` mails a link to whatever address is typed, so it is a way to send mail to
someone who never asked. Two attacks, at both doors (the list's form and the JSON):

- many networks aim at ONE address (its +tag and capital variants among them): the
  inbox gets no more than the address's hourly bound of asks and a stranger's day of
  mail allow, whatever the number of networks and tables, and even when the one who
  opened those tables closes each at once (so the address's cap of open-table games
  never stops the asks);
- ONE network aims at many addresses: the network's hourly bound throttles it, and
  every ask over it is answered 429 in words.

Nothing either attack sends is ever answered with a 5xx.
"""
from __future__ import annotations

import html
import math
import random
import re
from datetime import datetime, timedelta
from typing import Any

from app.clock import deadlines as dl
from app.config import setting
from app.mail import addresses, trust
from app.services import open_tables as service
from tests.person_keys import link_in, mails

from .conftest import TABLE_LINK, T0, hours

#: The words of a refusal on the list's page (the form door answers with the list).
ALERT = re.compile(r'role="alert">([^<]+)<')
ASKS = 1_000
NETWORKS = [f"198.51.100.{n}" for n in range(1, 51)]
VICTIM = "vic@example.org"


def open_many(count: int, at: datetime = T0) -> list[str]:
    """``count`` three-seat tables (a host's seat and two open ones), each opened by its
    own host from its own network, as the lobby opens them."""
    ids = []
    for index in range(count):
        opened = service.open_table(
            [{"kind": "human", "name": f"Host {index}", "email": f"host{index}@example.com"},
             {"kind": "open"}, {"kind": "open"}], {}, name=f"Table {index}",
            creator=f"creator-{index}", now=at)
        ids.append(opened.table_id)
    return ids


def ask(client: Any, table_id: str, name: str, email: str, ip: str, at: datetime,
        door: str) -> tuple[int, str]:
    """One ask to sit down at ``door`` ("form" or "json"): the status and its words."""
    with dl.at(at):
        if door == "json":
            answer = client.post(f"/api/tables/{table_id}/join",
                                 json={"name": name, "email": email},
                                 environ_base={"REMOTE_ADDR": ip})
            body = answer.get_json(silent=True) or {}
            return answer.status_code, str(body.get("message") or "")
        answer = client.post(f"/tables/{table_id}/join", data={"name": name, "email": email},
                             environ_base={"REMOTE_ADDR": ip})
    if answer.status_code == 303:
        return 303, answer.headers["Location"]
    found = ALERT.search(answer.get_data(as_text=True))
    return answer.status_code, html.unescape(found.group(1)).strip() if found else ""


def assert_answered_in_words(answers: list[tuple[int, str]]) -> None:
    """Every answer is a welcome (303 from the form, 202 from the JSON) or a 4xx with a
    sentence of words; never a 5xx."""
    for status, words in answers:
        assert status < 500, (status, words)
        assert status in (202, 303) or 400 <= status < 500, (status, words)
        if status >= 400:
            assert len(words.split()) >= 5 and words.endswith("."), (status, words)


def join_mails(to_key: str | None = None, but: str = "host") -> list[Any]:
    """The join mails (kind ``table_seat``) to the inbox of ``to_key`` (a person key:
    every +tag and capital variant), or to anyone but the hosts."""
    sent = mails(service.JOIN_KIND)
    if to_key is not None:
        return [m for m in sent if addresses.person_key(m.to) == to_key]
    return [m for m in sent if not m.to.startswith(but)]


def test_a_thousand_asks_for_one_address_from_fifty_networks(client: Any) -> None:
    """Fifty networks ask, a thousand times over a day and at forty tables, to seat one
    address that never played here (in its plain form, its capitals and its +tags).
    The address can be mailed at most ``OPEN_TABLE_ASKS_PER_ADDRESS_HOUR`` times in any
    hour and a stranger's ``STRANGER_MAILS_PER_DAY`` in the day, so its inbox gets at
    most the smaller of the two: every other ask is refused in words before any mail."""
    per_address = int(setting("OPEN_TABLE_ASKS_PER_ADDRESS_HOUR"))
    span = hours(24)
    bound = min(per_address * math.ceil(span / hours(1)), trust.STRANGER_MAILS_PER_DAY)
    tables = open_many(40)
    variants = [VICTIM, "Vic@Example.org", "VIC+games@EXAMPLE.ORG"]
    answers = []
    for i in range(ASKS):
        email = variants[i % 3] if i % 4 else f"vic+t{i}@example.org"
        answers.append(ask(client, tables[i % len(tables)], f"Vic {i}", email,
                           NETWORKS[i % len(NETWORKS)], T0 + span * i / ASKS,
                           "json" if i % 2 else "form"))

    assert_answered_in_words(answers)
    inbox = join_mails(addresses.person_key(VICTIM))
    welcomed = [status for status, _ in answers if status in (202, 303)]
    assert 1 <= len(inbox) == len(welcomed) <= bound
    # and no hour of the day had more than the address's hourly bound
    times = sorted(m.created_at for m in inbox)
    for last in times:
        assert sum(last - hours(1) < t <= last for t in times) <= per_address, times
    refused = {words for status, words in answers if status >= 400}
    assert any("times in the last hour" in words for words in refused), refused


def test_a_creator_who_closes_each_table_still_meets_the_day_bound(client: Any) -> None:
    """Mallory opens her own tables (from her own addresses) and closes each one with
    her link right after Vic's seat is asked for there, so none of Vic's holds counts
    toward Vic's cap of open-table games. Asking ten times an hour for a day, from fifty
    networks, at both doors and in every spelling of his address (capitals, a new +tag
    each time: the same inbox), she still reaches Vic's inbox only as often as the
    address's hourly bound and a stranger's day of mail allow; the rest is refused in
    words before any mail."""
    per_address = int(setting("OPEN_TABLE_ASKS_PER_ADDRESS_HOUR"))
    bound = min(per_address * 24, trust.STRANGER_MAILS_PER_DAY)
    answers = []
    for i in range(240):
        at = T0 + hours(i / 10)
        host = f"mallory{i}@attacker.example"
        trap = service.open_table([{"kind": "human", "name": "Mal", "email": host},
                                   {"kind": "open"}], {}, name=f"Trap {i}",
                                  creator=f"mallory-{i % 50}", now=at).table_id
        spelling = (VICTIM, "Vic@Example.ORG", f"vic+{i}@example.org")[i % 3]  # one inbox
        answers.append(ask(client, trap, "Vic", spelling,
                           NETWORKS[i % len(NETWORKS)], at, "json" if i % 2 else "form"))
        with dl.at(at):
            assert client.post(link_in(service.JOIN_KIND, host, TABLE_LINK) + "/close"
                               ).status_code == 200

    assert_answered_in_words(answers)
    inbox = join_mails(addresses.person_key(VICTIM))
    assert len(inbox) == len([s for s, _ in answers if s in (202, 303)]) <= bound
    refused = {words for status, words in answers if status >= 400}
    assert any("as many mails from us today" in words for words in refused), refused


def test_a_thousand_asks_for_random_addresses_from_one_network(client: Any) -> None:
    """One network asks a thousand times within an hour, for a thousand different
    addresses, at ten tables with seats to spare: only ``OPEN_TABLE_ASKS_PER_IP_HOUR``
    asks are welcomed (one mail each); every other is a 429 saying why, and sends
    nothing. An hour after the first, the network may ask again: a throttle, not a ban."""
    per_ip = int(setting("OPEN_TABLE_ASKS_PER_IP_HOUR"))
    tables = open_many(10)
    rng = random.Random(48)
    network = "203.0.113.66"
    answers, asked = [], []
    for i in range(ASKS):
        email = f"{rng.choice(['zoe', 'yan', 'xu', 'wim'])}{i}.{rng.randrange(10**6)}@example.net"
        asked.append(email)
        answers.append(ask(client, tables[i % len(tables)], f"Guest {i}", email, network,
                           T0 + timedelta(seconds=3.5 * i), "json" if i % 2 else "form"))

    assert_answered_in_words(answers)
    statuses = [status for status, _ in answers]
    assert statuses[:per_ip] == [202 if i % 2 else 303 for i in range(per_ip)]
    assert statuses[per_ip:] == [429] * (ASKS - per_ip)
    assert {words for _, words in answers[per_ip:]} == {
        f"Too many asks to sit down came from your network in the last hour (at most "
        f"{per_ip}). Please try again later."}
    sent = join_mails()
    assert sorted(m.to for m in sent) == sorted(asked[:per_ip])  # one each, nobody else

    # an hour after its first ask, the network is welcome again
    status, _ = ask(client, tables[0], "Late Guest", "late@example.net", network,
                    T0 + hours(1) + timedelta(minutes=1), "json")
    assert status == 202
    assert len(join_mails()) == per_ip + 1
