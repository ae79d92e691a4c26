"""Open tables (issue 48) as people use them: the creator's lobby form, strangers at
``/tables`` from their own networks, the links read back from their mail."""
from __future__ import annotations

import re
from typing import Any

import pytest

from app.clock import deadlines as dl
from tests.clock.conftest import T0, hours, mailbox, tick  # noqa: F401  (fixtures)
from tests.person_keys import link_in

TABLE_LINK = re.compile(r"https?://[^\s/]+(/tables/seat/[A-Za-z0-9_.\-]+)")
FORM_TOKEN = re.compile(r'name="form_token" value="([^"]+)"')
TABLE_ID = re.compile(r'id="table-([A-Za-z0-9_\-]+)"')
ANN, BEA, CAI = "ann@example.org", "bea@example.net", "cai@example.com"


@pytest.fixture(autouse=True)
def _turn_mail_at_once(turn_mail_at_once):
    """No grace period, no hourly cap here (tests/conftest.py says why)."""


def lobby_form(client: Any, **fields: Any) -> dict[str, Any]:
    """Ann's lobby form: her own seat, then ``fields`` (``seat1_kind="open"``...)."""
    page = client.get("/").get_data(as_text=True)
    form = {"form_token": FORM_TOKEN.search(page).group(1), "name": "Friday table",
            "seat0_name": "Ann", "seat0_email": ANN, "seat0_kind": "human",
            "deadline": "2", "deadline_unit": "days", "reminders": "half",
            "absent_after": "3", "more_time": "1"}
    form.update(fields)
    return form


def open_table(client: Any, at: Any = T0, **fields: Any) -> str:
    """Ann opens a table from the lobby (two open seats unless told); its id."""
    fields.setdefault("seat1_kind", "open")
    fields.setdefault("seat2_kind", "open")
    with dl.at(at):
        answer = client.post("/", data=lobby_form(client, **fields),
                             environ_base={"REMOTE_ADDR": "192.0.2.1"})
    assert answer.status_code == 303, answer.get_data(as_text=True)[:3000]
    return answer.headers["Location"].rsplit("#table-", 1)[1]


def sit_down(client: Any, table_id: str, name: str, email: str, ip: str = "198.51.100.7",
             at: Any = T0) -> Any:
    """A visitor's form at /tables, from their own network."""
    with dl.at(at):
        return client.post(f"/tables/{table_id}/join", data={"name": name, "email": email},
                           environ_base={"REMOTE_ADDR": ip})


def link_of(to: str) -> str:
    """The newest open-table link mailed to ``to``."""
    return link_in("table_seat", to, TABLE_LINK)


def click(client: Any, link: str, at: Any = T0, path: str = "") -> Any:
    """Open the mailed link and press its button (GET, then the POST)."""
    with dl.at(at):
        assert client.get(link).status_code == 200
        return client.post(link + path)
