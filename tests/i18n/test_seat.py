"""The seat page in German and Japanese (issue 50): the question, its buttons and labels,
the due line, the table, talk and notices boxes read in the person's language; English
stays as it was (tests/web)."""
from __future__ import annotations

import html
import re
from typing import Any

import pytest

TAGS = re.compile(r"<[^>]+>")
SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S)


def page_text(answer: Any) -> str:
    body = SCRIPT.sub(" ", answer.get_data(as_text=True))
    return " ".join(html.unescape(TAGS.sub(" ", body)).split())


#: English sentences of the seat page that a German or Japanese reader must not meet.
ENGLISH = ["Tick two of your facedown cards", "Deck and discard pile", "Since your last move",
           "At the table", "Mail and clock", "Notices elsewhere", "The table", "Decide ahead",
           "Fair deal", "This page is your private seat link", "Your settings",
           "Scores, this round's log", "Fewest points wins", "facedown, unknown",
           "Save mail settings", "Say something to the table", "Each decision has a deadline",
           "Round 1 of 4", "playing as"]

SAID = {
    "de": ["Kreuz zwei deiner verdeckten Karten an.", "Nachziehstapel und Ablagestapel",
           "Am Tisch", "Mail und Uhr", "Benachrichtigungen anderswo", "Der Tisch",
           "Im Voraus entscheiden", "Faire Verteilung", "Runde 1 von 4", "spielt als Ann",
           "Für jede Entscheidung gibt es 2 Tage Zeit", "Mail-Einstellungen speichern",
           "verdeckt, unbekannt", "Die angekreuzten Karten ansehen"],
    "ja": ["裏向きのカードを2枚チェックしてください。", "山札と捨て札", "テーブルトーク",
           "メールと時計", "ほかの場所への通知", "テーブル", "先に決める", "公正な配札",
           "ラウンド 1 / 4", "Annとしてプレイ中", "各判断の期限は2日です",
           "メール設定を保存", "裏向き、不明", "チェックしたカードを見る"],
}


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_the_seat_page_reads_in_the_persons_language(client, new_game, lang):
    created = new_game(deadline_days=2)
    answer = client.get(f"/play/{created.tokens[0]}?lang={lang}")
    assert answer.status_code == 200
    assert answer.headers["Content-Language"] == lang
    text = page_text(answer)
    for words in SAID[lang]:
        assert words in text, words
    for words in ENGLISH:
        assert words not in text, words


def test_the_seat_page_in_english_is_as_it_was(client, new_game):
    created = new_game(deadline_days=2)
    text = page_text(client.get(f"/play/{created.tokens[0]}?lang=en"))
    for words in ["Tick two of your facedown cards.", "Deck and discard pile", "Round 1 of 4",
                  "playing as Ann", "Each decision has a deadline of 2 days",
                  "Peek at the ticked cards", "Fair deal: the secret seed's SHA-256 is"]:
        assert words in text, words
