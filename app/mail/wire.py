"""A message written as it goes on the wire: its bytes, in one pass, and its envelope.

Why by hand, when the standard library's ``email`` package writes messages: it parses
every header value it is given into a structured header and folds it again when the
message is flattened, and sets each body through its content manager. For one outbox
row that was 0.6 ms to build and 0.25 ms to flatten, more than the SMTP exchange
itself, in the sender's one thread (issue 30 item 5: mail through the outbox at 0.3x
raw ``smtplib``). What we write is small and known: a dozen headers, of which only
the names and the subject are typed by people, and one or two UTF-8 text parts. So
this module writes exactly that, with the rules it needs and nothing else:

- RFC 5322: CRLF lines; a header folded at whitespace to lines of at most 78
  characters where its words allow (never more than 998); an address's display name
  an atom phrase, else a quoted string.
- RFC 2047: a word of a subject that is not ASCII (or that looks like an encoded
  word, ``=?``) is written as encoded words, ``=?utf-8?q?...?=`` of at most 75
  characters, runs of such words together (the space between two encoded words is
  not shown); a display name that is not ASCII, as one encoded word.
- RFC 2045/2046: each part ``text/<subtype>; charset="utf-8"``, 7bit when it is ASCII
  with lines of at most 76, else quoted-printable (``binascii.b2a_qp``: lines of at
  most 76 on the wire, RFC 2045 section 6.7); two parts in ``multipart/alternative``.

What a reader sees is checked by reading it back with the standard library's parser
(``WireMessage.parsed``: ``tests/mail/test_wire.py`` with hostile names, subjects and
bodies, ``tests/summary/test_mime_lines.py`` over every kind of mail). ``app.mail.headers.build_message`` decides which headers a mail has.
"""
from __future__ import annotations

import binascii
import re
import secrets
import string
from dataclasses import dataclass
from email import message_from_string
from email import policy as email_policy
from email.message import EmailMessage
from functools import cached_property

#: Where a header is folded when its words allow (RFC 5322 section 2.1.1's SHOULD).
LINE = 78
#: The longest header line there may be (RFC 5322's MUST).
LONGEST_LINE = 998
#: The longest line of a 7bit part, as of an encoded one (RFC 2045 section 6.7).
BODY_LINE = 76
#: What an address's display name may hold unquoted (RFC 5322 atext), beside spaces.
ATEXT = frozenset(string.ascii_letters + string.digits + "!#$%&'*+-/=?^_`{|}~ ")
#: What an encoded word in a phrase may hold unencoded (RFC 2047 section 5 (3)).
Q_PLAIN = frozenset(string.ascii_letters + string.digits + "!*+-/")
_WORD_START, _WORD_END = "=?utf-8?q?", "?="
#: An encoded word is at most 75 characters (RFC 2047 section 2).
_WORD_ROOM = 75 - len(_WORD_START) - len(_WORD_END)
#: An addr-spec with nothing in it that could end it early or inject: no space, no
#: line break, no bracket, quote, comma or second @ (addresses are checked whole
#: when they are stored: ``app.mail.addresses``); a UTF-8 local part passes (RFC 6531),
#: and so does an address literal for a domain (``post@[192.0.2.1]``, a MAIL_FROM).
_ADDRESS = re.compile(r'[^\s<>()\[\]\\,;:@"]+@(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?'
                      r'|\[(?:IPv6:)?[0-9A-Fa-f:.]+\])')


@dataclass(frozen=True)
class WireMessage:
    """A message ready to leave: its bytes (CRLF lines) and its envelope (``mail_from``,
    the From's address; ``to``, the one recipient; ``utf8``, whether an address needs
    SMTPUTF8). ``parsed``: the message as a receiving program reads it."""

    raw: bytes
    mail_from: str
    to: str
    utf8: bool

    @cached_property
    def parsed(self) -> EmailMessage:
        """Read back by the standard library's parser, its lines ending in a newline as
        a mail store keeps them (the parser leaves a CR in every line of a body)."""
        text = self.raw.decode("utf-8").replace("\r\n", "\n")  # (a UTF-8 mailbox's too)
        return message_from_string(text, policy=email_policy.default)


def _q(char: str) -> str:
    """One character, Q-encoded (RFC 2047 section 4.2, in a phrase's stricter form)."""
    if char in Q_PLAIN:
        return char
    if char == " ":
        return "_"
    return "".join(f"={byte:02X}" for byte in char.encode("utf-8"))


def _word(pieces: list[str]) -> str:
    return _WORD_START + "".join(pieces) + _WORD_END


def encoded_words(text: str) -> list[str]:
    """``text`` as RFC 2047 Q-encoded words of UTF-8, each at most 75 characters, split
    between characters (never inside one character's bytes)."""
    words: list[str] = []
    pieces: list[str] = []
    used = 0
    for char in text:
        piece = _q(char)
        if pieces and used + len(piece) > _WORD_ROOM:
            words.append(_word(pieces))
            pieces, used = [], 0
        pieces.append(piece)
        used += len(piece)
    if pieces:
        words.append(_word(pieces))
    return words


def _needs_encoding(word: str) -> bool:
    return not word.isascii() or "=?" in word or not word.isprintable()


def folded(name: str, tokens: list[str]) -> str:
    """``Name: token token ...``, a new line (CRLF and a space) before a token that would
    take its line past 78 characters; a header longer than 998 on one line raises."""
    lines: list[str] = []
    line = name + ":"
    for number, token in enumerate(tokens):
        if number and len(line) + 1 + len(token) > LINE:
            lines.append(line)
            line = " " + token
        else:
            line += " " + token
    lines.append(line)
    if any(len(each) > LONGEST_LINE for each in lines):
        raise ValueError(f"the {name} header has a word longer than a header line may be")
    return "\r\n".join(lines)


def unstructured(name: str, value: str) -> str:
    """A header of free text (Subject): its ASCII words as they are, each run of words
    that are not, encoded (RFC 2047), folded (``folded``)."""
    tokens: list[str] = []
    run: list[str] = []
    for word in value.split(" "):
        if _needs_encoding(word) or (run and not word):
            run.append(word)
            continue
        if run:
            tokens.extend(encoded_words(" ".join(run)))
            run = []
        tokens.append(word)
    if run:
        tokens.extend(encoded_words(" ".join(run)))
    return folded(name, tokens)


def mailbox(name: str, display_name: str, address: str) -> str:
    """An address header: ``Name: Display Name <address>`` (the name an atom phrase, a
    quoted string when it holds other ASCII, encoded words when it is not ASCII), or
    the bare address without a name. An address that is not one raises ValueError."""
    if not _ADDRESS.fullmatch(address):
        raise ValueError(f"not an address that can be written in a header: {address!r}")
    if not display_name:
        return folded(name, [address])
    if _needs_encoding(display_name):
        # one encoded word, however long (a name is at most 60 characters: ``compose.
        # NAME_LIMIT``), as the standard library writes it: its parser, unlike RFC 2047,
        # keeps the space between two encoded words of a phrase, inside the name
        words = [_word([_q(char) for char in display_name])]
    elif set(display_name) <= ATEXT:
        words = display_name.split(" ")
    else:
        escaped = display_name.replace("\\", "\\\\").replace('"', '\\"')
        words = [f'"{escaped}"']
    return folded(name, [*words, f"<{address}>"])


def plain(name: str, value: str) -> str:
    """A header of ours written as it is (Message-ID, List-Unsubscribe...): ASCII, one
    line; anything else raises ValueError rather than be folded into another meaning."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"line break in {name}")
    if not value.isascii() or not value.isprintable():
        raise ValueError(f"{name} is not plain ASCII text")
    return folded(name, [value])


def text_part(content: str, subtype: str) -> bytes:
    """One text part, headers and body: 7bit when ASCII with short lines, else
    quoted-printable; its lines end in CRLF, and it ends with one."""
    text = content.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    if text.isascii() and _short_printable(text):
        encoding, body = "7bit", text.encode("ascii")
    else:
        encoding, body = "quoted-printable", _quoted_printable(text.encode("utf-8"))
    head = (f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
            f"Content-Transfer-Encoding: {encoding}\r\n\r\n")
    return head.encode("ascii") + body.replace(b"\n", b"\r\n")


def _quoted_printable(data: bytes) -> bytes:
    """``binascii.b2a_qp``, with its one long line cut: a line whose last character is
    whitespace, encoded (``=20``) at the limit, comes out 77 long; it is cut before
    that escape with a soft break (RFC 2045 section 6.7 (5))."""
    lines = binascii.b2a_qp(data, istext=True).split(b"\n")
    kept: list[bytes] = []
    for line in lines:
        while len(line) > BODY_LINE:
            cut = BODY_LINE - 1
            if b"=" in line[cut - 2:cut]:  # (never inside an =XX escape)
                cut -= 2 - line[cut - 2:cut].index(b"=")
            kept.append(line[:cut] + b"=")
            line = line[cut:]
        kept.append(line)
    return b"\n".join(kept)


def _short_printable(text: str) -> bool:
    """Every line at most ``BODY_LINE`` long, and nothing but printable characters and
    tabs on it (a control character goes quoted-printable)."""
    return all(len(line) <= BODY_LINE and line.replace("\t", " ").isprintable()
               for line in text.split("\n"))


def body(text: str, html: str | None) -> bytes:
    """The MIME headers and body: the text alone, or text and HTML as alternatives."""
    if html is None:
        return b"MIME-Version: 1.0\r\n" + text_part(text, "plain")
    parts = (text_part(text, "plain"), text_part(html, "html"))
    boundary = "=_" + secrets.token_hex(16)
    while any(boundary.encode("ascii") in part for part in parts):  # (never, in practice)
        boundary = "=_" + secrets.token_hex(16)
    mark = b"--" + boundary.encode("ascii")
    return (b"MIME-Version: 1.0\r\n"
            + f'Content-Type: multipart/alternative;\r\n boundary="{boundary}"\r\n\r\n'.encode()
            + mark + b"\r\n" + parts[0] + b"\r\n" + mark + b"\r\n" + parts[1]
            + b"\r\n" + mark + b"--\r\n")
