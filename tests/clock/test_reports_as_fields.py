"""Issue 34 item 5: the sender's and the clock's reports are fields of the JSON log
record, not a Python repr inside its message.

Measured before: ``{"message": "mail: SendReport(claimed=3, sent=3, retried=0, ...)"}``,
which no log search can ask "sent > 0" of. Now the record carries ``"mail": {"claimed":
3, "sent": 3, ...}`` (and the tick's ``"deadlines"``), and the message says the counts
in words for the text format.
"""
from __future__ import annotations

import json
import logging
from typing import Any

from app.access import masking
from app.runners import clock
from app.runners.waker import Waker

from .conftest import Recorder


def json_lines(caplog: Any, logger: str, starts: str) -> list[dict[str, Any]]:
    """The records ``logger`` wrote whose message starts with ``starts``, as the JSON
    formatter of every process writes them (masked), read back."""
    formatter = masking.formatter("json")
    return [json.loads(formatter.format(record)) for record in caplog.records
            if record.name == logger and record.getMessage().startswith(starts)]


def test_the_sender_threads_report_is_a_field_of_its_log_line(app, new_game, caplog):
    caplog.set_level(logging.INFO, logger="app.runners.sender")
    new_game(seats=2)  # two invitations and the first turn mail(s), due now
    waker = Waker(app, backend=Recorder())
    waker.step()

    (line,) = json_lines(caplog, "app.runners.sender", "mail:")
    mail = line["mail"]
    assert mail["claimed"] >= 2 and mail["sent"] == mail["claimed"]
    assert mail["failed"] == 0 and mail["refused"] == []
    assert "SendReport" not in line["message"]
    assert line["message"] == f"mail: claimed {mail['claimed']}, sent {mail['sent']}"


def test_the_ticks_report_is_a_field_of_its_log_line(app, new_game, caplog):
    caplog.set_level(logging.INFO, logger="app.runners.clock")
    new_game(seats=2)
    ticker = clock.Ticker(app, 30, waker=False)  # (no sender thread: the tick sends)
    ticker.app.config.update(MAIL_BACKEND="file")
    ticker()

    (line,) = json_lines(caplog, "app.runners.clock", "tick:")
    assert line["mail"]["sent"] >= 2 and line["deadlines"] == {}
    assert "SendReport" not in line["message"]
    assert line["message"].startswith("tick: deadlines none, mail claimed ")
