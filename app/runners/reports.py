"""The background loops' reports as log fields (issue 34 item 5).

Why: the sender's and the clock's reports were a Python repr inside the JSON log's
message (``"mail: SendReport(claimed=3, sent=3, ...)"``), which an operator's log
search cannot ask "sent > 0" of. Each report is now logged as a field of the record
(``extra``), a JSON object under its name (``{"mail": {"claimed": 3, "sent": 3, ...}}``,
python-json-logger), with the message in words for the text format. One home for
that shape, used by the sender thread (``app.runners.sender``) and the tick
(``app.runners.clock``).
"""
from __future__ import annotations

import dataclasses
from typing import Any


def fields(report: Any) -> dict[str, Any]:
    """A report dataclass as plain JSON values (tuples become lists)."""
    return dataclasses.asdict(report)


def words(report: Any) -> str:
    """The report's counts in a line of words, for the message (the text format shows
    no fields): ``claimed 3, sent 3``, the counts that are not zero, in field order."""
    said = [f"{name} {value}" for name, value in fields(report).items()
            if isinstance(value, int) and not isinstance(value, bool) and value]
    return ", ".join(said) or "nothing"


def extra(**reports: Any) -> dict[str, Any]:
    """``extra=`` for a log call: each report under its name, as ``fields``; a dict
    (the tick's deadlines by outcome) as it is."""
    return {name: report if isinstance(report, dict) else fields(report)
            for name, report in reports.items()}
