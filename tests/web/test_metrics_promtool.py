"""``/metrics`` as Prometheus's own checker reads it (issue 34's acceptance: "promtool
check metrics clean with the new series"): a scrape of a store holding a notice
delivery, a paused target and a bouncing address, so that every series has samples,
is given to ``promtool check metrics``, which names any series without HELP, a counter
not ending in ``_total``, a bad unit suffix or a malformed line. Without ``promtool``
the test is skipped; under CI it fails (``.ci/run`` installs Debian's ``prometheus``,
which brings it)."""
from __future__ import annotations

import subprocess

from app.db import get_engine
from tests.outside_tools import outside_tool
from tests.web.test_metrics import expect_prepared_gauges, prepare_state, scrape  # noqa: F401


def test_promtool_finds_nothing_to_say_of_a_scrape_with_every_series(app, client, new_game,
                                                                     scrape):  # noqa: F811
    created = new_game()
    prepare_state(get_engine(app), created.game_id)
    client.get(f"/play/{created.tokens[0]}")  # a request counted by route
    answer = scrape()  # (with the operator's token, as Prometheus scrapes)
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    expect_prepared_gauges(text)  # (the notice, target and bounce series have samples)

    checked = subprocess.run([outside_tool("promtool", "prometheus"), "check", "metrics"], input=text,
                             capture_output=True, text=True, timeout=60)

    assert checked.returncode == 0 and not (checked.stdout + checked.stderr).strip(), \
        checked.stdout + checked.stderr
