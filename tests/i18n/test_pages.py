"""The pages in the reader's language (issue 50): the lobby, the open tables, a game's
public page and its replay, the games list and the settings behind it, the leaderboard
and the error page say their words in German and Japanese, with no English sentence of
theirs left (what people typed, card texts and the table partials are others')."""
from __future__ import annotations

import html
import re

import pytest
from sqlmodel import select

from app import i18n, services
from app.db import read_session
from app.mail.models import Outbox
from app.people import settings
from app.standing.record import Record
from app.web.my_games import day_words

LINK = re.compile(r"http://silver-eye\.test(/my-games/[A-Za-z0-9_.\-]+)")

#: English sentences of these pages that must not be left in a translated page.
ENGLISH = ("Start a game of Silver Eye", "Create the game", "How it works",
           "Days the clock runs", "Who may sit where", "No table is waiting",
           "You are watching", "Replay and fairness", "Watch the replay",
           "What a spectator could see", "The cards are dealt", "Fair deal",
           "All my games", "Every seat of", "Your settings for all your games",
           "Allow invitations", "No more invitations", "Your settings, for all your games",
           "Time zone and quiet hours", "Save my name", "Save my language",
           "Move to a new address", "Leaderboard", "Nobody has played",
           "There is nothing at this address", "Back to the start page")

WORDS = {
    "de": ("Eine Partie Silver Eye starten", "Spiel anlegen", "Wer sich wo setzen darf",
           "Du schaust zu", "Die Karten sind ausgeteilt", "Alle meine Spiele",
           "Jeder Platz von", "Meinen Namen speichern", "Rangliste", "Nicht gefunden"),
    "ja": ("Silver Eye のゲームを始める", "ゲームを作成", "どこにだれが座れるか",
           "観戦中", "カードが配られました", "すべてのゲーム", "のすべての席",
           "名前を保存", "ランキング", "見つかりません"),
}


def _text(page: str) -> str:
    page = re.sub(r"(?s)<script.*?</script>", " ", page)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def _games_link(client) -> str:
    assert client.post("/my-games", data={"email": "bob@example.com"}).status_code == 303
    with read_session() as session:
        text = session.exec(select(Outbox.text).where(Outbox.kind == "my_games")).first()
    return LINK.search(text).group(1)


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_every_page_of_ours_speaks_the_readers_language(client, new_game, lang):
    game = new_game()
    with i18n.in_language(lang):  # the day the game started, as the reader writes it
        started = {"de": "begonnen am %s", "ja": "%s 開始"}[lang] % day_words(
            services.game_info(game.game_id).created)
    link = _games_link(client)
    said = ""
    for path in ("/", "/tables", f"/games/{game.game_id}", f"/games/{game.game_id}/replay",
                 link, f"{link}/settings", "/leaderboard", "/nowhere"):
        answer = client.get(path, headers={"Accept-Language": lang})
        assert answer.status_code in (200, 404), path
        said += _text(answer.get_data(as_text=True))
    for words in (*WORDS[lang], started):
        assert words in said, words
    for sentence in ENGLISH:
        assert sentence not in said, sentence


def test_the_words_built_in_python_are_said_when_read():
    """A setting's change, a record and a gate refusal are translated where they are
    said (the mail and the flash), not when the module was imported."""
    with i18n.in_language("de"):
        assert settings.words("language", "ja") == "Seiten und Mails auf 日本語"
        assert settings.words("time_zone", "Europe/Paris") == "Zeiten in Europe/Paris"
        record = Record(ended=5, recent=5, recent_left=1, recent_moves=40, recent_clock=2)
        assert record.words() == ("4 der letzten 5 Spiele beendet; die Uhr hat 2 von ihren "
                                  "42 Zügen gespielt.")
    with i18n.in_language("ja"):
        assert settings.words("by_mail", True) == "通知はメールでも受け取る"
        assert Record().short() == "新人"
    assert settings.words("language", "de") == "pages and mail in Deutsch"
    assert Record(ended=5, recent=5, recent_left=1, recent_moves=40,
                  recent_clock=2).words() == ("Finished 4 of their last 5 games; the clock "
                                              "played 2 of their 42 moves.")
