"""What the person wrote and sees in a reply (issue 45 item 5): the visible text of an
HTML part, and their own words above the quoted mail and the signature.

A reply carries much the person did not write: the mail it answers (quoted with ">",
or under a header line that every client writes in the reader's language: "On ...
wrote:", "Le ... a écrit :", "Am ... schrieb ...:", "W dniu ... napisał:", Zoho's
"---- On ... wrote ----", Outlook's "From: / Sent: / To: / Subject:" block and its
translations, "-----Original Message-----", a line of underscores), a signature ("-- ",
"Sent from my iPhone", "Get Outlook for iOS", "Von meinem iPhone gesendet"...), and in
HTML, text the client does not show at all (``display:none``, ``visibility:hidden``, the
``hidden`` attribute, zero-size fonts, ``mso-hide:all``, and the same set by a
``<style>`` rule). ``mail-parser-reply`` (``reading.newest_reply``) finds the quoted
history of a dozen languages; ``own_text`` is the stricter cut on top of it that talk
needs: talk is posted as it is, so it must stop at the first line the person did not
write (a header carries a name and an address, a quoted turn mail a seat link). A cut
only ever drops words: what is left is still checked by ``services.talk``, which
refuses a mail address or a seat link in words.

Commands are still read as before (``reading.command_of``: the first line that reads
as one, quoted lines skipped), since a command below the quote (a bottom-poster's) is
still the person's; ``visible`` says whether a line of the plain part is one the person
saw in the HTML part their client showed.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Callable

# -- HTML as the person sees it -----------------------------------------------------

#: Classes and ids of the quoted mail and of signatures, by client (Gmail, Thunderbird,
#: Outlook, Yahoo, Apple Mail...): their blocks are not the person's new words.
_QUOTED = re.compile(r"gmail_quote|gmail_signature|moz-cite|moz-signature|"
                     r"OutlookMessageHeader|divRplyFwdMsg|appendonsend|"
                     r"ms-outlook-mobile-signature|yahoo_quoted|reply-intro|zmail_extra|"
                     r"AppleOriginalContents|protonmail_quote", re.I)
_VOID = frozenset({"br", "img", "hr", "meta", "input", "link", "col", "area", "base",
                   "wbr", "source", "track", "embed", "param"})
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_SIZE = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))\s*([a-z%]*)$")
#: Font sizes below these are no text anyone reads (per unit; 1 em = 16 px).
_SMALLEST = {"": 1.0, "px": 1.0, "pt": 0.75, "em": 1 / 16, "rem": 1 / 16, "%": 100 / 16,
             "ex": 1 / 8, "ch": 1 / 8, "q": 1.0, "mm": 0.25, "cm": 0.025, "in": 0.01,
             "pc": 1 / 16, "vw": 0.01, "vh": 0.01, "vmin": 0.01, "vmax": 0.01}


def _zero(value: str) -> bool:
    """A CSS length no one can read text at ("0", "0px", "0.0pt", "0.5px", "0em")."""
    found = _SIZE.match(value.strip())
    if found is None:
        return False
    number, unit = float(found.group(1)), found.group(2)
    return number <= 0 or number < _SMALLEST.get(unit, 0.0)


def hides(style: str) -> bool:
    """Whether CSS declarations make their element's text invisible: ``display:none``,
    ``visibility:hidden``, ``mso-hide:all`` (Outlook's own), a zero-size font, no
    opacity, or a zero height (or width) with its overflow hidden."""
    declared: dict[str, str] = {}
    for declaration in _CSS_COMMENT.sub("", style or "").split(";"):
        name, colon, value = declaration.partition(":")
        if colon:
            value = value.lower().replace("!important", "").strip()
            declared[name.strip().lower()] = value
    if declared.get("display") == "none" or declared.get("mso-hide") == "all":
        return True
    if declared.get("visibility") in ("hidden", "collapse"):
        return True
    if "font-size" in declared and _zero(declared["font-size"]):
        return True
    if "opacity" in declared and _zero(declared["opacity"] + "px"):
        return True
    clipped = declared.get("overflow", "").startswith(("hidden", "clip"))
    return clipped and any(_zero(declared[name]) for name in (
        "height", "max-height", "width", "max-width") if name in declared)


_RULE = re.compile(r"([^{}]*)\{([^{}]*)\}")


def _hiding_selectors(css: str) -> set[str]:
    """The simple selectors a ``<style>`` block hides (``.cls``, ``#id``, ``tag``, of the
    last part of each selector): the blocks they name are not read, wherever they stand
    (a rule under an ``@media`` counts too: better unread than read unseen)."""
    found: set[str] = set()
    css = _CSS_COMMENT.sub("", css)
    css = re.sub(r"@[a-z-]+[^{;]*\{", "", css, flags=re.I)   # open @media and the like
    for selectors, body in _RULE.findall(css):
        if not hides(body):
            continue
        for selector in selectors.split(","):
            last = (selector.strip().split() or [""])[-1]
            last = re.split(r"[>+~]", last)[-1]
            for part in re.findall(r"[.#]?[\w-]+", last.split(":")[0]):
                found.add(part.lower())
    return found


class _HtmlText(HTMLParser):
    """HTML to lines of text, leaving out what the reader does not see as the person's
    words: quoted blocks, scripts, styles and every element its client hides."""

    BREAKS = {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table",
              "pre", "blockquote", "hr", "ul", "ol", "dd", "dt"}
    SKIPPED = {"blockquote", "script", "style", "head", "title", "template", "object",
               "iframe", "svg"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: list[str] = []
        self.hidden: set[str] = set()
        self.in_style = False
        self.style_text: list[str] = []

    def _hidden(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        values = {name.lower(): value or "" for name, value in attrs}
        if "hidden" in values or hides(values.get("style", "")):
            return True
        if values.get("type", "").lower() == "hidden":
            return True
        if not self.hidden:
            return False
        names = {tag.lower()} | {f".{c.lower()}" for c in values.get("class", "").split()}
        if values.get("id"):
            names.add(f"#{values['id'].lower()}")
        return bool(names & self.hidden)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "style":
            self.in_style = True
        classes = " ".join(value or "" for name, value in attrs if name in ("class", "id"))
        quoted = tag == "blockquote" or tag == "div" and bool(_QUOTED.search(classes))
        if self.skipping or tag in self.SKIPPED or quoted or self._hidden(tag, attrs):
            if quoted and not self.skipping:
                self.parts.append("\n>\n")   # the quote's place: the person's words end
            if tag not in _VOID:
                self.skipping.append(tag)
            return
        if tag in self.BREAKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:   # "<div hidden/>" opens a div, as a browser reads it
            self.handle_starttag(tag, attrs)
        elif not self.skipping and tag in self.BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "style" and self.in_style:
            self.in_style = False
            self.hidden |= _hiding_selectors("".join(self.style_text))
            self.style_text = []
        if self.skipping:
            if tag in self.skipping:
                while self.skipping and self.skipping.pop() != tag:
                    pass
            return
        if tag in self.BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self.style_text.append(data)
        if not self.skipping:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The text an HTML part shows, one line per block, without anything its client hides
    (issue 45 item 5); a quoted block (or a signature's) leaves one line ">" in its place,
    where the person's own words end, as a plain reply's quote does."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(lines)


def _words(text: str) -> str:
    """Text as a run of lower-case words (letters and digits only), to compare a plain
    line with what the HTML showed whatever the wrapping and the markup."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def visible(html_text: str) -> Callable[[str], bool]:
    """Whether a line of the plain part is among what the HTML part shows (``html_text``,
    from ``html_to_text``): a client shows the HTML, so a plain line it hid is not read."""
    shown = f" {_words(html_text)} "
    return lambda line: f" {_words(line)} " in shown if _words(line) else True


# -- the person's own words --------------------------------------------------------------

#: The verbs of a quote header ("... wrote:"), in the languages clients write them.
_VERBS = (r"wrote|writes|a\s+écrit|a\s+ecrit|schrieb|escribió|escribio|ha\s+scritto|schreef|"
          r"napisał\(a\)|napisała|napisał|napisal|pisze|nadesłał|escreveu|skrev|kirjoitti|"
          r"napsal\(a\)|napsal|пишет|написал\(а\)|написала|написал|写道|yazdı|έγραψε|írta|"
          r"a\s+scris|kirjutas|rašė|rakstīja|napisao|je\s+napisal|skrifaði")
#: A header line ends with a colon (Zoho's: with dashes), and shortly before that end it
#: has a verb (or an address in angle brackets, as Russian and Japanese Gmail write it
#: with no verb at all).
_HEADER_END = re.compile(r"(?:[:：]|\s-{2,})\s*$")
_HEADER_SAYS = re.compile(r"(?:^|[\s,>)])(?:" + _VERBS + r")|<[^<>\s]+@[^<>\s]+>", re.I)
#: How far before the end the verb may stand (the name and address after "schrieb").
_AFTER_VERB = 200
#: The longest quote header looked for (a date, a name, an address and the verb).
_LONGEST_HEADER = 600
#: How a header line begins, when a client wrapped it over two or three lines (its
#: words; or a date's digit, which a wrapped line's rest may begin with too).
_HEADER_WORD = re.compile(r"^\s*(?:-{2,}\s*)?(?:on|le|am|el|il|op|em|w\s+dniu|dnia|dne|den|"
                          r"på)\b", re.I)
_HEADER_START = re.compile(_HEADER_WORD.pattern + r"|^\s*\d", re.I)
#: "From:" and its translations; the other lines of such a header block.
_FROM = re.compile(r"^\W{0,3}(?:from|von|de|od|van|da|från|fra|frá|от|lähettäjä|feladó|"
                   r"kimden|di|expéditeur|remetente|送信者|发件人|寄件者|보낸\s?사람)\s*\**\s*[:：]",
                   re.I)
_FIELD = re.compile(r"^\W{0,3}(?:sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|"
                    r"à|a|objet|wysłano|wysłane|do|temat|data|dw|verzonden|aan|onderwerp|"
                    r"inviato|oggetto|enviado|enviada|fecha|para|asunto|assunto|skickat|till|"
                    r"ämne|sendt|til|emne|отправлено|кому|тема|дата|lähetetty|vastaanottaja|"
                    r"aihe|elküldve|címzett|tárgy|gönderildi|kime|konu|odesláno|komu|předmět|"
                    r"件名|宛先|日時|发送时间|收件人|主题|보낸\s?날짜|받는\s?사람|제목)\s*\**\s*[:：]",
                    re.I)
#: "-----Original Message-----", "-------- Original Message --------", "---------- Forwarded
#: message ---------", "-----Ursprüngliche Nachricht-----"; Outlook's line of underscores.
_SEPARATOR = re.compile(r"^\s*(?:-{2,}\s*[^-\n]{2,100}?\s*-{2,}|_{3,}|-{5,}|"
                        r"begin forwarded message\s*:|début du message réexpédié\s*:|"
                        r"anfang der weitergeleiteten nachricht\s*:)\s*$", re.I)
#: A signature's first line: the "-- " delimiter, or a phone's or a client's line.
_SIGNATURE = re.compile(
    r"^\s*(?:--|__|—)\s*$|^\W{0,2}(?:sent\s+(?:from|with|via|using)|get\s+outlook\s+for|"
    r"download\s+outlook\s+for|envoyé\s+(?:de|depuis|avec|à\s+partir)|von\s+meinem|"
    r"gesendet\s+(?:von|mit|vom)|enviado\s+(?:desde|do|de)|inviato\s+(?:da|dal|con)|"
    r"verzonden\s+(?:vanaf|met|van)|verstuurd\s+(?:vanaf|met|van)|wysłane\s+z|wysłano\s+z|"
    r"skickat\s+från|sendt\s+fra|lähetetty|отправлено\s+(?:с|из)|odesláno\s+z|"
    r"enviat\s+des)\b|^\s*(?:从我的|iphoneから送信)", re.I)


def _is_header(text: str) -> bool:
    """Whether one (joined) line is a quote header: its end, a verb or an address near
    it, and a date's digit or an address somewhere."""
    if not text.rstrip().endswith((":", "：", "-")):
        return False
    end = _HEADER_END.search(text)
    return end is not None and bool(re.search(r"\d|@", text)) and bool(
        _HEADER_SAYS.search(text[max(0, end.start() - _AFTER_VERB):end.start()]))


def _header_at(lines: list[str], index: int) -> bool:
    """Whether the quoted mail's header starts at ``lines[index]`` (a line of its own,
    or wrapped over the next one or two)."""
    line = lines[index]
    if not line.strip():
        return False
    for count in (1, 2, 3):
        if count > 1:
            added = lines[index + count - 1] if index + count - 1 < len(lines) else ""
            if not _HEADER_START.match(line) or not added.strip() or _HEADER_WORD.match(added):
                break   # a wrapped header goes on in the next line, not in a new one
        joined = " ".join(part.strip() for part in lines[index:index + count])
        if len(joined) > _LONGEST_HEADER:
            break   # (no client writes one this long; the regex need not look)
        if _is_header(joined):
            return True
    if _FROM.match(line):
        return "@" in line or any(_FIELD.match(other) for other in lines[index + 1:index + 5])
    return False


def ends_own_words(lines: list[str], index: int) -> bool:
    """Whether ``lines[index]`` is where the person's own words end: a quoted line, the
    quoted mail's header or separator, or a signature."""
    line = lines[index]
    return (line.lstrip().startswith(">") or bool(_SEPARATOR.match(line))
            or bool(_SIGNATURE.match(line)) or _header_at(lines, index))


def own_text(text: str) -> str:
    """The lines of ``text`` above the first line the person did not write (a quote, a
    quote header in any of the clients' languages, a signature), right-stripped."""
    lines = str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    for index in range(len(lines)):
        if ends_own_words(lines, index):
            break
        kept.append(lines[index].rstrip())
    return "\n".join(kept).strip("\n")
