"""Issue 45 item 5: talk by mail is the new words only, as each mail client writes a reply.

Ann gets her first turn mail of a real game (over SMTP, from our outbox) and answers
"SAY good luck everyone" the way each client writes a reply: its quote header in the
reader's language (with the turn mail's reply address in it, as Gmail shows the
sender), the turn mail quoted under it (its seat link included), a phone's or a
client's signature, in plain text, in HTML, or in both. Each posts exactly "good luck
everyone" at the table, and no talk ever carries a mail address or a seat link. A
command with a SAY line under it does both, or the answer says which it did not do.
"""
from __future__ import annotations

import html as html_module
import re
from typing import Callable

import pytest
import sqlalchemy as sa

from tests.inbound.conftest import ANN, answers, menu_of, reply_with as reply
from tests.mail.conftest import Received

WORDS = "good luck everyone"


def talk_rows(db, game_id: str) -> list[str]:
    with db.engine.connect() as conn:
        return [str(row[0]) for row in conn.execute(sa.text(
            "SELECT text FROM talk WHERE game_id = :g ORDER BY id"), {"g": game_id})]


# -- how each client writes a reply ----------------------------------------------------

def _quoted(mail: Received) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in mail.text.splitlines())


def _sender(mail: Received) -> str:
    """The quoted mail's sender as clients show it: the name and the reply address (the
    one of ours that plays Ann's seat, the worst thing talk could carry)."""
    return f"Silver Eye Post <{mail.header('Reply-To')}>"


def _outlook_block(mail: Received, lang: str) -> str:
    fields = {
        "en": ("From", "Sent", "To", "Subject", "Monday, December 7, 2026 9:12 AM"),
        "de": ("Von", "Gesendet", "An", "Betreff", "Montag, 7. Dezember 2026 09:12"),
        "fr": ("De\u00a0", "Envoyé\u00a0", "À\u00a0", "Objet\u00a0",
               "lundi 7 décembre 2026 09:12"),
        "pl": ("Od", "Wysłano", "Do", "Temat", "poniedziałek, 7 grudnia 2026 09:12"),
        "es": ("De", "Enviado", "Para", "Asunto", "lunes, 7 de diciembre de 2026 9:12"),
    }[lang]
    name_from, name_sent, name_to, name_subject, when = fields
    return (f"{name_from}: {_sender(mail)}\n{name_sent}: {when}\n"
            f"{name_to}: Ann <{ANN}>\n{name_subject}: {mail.subject}\n")


def gmail(mail: Received, words: str) -> str:
    return (f"{words}\n\nOn Mon, 7 Dec 2026 at 09:12, {_sender(mail)} wrote:\n\n"
            f"{_quoted(mail)}\n")


def gmail_wrapped(mail: Received, words: str) -> str:
    """Gmail's plain text wraps a long header line before the address."""
    return (f"{words}\n\nOn Mon, Dec 7, 2026 at 9:12 AM Silver Eye Post <\n"
            f"{mail.header('Reply-To')}> wrote:\n\n{_quoted(mail)}\n")


def gmail_signed(mail: Received, words: str) -> str:
    return f"{words}\n\n-- \nAnn Example\nann@example.com\n\n{gmail(mail, '').lstrip()}"


def outlook(lang: str) -> Callable[[Received, str], str]:
    def write(mail: Received, words: str) -> str:
        """Outlook desktop: a line of underscores, the header block, the mail unquoted."""
        return (f"{words}\n\n{'_' * 32}\n{_outlook_block(mail, lang)}\n{mail.text}\n")
    write.__name__ = f"outlook_{lang}"
    return write


def outlook_original_message(mail: Received, words: str) -> str:
    return (f"{words}\n\n-----Original Message-----\n{_outlook_block(mail, 'en')}\n"
            f"{mail.text}\n")


def outlook_german_original(mail: Received, words: str) -> str:
    return (f"{words}\n\n-----Ursprüngliche Nachricht-----\n{_outlook_block(mail, 'de')}\n"
            f"{mail.text}\n")


def outlook_mobile(mail: Received, words: str) -> str:
    return (f"{words}\n\nGet Outlook for iOS<https://aka.ms/o0ukef>\n{'_' * 32}\n"
            f"{_outlook_block(mail, 'en')}\n{mail.text}\n")


def apple_mail(mail: Received, words: str) -> str:
    return (f"{words}\n\n> On 7 Dec 2026, at 09:12, {_sender(mail)} wrote:\n>\n"
            f"{_quoted(mail)}\n")


def apple_mac(mail: Received, words: str) -> str:
    return f"{words}\n\nOn 7 Dec 2026, at 09:12, {_sender(mail)} wrote:\n\n{_quoted(mail)}\n"


def zoho(mail: Received, words: str) -> str:
    return (f"{words}\n\n\n\n---- On Mon, 07 Dec 2026 09:12:00 +0000 {_sender(mail)} "
            f"wrote ----\n\n{mail.text}\n")


def iphone(mail: Received, words: str) -> str:
    return f"{words}\n\nSent from my iPhone\n\n{apple_mail(mail, '').lstrip()}"


def iphone_german(mail: Received, words: str) -> str:
    return (f"{words}\n\nVon meinem iPhone gesendet\n\n> Am 07.12.2026 um 09:12 schrieb "
            f"{_sender(mail)}:\n>\n{_quoted(mail)}\n")


def iphone_french(mail: Received, words: str) -> str:
    return (f"{words}\n\nEnvoyé de mon iPhone\n\n> Le 7 déc. 2026 à 09:12, {_sender(mail)} "
            f"a écrit :\n>\n{_quoted(mail)}\n")


def iphone_spanish(mail: Received, words: str) -> str:
    return (f"{words}\n\nEnviado desde mi iPhone\n\n> El 7 dic 2026, a las 9:12, "
            f"{_sender(mail)} escribió:\n>\n{_quoted(mail)}\n")


def android(mail: Received, words: str) -> str:
    """Samsung Email and other Android clients: an original-message block, unquoted."""
    return (f"{words}\n\n\n\nSent from my Galaxy\n\n\n-------- Original message --------\n"
            f"From: {_sender(mail)}\nDate: 07/12/2026 09:12 (GMT+00:00)\nTo: {ANN}\n"
            f"Subject: {mail.subject}\n\n{mail.text}\n")


def thunderbird(mail: Received, words: str) -> str:
    return f"{words}\n\nOn 07/12/2026 09:12, Silver Eye Post wrote:\n{_quoted(mail)}\n"


def thunderbird_original(mail: Received, words: str) -> str:
    return (f"{words}\n\n-------- Original Message --------\nSubject: {mail.subject}\n"
            f"Date: Mon, 7 Dec 2026 09:12:00 +0000\nFrom: {_sender(mail)}\nTo: {ANN}\n\n"
            f"{mail.text}\n")


def thunderbird_german(mail: Received, words: str) -> str:
    return f"{words}\n\nAm 07.12.26 um 09:12 schrieb Silver Eye Post:\n{_quoted(mail)}\n"


def gmail_polish(mail: Received, words: str) -> str:
    return (f"{words}\n\nW dniu pon., 7 gru 2026 o 09:12 {_sender(mail)} napisał(a):\n\n"
            f"{_quoted(mail)}\n")


def polish_user_wrote(mail: Received, words: str) -> str:
    return (f"{words}\n\nW dniu 2026-12-07 o 09:12, użytkownik {_sender(mail)} napisał:\n"
            f"{_quoted(mail)}\n")


def gmail_french(mail: Received, words: str) -> str:
    return (f"{words}\n\nLe lun. 7 déc. 2026 à 09:12, {_sender(mail)} a écrit :\n\n"
            f"{_quoted(mail)}\n")


def gmail_dutch(mail: Received, words: str) -> str:
    return (f"{words}\n\nOp ma 7 dec. 2026 om 09:12 schreef {_sender(mail)}:\n\n"
            f"{_quoted(mail)}\n")


def gmail_italian(mail: Received, words: str) -> str:
    return (f"{words}\n\nIl giorno lun 7 dic 2026 alle ore 09:12 {_sender(mail)} ha "
            f"scritto:\n\n{_quoted(mail)}\n")


def gmail_spanish(mail: Received, words: str) -> str:
    return (f"{words}\n\nEl lun, 7 dic 2026 a las 9:12, Silver Eye Post "
            f"(<{mail.header('Reply-To')}>) escribió:\n\n{_quoted(mail)}\n")


def gmail_russian(mail: Received, words: str) -> str:
    """Russian Gmail writes no verb: a date, the sender, a colon."""
    return f"{words}\n\nпн, 7 дек. 2026 г. в 09:12, {_sender(mail)}:\n\n{_quoted(mail)}\n"


def yahoo(mail: Received, words: str) -> str:
    return (f"{words}\n\nSent from Yahoo Mail on Android\n\n  On Mon, 7 Dec 2026 at 9:12, "
            f"{_sender(mail)} wrote:   \n\n{mail.text}\n")


PLAIN = [gmail, gmail_wrapped, gmail_signed, outlook("en"), outlook("de"), outlook("fr"),
         outlook("pl"), outlook("es"), outlook_original_message, outlook_german_original,
         outlook_mobile, apple_mail, apple_mac, zoho, iphone, iphone_german, iphone_french,
         iphone_spanish, android, thunderbird, thunderbird_original, thunderbird_german,
         gmail_polish, polish_user_wrote, gmail_french, gmail_dutch, gmail_italian,
         gmail_spanish, gmail_russian, yahoo]


# -- the HTML parts ---------------------------------------------------------------------

def _esc(text: str) -> str:
    return html_module.escape(text, quote=False)


def gmail_html(mail: Received, words: str) -> str:
    return (f'<div dir="ltr">{_esc(words)}</div><br><div class="gmail_quote"><div dir="ltr" '
            f'class="gmail_attr">On Mon, 7 Dec 2026 at 09:12, {_esc(_sender(mail))} wrote:'
            f'<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex">'
            f'{mail.html}</blockquote></div>')


def outlook_html(mail: Received, words: str) -> str:
    """Outlook desktop: Word's HTML, the header block in a bordered div, the mail inline."""
    block = _outlook_block(mail, "de").strip().split("\n")
    shown = "<br>".join(f"<b>{_esc(line.split(':', 1)[0])}:</b>{_esc(line.split(':', 1)[1])}"
                        for line in block)
    return ('<html><head><style>p.MsoNormal{margin:0cm;font-size:11.0pt}</style></head>'
            f'<body><div class="WordSection1"><p class="MsoNormal">{_esc(words)}</p>'
            '<p class="MsoNormal">&nbsp;</p><div style="border:none;border-top:solid #E1E1E1 '
            f'1.0pt;padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal">{shown}</p></div>'
            f'<p class="MsoNormal">&nbsp;</p>{mail.html}</div></body></html>')


def outlook_web_html(mail: Received, words: str) -> str:
    block = "<br>".join(_esc(line) for line in _outlook_block(mail, "pl").strip().split("\n"))
    return (f'<div dir="ltr">{_esc(words)}</div><div id="appendonsend"></div>'
            f'<hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg" dir="ltr">'
            f'<font face="Calibri">{block}</font></div><div>{mail.html}</div>')


def apple_html(mail: Received, words: str) -> str:
    """Apple Mail: the header line outside the cited blockquote (iOS), the mail inside."""
    return (f'<html><body dir="auto"><div dir="ltr">{_esc(words)}</div><div dir="ltr"><br>'
            f'On 7 Dec 2026, at 09:12, {_esc(_sender(mail))} wrote:<br><br></div>'
            f'<blockquote type="cite"><div dir="ltr">{mail.html}</div></blockquote>'
            '</body></html>')


def zoho_html(mail: Received, words: str) -> str:
    return (f'<div>{_esc(words)}<br></div><div><br></div><div id="Zm-_Id_-Sgn">---- On Mon, '
            f'07 Dec 2026 09:12:00 +0000 <b>{_esc(_sender(mail))}</b> wrote ----<br></div>'
            f'<div><br></div><blockquote style="margin:0px">{mail.html}</blockquote>')


def outlook_mobile_html(mail: Received, words: str) -> str:
    return (f'<div dir="ltr">{_esc(words)}</div><div dir="ltr"><br></div>'
            '<div id="ms-outlook-mobile-signature"><div dir="ltr">Get '
            '<a href="https://aka.ms/o0ukef">Outlook for iOS</a></div></div>'
            f'<hr style="display:inline-block;width:98%"><div>{_esc(_outlook_block(mail, "en"))}'
            f'</div><div>{mail.html}</div>')


HTML = [(gmail, gmail_html), (outlook("de"), outlook_html), (outlook("pl"), outlook_web_html),
        (apple_mail, apple_html), (zoho, zoho_html), (outlook_mobile, outlook_mobile_html)]


def _keyless(db, game_id: str) -> None:
    """No talk of the game carries an address, a reply address or a seat link."""
    for text in talk_rows(db, game_id):
        assert "@" not in text and "/play/" not in text and "play+" not in text, text


@pytest.mark.parametrize("client", PLAIN, ids=lambda c: c.__name__)
def test_say_as_a_client_writes_it_posts_exactly_the_new_words(client, game, ann, inbound,
                                                                deliver, db, smtp):
    mail = ann.waiting()
    assert mail.header("Reply-To") in mail.text or "/play/" in mail.text  # what is quoted
    inbound.send(reply(mail, client(mail, f"SAY {WORDS}"), None), mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == [WORDS]
    _keyless(db, game.game_id)
    [answer] = answers(smtp, ANN)
    assert f"Said at the table: “{WORDS}”." in " ".join(answer.text.split())
    assert db.actions(game.game_id) == [], "talk is no move"


@pytest.mark.parametrize("plain, html", HTML, ids=lambda c: c.__name__)
@pytest.mark.parametrize("parts", ["multipart", "html only"])
def test_say_in_html_as_a_client_writes_it_posts_exactly_the_new_words(
        plain, html, parts, game, ann, inbound, deliver, db):
    mail = ann.waiting()
    words = f"SAY {WORDS}"
    inbound.send(reply(mail, plain(mail, words) if parts == "multipart" else None,
                       html(mail, words)), mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == [WORDS]
    _keyless(db, game.game_id)


def test_a_say_whose_cut_fails_is_refused_in_words_never_posted_with_the_address(
        game, ann, inbound, deliver, db, smtp):
    """A quote header no client writes (so no cut finds it) still carries the address:
    the talk is refused in words, and nothing is said."""
    mail = ann.waiting()
    inbound.send(reply(mail, f"SAY {WORDS}\nyesterday {_sender(mail)} told us\n", None),
                 mail_from=ANN)
    deliver()
    assert talk_rows(db, game.game_id) == []
    [answer] = answers(smtp, ANN)
    assert "Nothing was said at the table: Your message holds a mail address." in \
        " ".join(answer.text.split())


def test_a_move_with_a_say_under_it_does_both(game, ann, inbound, deliver, db, smtp):
    mail = ann.waiting()
    move = menu_of(mail)[0][0]           # the round-start peek (R5), as the menu offers it
    inbound.send(reply(mail, gmail(mail, f"{move}\nSAY {WORDS}"), None), mail_from=ANN)
    deliver()
    assert [(seat, source) for _, seat, source in db.actions(game.game_id)] == [(0, "mail")]
    assert talk_rows(db, game.game_id) == [WORDS]
    assert answers(smtp, ANN) == [], "both done: the next mails show them, no answer needed"


@pytest.mark.parametrize("client", PLAIN, ids=lambda c: c.__name__)
def test_a_say_line_with_a_move_under_it_says_the_line_and_makes_the_move(
        game, ann, inbound, deliver, db, smtp, client):
    """Issue 51 item 3: "SAY gl" then the move on the next line said both lines at the
    table and made no move; the talk ends at the end of its line when a command follows."""
    mail = ann.waiting()
    move = menu_of(mail)[0][0]
    inbound.send(reply(mail, client(mail, f"SAY {WORDS}\n{move}"), None), mail_from=ANN)
    deliver()
    assert [(seat, source) for _, seat, source in db.actions(game.game_id)] == [(0, "mail")]
    assert talk_rows(db, game.game_id) == [WORDS]
    assert answers(smtp, ANN) == []


def test_a_move_whose_say_is_refused_is_made_and_the_answer_says_the_talk_was_not(
        game, ann, inbound, deliver, db, smtp):
    mail = ann.waiting()
    move = menu_of(mail)[0][0]
    inbound.send(reply(mail, iphone(mail, f"{move}\n\nSAY write to me at {ANN}"), None),
                 mail_from=ANN)
    deliver()
    assert [(seat, source) for _, seat, source in db.actions(game.game_id)] == [(0, "mail")]
    assert talk_rows(db, game.game_id) == []
    [answer] = answers(smtp, ANN)
    said = " ".join(answer.text.split())
    assert "Your move was made. Nothing was said at the table: Your message holds a mail " \
           "address." in said


def test_a_refused_move_with_a_say_under_it_says_the_words_and_why_the_move_was_not_made(
        game, ann, inbound, deliver, db, smtp):
    mail = ann.waiting()                  # it asks for the round-start peek (R5)
    inbound.send(reply(mail, gmail(mail, f"X 9\nSAY {WORDS}"), None), mail_from=ANN)
    deliver()
    assert db.actions(game.game_id) == []
    assert talk_rows(db, game.game_id) == [WORDS]
    [answer] = answers(smtp, ANN)
    said = " ".join(answer.text.split())
    assert ('Your reply said: "X 9" First look at two of your facedown cards (peek). '
            f"Said at the table: “{WORDS}”.") in said



@pytest.mark.parametrize("words", [
    "good luck everyone\nmy plan for round 2:\ntake every Simon",
    "On the other hand, 3 rounds to go!",
    "From now on I call early\nTo: nobody in particular",
    "- first, peek\n- then, pray",
])
def test_the_lines_a_person_writes_are_kept_whole(words):
    """The cut stops only at what a client writes: a colon, a "From", a date or a dash of
    the person's own are theirs (a cut only ever drops words, but not these)."""
    from app.inbound.own_words import own_text

    for gap in ("\n\n", "\n"):
        assert own_text(f"{words}{gap}On Mon, 7 Dec 2026 at 09:12, Bob <b@x.org> wrote:\n"
                        "> hi") == words


def test_a_header_wrapped_at_its_date_is_still_a_header():
    from app.inbound.own_words import own_text

    assert own_text("gg\nOn Mon, Dec 7, 2026 at\n9:12 AM Bob <\nb@x.org> wrote:\n> hi") == "gg"


def test_an_order_naming_a_card_that_is_not_there_is_answered_and_kept_nowhere(
        game, ann, inbound, deliver, db, smtp):
    """Issue 51 item 3, by reply: the answer says which card and how many there are."""
    mail = ann.waiting()
    inbound.send(reply(mail, gmail(mail, "ALWAYS PEEK 1 9"), None), mail_from=ANN)
    deliver()
    assert db.actions(game.game_id) == []
    [answer] = answers(smtp, ANN)
    said = " ".join(answer.text.split())
    # its first line says what is still asked, in the turn mail's words (issue 51 item 3:
    # it read "About your reply: your turn is still open: it is your turn (round 1)")
    assert said.startswith("About your reply · still your turn: "), said[:120]
    assert "turn is still open" not in said and "it is your turn" not in said[:120]
    assert re.search(r"“ALWAYS PEEK 1 9” names card #9, and your village has (\d) cards "
                     r"\(#1 to #\1\)\. Nothing was kept\.", said), said


@pytest.mark.parametrize("plain, html", HTML, ids=lambda c: c.__name__)
@pytest.mark.parametrize("parts", ["multipart", "html only"])
def test_a_say_line_with_a_move_under_it_in_html_says_the_line_and_makes_the_move(
        plain, html, parts, game, ann, inbound, deliver, db, smtp):
    """The same two lines written in an HTML client (Outlook's Word HTML, Gmail's divs,
    Apple Mail's blockquote), with and without a plain part."""
    mail = ann.waiting()
    move = menu_of(mail)[0][0]
    lines = f"SAY {WORDS}\n{move}"
    inbound.send(reply(mail, plain(mail, lines) if parts == "multipart" else None,
                       html(mail, lines)), mail_from=ANN)
    deliver()
    assert [(seat, source) for _, seat, source in db.actions(game.game_id)] == [(0, "mail")]
    assert talk_rows(db, game.game_id) == [WORDS]
