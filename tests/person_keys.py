"""Test helpers for the keys that prove an address (issue 45): the settings link a seat
page mails, read back from the outbox as the person would from their mail."""
from __future__ import annotations

import re
from typing import Any

from sqlmodel import select

#: The settings link in a mail's text.
SETTINGS_LINK = re.compile(r"https?://[^\s/]+(/settings/(?!undo/)[A-Za-z0-9_.\-]+)")
#: The undo link of a "your settings were changed" mail.
UNDO_LINK = re.compile(r"https?://[^\s/]+(/settings/undo/[A-Za-z0-9_.\-]+)")
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def mails(kind: str, to: str | None = None) -> list[Any]:
    """The outbox rows of ``kind`` (to ``to``), oldest first."""
    from app.db import read_session
    from app.mail.models import Outbox

    with read_session() as session:
        query = select(Outbox).where(Outbox.kind == kind)
        if to is not None:
            query = query.where(Outbox.to == to)
        found = list(session.exec(query.order_by(Outbox.id)).all())
        session.expunge_all()  # read whole, used after the session
        return found


def ask_settings_link(client: Any, seat_token: str) -> Any:
    """Press "Send me the link to my settings" on a seat's settings door."""
    page = client.get(f"/play/{seat_token}/settings")
    assert page.status_code == 200, page.get_data(as_text=True)
    found = CSRF.search(page.get_data(as_text=True))
    assert found, "the seat's settings door has no button"
    return client.post(f"/play/{seat_token}/settings", data={"csrf_token": found.group(1)})


def settings_link(client: Any, seat_token: str, to: str) -> str:
    """The settings link path the seat's person gets by mail after asking for it."""
    with client.application.app_context():
        before = len(mails("settings_link", to))
        answer = ask_settings_link(client, seat_token)
        assert answer.status_code == 303, answer.get_data(as_text=True)
        sent = mails("settings_link", to)
        assert len(sent) == before + 1, "no settings link was mailed"
        found = SETTINGS_LINK.search(sent[-1].text)
        assert found, sent[-1].text
        return found.group(1)


def link_in(kind: str, to: str, pattern: Any) -> str:
    """The link ``pattern`` finds in the newest ``kind`` mail to ``to``."""
    sent = mails(kind, to)
    assert sent, f"no {kind} mail to {to}"
    found = pattern.search(sent[-1].text)
    assert found, sent[-1].text
    return found.group(1)


def undo_link(to: str) -> str:
    """The undo link of the newest "your settings were changed" mail to ``to``."""
    return link_in("settings_changed", to, UNDO_LINK)
