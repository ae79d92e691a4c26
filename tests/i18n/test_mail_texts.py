"""Every kind of mail reads in German and Japanese (issue 50): the mails' own words
(greetings, headings, leads, footers, both bodies), the reader's CLDR dates, and the
thread subject left in English so a game's thread never breaks when its reader changes
language."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from app import i18n
from app.mail import compose
from tests.summary import mail_kinds

#: Sentences of the mails' own (not the engine's, the menu's or a caller's), which must
#: not be left in English in another language.
ENGLISH = ["Hello ", "Your seat:", "Unsubscribe from this game's mail", "Scores so far",
           "Your village", "Top of the discard pile", "Please play by", "This link is your seat",
           "Final scores", "Your turn:", "The game is over:",
           "face down", "You are invited", "Fair deal", "At the table", "Open your seat"]

#: Per language, words each kind of mail says (text and HTML).
SAID = {
    "de": {"invitation": ["Hallo ", "Die Partie hat schon begonnen", "Faires Geben"],
           "turn": ["Du bist dran", "Dein Dorf", "Oben auf dem Ablagestapel", "Bitte spiel bis"],
           "round_end": ["Runde 1 ist vorbei", "Bisheriger Stand"],
           "game_over": ["Die Partie ist vorbei", "Endstand"],
           "notice_you_absent": ["Du bist als abwesend markiert"],
           "talk": ["Am Tisch", "Antworte mit SAY"],
           "daily": ["deiner Partien warten auf dich"],
           "inbound_answer": ["Zu deiner Antwort"]},
    "ja": {"invitation": ["さん、こんにちは", "ゲームはすでに始まっています", "公正な配札"],
           "turn": ["あなたの番です", "あなたの村", "捨て札の一番上", "までに指してください"],
           "round_end": ["ラウンド 1 が終わりました", "これまでの得点"],
           "game_over": ["ゲーム終了", "最終得点"],
           "notice_you_absent": ["あなたは不在とされました"],
           "talk": ["テーブル"],
           "daily": ["件のゲームがあなたを待っています"],
           "inbound_answer": ["ご返信について"]},
}


@pytest.mark.parametrize("lang", ["de", "ja"])
def test_every_kind_of_mail_reads_in_the_readers_language(lang):
    english = mail_kinds.every_kind()
    with i18n.in_language(lang):
        mails = mail_kinds.every_kind()
    for kind, mail in mails.items():
        # the thread subject is the same English in every language (Gmail threads by it)
        if kind != "daily":
            assert mail.subject == english[kind].subject, kind
        for body in (mail.text, mail.html):
            for sentence in ENGLISH:
                assert sentence not in body, (lang, kind, sentence)
        for word in SAID[lang].get(kind, []):
            assert word in mail.text and word in mail.html, (lang, kind, word)
    assert f'<html lang="{lang}">' in mails["turn"].html


def test_dates_and_the_standalone_mails_in_german_and_japanese():
    due = datetime(2026, 12, 8, 14, 0, tzinfo=timezone.utc)
    now = due - timedelta(days=2)
    berlin = ZoneInfo("Europe/Berlin")
    assert compose.deadline_words(due, now, berlin) == \
        "Tuesday, 8 December 2026, 15:00 CET (in 2 days)"
    with i18n.in_language("de"):
        assert compose.deadline_words(due, now, berlin) == \
            "Dienstag, 8. Dezember 2026, 15:00 MEZ (in 2 Tagen)"
        link = compose.render("settings_link", "Silver Eye", name="Ann", asked="asked",
                              link="http://x/s", hours=24, sitting=30)
        moved = compose.render("move_done", "Silver Eye", name="", old="a@example.com",
                               games=[])
    with i18n.in_language("ja"):
        assert "2026年12月8日火曜日" in compose.deadline_words(due, now, berlin)
        seat = compose.render("table_seat", "Silver Eye", name="Ken", table="Friday",
                              host=False, named=True, link="http://x/t", until="Fri")
    assert "Hallo Ann," in link.text and "Deine Einstellungen" in link.html
    assert "Hallo," in moved.text and "Gerade läuft keine Partie von dir." in moved.html
    assert "Ken さん" in seat.text and "席を確定する" in seat.html
    for mail in (link, moved, seat):
        assert "Hello" not in mail.text and "Did not ask" not in mail.text


def test_the_pages_of_a_mails_links_in_german_and_japanese(app):
    """The pages a mail's one-click links open: stop this game's mail, no more
    invitations."""
    from types import SimpleNamespace

    from flask import render_template

    guard = SimpleNamespace(address="ann@example.com", game_name="Friday",
                            game_mail_stopped=True, refused_at=None)
    said = {}
    for lang in ("de", "ja"):
        with app.test_request_context(f"/?lang={lang}", headers={"Accept-Language": lang}):
            with i18n.in_language(lang):
                said[lang] = (
                    render_template("mail/unsubscribe_page.html", token="t", done=False,
                                    game=SimpleNamespace(name="Friday"), name="Ann")
                    + render_template("mail/invitations_page.html", token="t", state="done",
                                      guard=guard))
    assert "Mails von dieser Partie stoppen?" in said["de"]
    assert "Keine Einladungen mehr" in said["de"]
    assert "このゲームのメールを止めますか？" in said["ja"]
    assert "招待を受け取らない" in said["ja"]
    for page in said.values():
        assert "Stop mail from this game?" not in page and "Pressed it by mistake" not in page
