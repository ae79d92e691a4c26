"""Getting what a person wrote out of a real mail, and telling people from machines.

A reply from a phone or a desktop client carries much more than the command: quoted
history (in the reader's language), a signature, an HTML part only, a "Sent from my
phone". ``command_of`` takes the newest reply's text (HTML reduced to text without its
quoted blocks; quoted history and signatures cut by ``mail-parser-reply``), then the
first line that reads as a command wins. ``machine_reason`` says why a message must
never be answered (auto-replies, bounces, list mail), so two robots cannot loop.

``read`` does all of that at once and turns any failure into ``Unreadable`` (issue 17
item 5): reading is a pure function of the bytes, so a message whose From does not parse
fails the same way every time and is finished at once instead of retried for ever.
``authentication`` reads the operator's MTA's ``Authentication-Results`` (RFC 8601).
"""
from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass, field, replace
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Callable

from mailparser_reply import EmailReplyParser
from mailparser_reply.constants import MAIL_LANGUAGES

from app.inbound import own_words
from app.mail import commands
from app.mail.commands import Parsed, parse

#: How many lines of the newest reply are searched for a command.
LINES_LOOKED_AT = 12
_PARSER = EmailReplyParser(languages=[code for code in MAIL_LANGUAGES if len(code) == 2])


def message_of(raw: bytes) -> EmailMessage:
    """The parsed message (never raises on malformed mail: headers stay defects)."""
    return email.message_from_bytes(raw, policy=email.policy.default)


# -- machines ----------------------------------------------------------------------

def machine_reason(message: EmailMessage, envelope_from: str | None) -> str | None:
    """Why no person wrote this (no answer may go back), or None for a person's mail."""
    if envelope_from is not None and envelope_from.strip() in ("", "<>"):
        return "bounce (empty return path)"
    if str(message.get("Return-Path", "")).strip() == "<>":
        return "bounce (empty return path)"
    if message.get_content_type() == "multipart/report":
        return "bounce (delivery report)"
    auto = str(message.get("Auto-Submitted", "no")).strip().lower()
    if auto and not auto.startswith("no"):
        return f"auto-submitted ({auto[:40]})"
    if message.get("X-Autoreply") or message.get("X-Autorespond"):
        return "auto-reply"
    precedence = str(message.get("Precedence", "")).strip().lower()
    if precedence in ("bulk", "list", "junk", "auto_reply"):
        return f"precedence {precedence}"
    if message.get("List-Id") or message.get("List-Post") or message.get("List-Unsubscribe"):
        return "mailing list"
    local = sender(message).split("@")[0]
    if local in ("mailer-daemon", "postmaster", "noreply", "no-reply"):
        return f"sent by {local}"
    return None


# -- addresses ----------------------------------------------------------------------

def normalise_address(value: str) -> str:
    """An address for comparing: no display name, no spaces, lower case, IDNA domain."""
    addresses = getaddresses([str(value or "")])
    if not addresses:
        return ""
    address = addresses[0][1].strip().strip("<>").rstrip(".")
    if "@" not in address:
        return address.casefold()
    local, domain = address.rsplit("@", 1)
    try:
        domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        pass
    return f"{local.casefold()}@{domain.lower().rstrip('.')}"


def sender(message: EmailMessage) -> str:
    """The From address, normalised (one address only: several means none)."""
    values = message.get_all("From") or []
    pairs = getaddresses([str(v) for v in values])
    if len(pairs) != 1:
        return ""
    return normalise_address(pairs[0][1])


def addressed_to(message: EmailMessage, envelope: list[str]) -> list[str]:
    """Every recipient: the envelope's first, then the headers relays keep."""
    found = [normalise_address(a) for a in envelope]
    for name in ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc"):
        for value in message.get_all(name) or []:
            found += [normalise_address(a) for _, a in getaddresses([str(value)])]
    seen: list[str] = []
    for address in found:
        if address and address not in seen:
            seen.append(address)
    return seen


# -- the text ---------------------------------------------------------------------

#: The visible text of an HTML part (``own_words.html_to_text``), kept here by its name.
html_to_text = own_words.html_to_text


def _part(message: EmailMessage, kind: str) -> EmailMessage | None:
    try:
        part = message.get_body(preferencelist=(kind,))
    except (KeyError, LookupError):
        return None
    return part if isinstance(part, EmailMessage) else None


def _content(part: EmailMessage) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, AssertionError):
        payload = part.get_payload(decode=True) or b""
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    return content if isinstance(content, str) else ""


def body_text(message: EmailMessage) -> str:
    """The message's own text: the plain part, else the HTML part as text (as shown)."""
    return read_body(message)[0]


def read_body(message: EmailMessage) -> tuple[str, Callable[[str], bool]]:
    """The message's text (the plain part, else the HTML part as its client shows it), and
    whether a line of it is one the person saw: with both parts, a client shows the
    HTML, so a plain line whose words the HTML hid (issue 45 item 5: ``display:none``
    in an HTML part, kept by the plain one a client made of it) is not read."""
    plain, html = _part(message, "plain"), _part(message, "html")
    if plain is None and html is None:
        return "", _everything
    if plain is None:
        assert html is not None
        return html_to_text(_content(html)), _everything
    text = _content(plain)
    if html is None:
        return text, _everything
    return text, own_words.visible(html_to_text(_content(html)))


def _everything(line: str) -> bool:
    return True


def newest_reply(text: str) -> str:
    """The text above the quoted history, without signatures and disclaimers."""
    text = text.replace("\r\n", "\n")
    try:
        reply = _PARSER.parse_reply(text)
    except Exception:  # noqa: BLE001 - a library hiccup must not lose the move: use it all
        reply = None
    return reply if reply is not None else text


def command_of(message: EmailMessage) -> Parsed:
    """The first line of the newest reply that reads as a command (help counts); when none
    does, the first line there, with why it was not understood. A reply that starts with
    ``SAY`` talks to the table (``commands.say_reply``, issue 20); a command with a SAY
    line under or above it carries that talk too (``also_say``: both are done, or the
    answer says which was not). Talk is the person's own words only (no quote, header,
    signature, nor a line their client hid). A line over a limit is refused whole."""
    text, shown = read_body(message)
    reply = newest_reply(text)
    own = _seen(own_words.own_text(reply), shown)
    talk = commands.say_reply(own)
    if talk is not None:
        return _say_then_command(own, talk)
    lines = reply.split("\n")
    looked_at = 0
    first: Parsed | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped in ("--", "-- ", "__"):
            break  # a signature starts
        if not stripped or stripped.startswith(">") or not shown(stripped):
            continue
        parsed = parse(stripped)
        if parsed.limit:
            return parsed
        if parsed.readable:
            return _with_talk(parsed, lines[index + 1:], shown)
        first = first or parsed
        looked_at += 1
        if looked_at >= LINES_LOOKED_AT:
            break
    if first is None:
        subject = str(message.get("Subject", ""))
        from_subject = parse(re.sub(r"^\s*((re|aw|sv|fw|fwd|tr|wg)\s*:\s*)+", "", subject,
                                    flags=re.I)) if len(subject) < 40 else None
        if from_subject is not None and from_subject.action is not None:
            return from_subject  # "D" typed into the subject of an empty mail
        return Parsed("", problem="The reply has no text we could read.")
    return first


def _say_then_command(own: str, talk: Parsed) -> Parsed:
    """A SAY line with a command on a line under it: the talk ends with its line and the
    command is played with it, as ``also_say`` (issue 51 item 3: the command was said)."""
    lines = [line.strip() for line in own.split("\n") if line.strip()]
    parsed = next((p for p in map(parse, lines[1:]) if p.limit or p.readable), None)
    if parsed is None:
        return talk
    first = commands.say_reply(lines[0])
    return replace(parsed, also_say=first.say if first is not None else None)


def _seen(text: str, shown: Callable[[str], bool]) -> str:
    return "\n".join(line for line in text.split("\n") if shown(line))


def _with_talk(parsed: Parsed, after: list[str], shown: Callable[[str], bool]) -> Parsed:
    """``parsed`` with the talk of a ``SAY`` line below it in the person's own words."""
    own = _seen(own_words.own_text("\n".join(after)), shown).split("\n")
    start = next((i for i, line in enumerate(own) if commands.said(line) is not None), None)
    if start is None:
        return parsed
    talk = commands.say_reply("\n".join(own[start:]))
    return replace(parsed, also_say=talk.say) if talk is not None else parsed


# -- all of it, once (issue 17 item 5) ------------------------------------------------

class Unreadable(Exception):
    """A message that cannot be read; the same bytes fail the same way every time."""


@dataclass(frozen=True)
class Reading:
    """Everything the worker needs from one message, read before anything is decided."""

    message: EmailMessage
    machine: str | None
    sender: str
    recipients: list[str]
    command: Parsed
    #: The results of the trusted Authentication-Results headers (None: none trusted).
    authentication: list[AuthResult] | None = None


def read(raw: bytes, envelope_from: str | None, envelope_to: list[str], *,
         authserv_id: str | None = None) -> Reading:
    """Read one message whole, or raise ``Unreadable`` saying which part would not read.

    Every exception counts (the email package raises ValueError, IndexError,
    AttributeError, HeaderParseError... on hostile headers): nothing here
    touches the database or the network, so none of them is worth a retry.
    """
    step = "the message does not parse"
    try:
        message = message_of(raw)
        step = "the From header does not parse"
        from_address = sender(message)
        step = "a recipient header does not parse"
        recipients = addressed_to(message, envelope_to)
        step = "a header does not parse"
        machine = machine_reason(message, envelope_from)
        step = "the text cannot be read"
        command = command_of(message)
        step = "the Authentication-Results header does not parse"
        results = authentication(message, authserv_id) if authserv_id else None
    except Exception as exc:  # noqa: BLE001 - see the docstring: permanent by nature
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise Unreadable(f"{step} ({detail})"[:240]) from exc
    return Reading(message, machine, from_address, recipients, command, results)


# -- Authentication-Results (RFC 8601; issue 17 item 6) ---------------------------------

@dataclass(frozen=True)
class AuthResult:
    """One ``method=result`` of an Authentication-Results header, with its properties."""

    method: str
    result: str
    properties: dict[str, str] = field(default_factory=dict)


def _without_comments(value: str) -> str:
    """The header value without its (possibly nested) comments, quoted strings kept."""
    out: list[str] = []
    depth = 0
    quoted = escaped = False
    for char in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(char)
            continue
        if char == "\\":
            escaped = True
            if depth == 0:
                out.append(char)
            continue
        if quoted:
            quoted = char != '"'
            out.append(char)
        elif char == '"' and depth == 0:
            quoted = True
            out.append(char)
        elif char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


_PAIR = re.compile(r'([A-Za-z0-9_.\-/]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s;]*)')


def parse_authentication_results(value: str) -> tuple[str, list[AuthResult]]:
    """``(authserv-id, results)`` of one header value (RFC 8601 section 2.2).

    ``mx.example.org 1; dmarc=pass header.from=example.org; dkim=pass
    header.d=example.org`` gives the id ``mx.example.org`` and two results;
    ``none`` (nothing was checked) gives none.
    """
    segments = _without_comments(" ".join(str(value).split())).split(";")
    authserv_id = (segments[0].split() or [""])[0].strip().lower()
    results: list[AuthResult] = []
    for segment in segments[1:]:
        pairs = [(name.lower(), text.strip('"')) for name, text in _PAIR.findall(segment)]
        if not pairs:
            continue
        (method, result), props = pairs[0], dict(pairs[1:])
        results.append(AuthResult(method.split("/")[0], result.lower(), props))
    return authserv_id, results


def authentication(message: EmailMessage, authserv_id: str) -> list[AuthResult] | None:
    """The results of the topmost Authentication-Results header(s) carrying ``authserv_id``.

    The operator's MTA adds its header on top; anything below it came with the
    message and may be the sender's own invention, even with our id (RFC 8601
    section 5 asks the MTA to delete those; we do not count on it). So only the
    first header with our id is taken, with the ones right after it that carry
    our id too (an MTA whose DKIM, SPF and DMARC checks each add one); the run
    ends at the first header of another id. None when no header carries our id.
    """
    wanted = authserv_id.strip().lower()
    taken: list[AuthResult] | None = None
    for name, value in message.raw_items():
        if name.lower() != "authentication-results":
            continue
        found, results = parse_authentication_results(str(value))
        if found == wanted:
            taken = (taken or []) + results
        elif taken is not None:
            break
    return taken


def _aligned(domain: str, other: str) -> bool:
    """Relaxed alignment without a public suffix list: the same domain, or one inside the other."""
    domain, other = domain.lower().rstrip("."), other.lower().rstrip(".").split("@")[-1]
    return bool(other) and (domain == other or domain.endswith("." + other)
                            or other.endswith("." + domain))


def authenticated(results: list[AuthResult], domain: str) -> tuple[bool, str]:
    """Whether the trusted results vouch for mail from ``domain``, and the verdict in short.

    DMARC decides where it was checked for that domain (pass or fail); without
    a DMARC verdict (``none``: the domain publishes no policy), a DKIM pass with
    ``header.d`` aligned to the domain, or else an SPF pass whose
    ``smtp.mailfrom`` is aligned, will do. Anything else is not vouched for.
    """
    for result in results:
        if result.method == "dmarc" and _aligned(domain, result.properties.get(
                "header.from", domain)):
            if result.result == "pass":
                return True, "dmarc=pass"
            if result.result == "fail":
                return False, "dmarc=fail"
            break
    for result in results:
        if result.method == "dkim" and result.result == "pass" and _aligned(
                domain, result.properties.get("header.d", "")):
            return True, f"dkim=pass header.d={result.properties['header.d']}"
    for result in results:
        if result.method == "spf" and result.result == "pass" and _aligned(
                domain, result.properties.get("smtp.mailfrom", "")):
            return True, "spf=pass"
    seen = ", ".join(f"{r.method}={r.result}" for r in results) or "no results"
    return False, f"not vouched for ({seen})"[:120]
