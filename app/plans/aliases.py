"""The reply commands in German and Japanese (issue 50): one grammar, many words.

The grammar of replies is English (``app.mail.commands``, ``app.plans.grammar``), and
English always works. Every game also reads the German and the Japanese words for the
same commands, whatever its readers' language: ``english`` turns a line into the
English command words before it is parsed (a table of aliases, not a second parser),
so "ZIEHEN", "引く" and "HIKU" are "draw", "BEHALTEN AUF 2 WENN 3 ODER WENIGER" is "keep
at 2 if 3 or less" and "ＫＥＥＰ　２" (full-width, as a Japanese phone types it) is
"KEEP 2" (NFKC). Japanese puts the object and the condition first ("2を交換",
"3以下なら2にキープ"): ``_japanese_order`` moves them where the English grammar reads
them, clause by clause.

``local`` says an English command in a language's own words (the menu of a mail in
that language shows them), and ``ALIASES`` lists every word (``/help/mail``). Pure
text, below ``app.mail``.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: For each language, the English command word (or phrase) -> its words in that
#: language, the first one the word a menu in that language shows. German words are
#: written as typed; umlauts may also be typed as ae, oe, ue (and ß as ss).
ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "de": {
        "draw": ("ziehen", "ziehe", "zieh"),
        "take": ("nehmen", "nehme", "nimm"),
        "call": ("klopfen", "klopfe", "ansagen"),
        "skip": ("passen", "überspringen", "passe"),
        "search": ("suchen", "durchsuchen", "suche"),
        "done": ("fertig", "ende"),
        "discard": ("ablegen", "abwerfen", "lege ab", "leg ab", "wegwerfen"),
        "exchange": ("tauschen", "tausche", "austauschen"),
        "peek": ("spicken", "spähen", "spicke"),
        "pick": ("wählen", "wähle", "auswählen"),
        "gamble": ("wetten", "wette", "raten"),
        "twist": ("umdrehen", "drehen", "drehe"),
        "see": ("ansehen", "sehen", "sieh"),
        "undermine": ("untergraben",),
        "spot": ("ausspähen", "aufspüren"),
        "look": ("anschauen", "schauen", "schau"),
        "bomb": ("sprengen", "bombe"),
        "keep": ("behalten", "behalte"),
        "pile": ("stapel",),
        "help": ("hilfe", "menü", "befehle"),
        "vote yes": ("stimme ja", "abstimmen ja", "ja stimmen"),
        "vote no": ("stimme nein", "abstimmen nein", "nein stimmen"),
        "accept": ("annehmen", "nehme an"),
        "decline": ("ablehnen", "lehne ab"),
        "rematch": ("revanche",),
        "agree": ("einverstanden",),
        "back": ("zurück", "bin zurück", "ich bin zurück", "wieder da", "bin wieder da"),
        "say": ("sage", "sag"),
        "always": ("immer", "jede runde"),
        "no orders": ("keine befehle", "befehle löschen", "keine daueraufträge"),
        "no plan": ("kein plan", "plan löschen"),
        "if": ("wenn", "falls"),
        "else": ("sonst", "andernfalls"),
        "then": ("dann",),
        "or less": ("oder weniger", "oder kleiner", "oder niedriger"),
        "or more": ("oder mehr", "oder größer", "oder höher"),
        "less than": ("weniger als", "kleiner als", "niedriger als"),
        "more than": ("mehr als", "größer als", "höher als"),
        "not a": ("kein", "keine", "keinen"),
        "not": ("nicht",),
        "a": ("ein", "eine", "einen"),
        "at": ("auf", "bei"),
        "into": ("nach",),
        "card": ("karte",),
        "cards": ("karten",),
        "my": ("meine", "mein", "meiner"),
        "and": ("und",),
        "left": ("links",),
        "right": ("rechts",),
        "no": ("nein",),
    },
    "ja": {
        "draw": ("引く", "ひく", "ドロー", "hiku"),
        "take": ("取る", "とる", "拾う", "toru", "hirou"),
        "call": ("コール", "kooru", "kouru"),
        "skip": ("パス", "スキップ", "pasu", "sukippu"),
        "search": ("探す", "さがす", "サーチ", "sagasu"),
        "done": ("終わり", "おわり", "終了", "owari"),
        "discard": ("捨てる", "すてる", "suteru"),
        "exchange": ("交換", "こうかん", "koukan", "kookan"),
        "peek": ("覗く", "のぞく", "ピーク", "nozoku"),
        "pick": ("選ぶ", "えらぶ", "erabu"),
        "gamble": ("賭ける", "かける", "kakeru"),
        "twist": ("裏返す", "ひっくり返す", "uragaesu"),
        "see": ("見る", "みる", "miru"),
        "undermine": ("アンダーマイン",),
        "spot": ("調べる", "しらべる", "shiraberu"),
        "look": ("確認", "かくにん", "kakunin"),
        "bomb": ("爆破", "bakuha"),
        "keep": ("キープ", "kiipu"),
        "pile": ("捨て札", "sutefuda"),
        "help": ("ヘルプ", "メニュー", "herupu"),
        "vote yes": ("賛成", "sansei"),
        "vote no": ("反対", "hantai"),
        "accept": ("承諾", "受ける", "shoudaku"),
        "decline": ("辞退", "断る", "jitai", "kotowaru"),
        "veto": ("拒否", "kyohi"),
        "rematch": ("再戦", "saisen"),
        "agree": ("同意", "doui"),
        "back": ("戻りました", "もどりました", "ただいま", "復帰", "tadaima", "modorimashita"),
        "say": ("言う", "いう", "iu"),
        "always": ("いつも", "常に", "毎回", "itsumo"),
        "no orders": ("指示なし", "指示解除", "命令なし", "shijinashi"),
        "no plan": ("計画なし", "計画取消", "プランなし", "keikakunashi"),
        "if": ("もし", "moshi"),
        "else": ("それ以外", "それ以外は", "でなければ", "soreigai"),
        "then": ("それから", "次に"),
        "or less": ("以下", "ika"),
        "or more": ("以上", "ijou", "ijoo"),
        "less than": ("未満", "miman"),
        "card": ("カード",),
        "my": ("自分の",),
        "left": ("左", "hidari"),
        "right": ("右", "migi"),
        # card names that are commands too ("ゴースト 2 3" = "ghost 2 3"), and the
        # abilities a standing order skips ("いつも ツイスター を パス")
        "dracula": ("ドラキュラ",),
        "ghost": ("ゴースト",),
        "tanner": ("タナー",),
        "drunk": ("ドランク",),
        "simon": ("サイモン",),
        "nelly": ("ネリー",),
        "twister": ("ツイスター",),
        "split seer": ("スプリットシーア",),
        "underminer": ("アンダーマイナー",),
        "spotter": ("スポッター",),
        "mad bomber": ("マッドボマー",),
        "illusionist": ("イリュージョニスト",),
        "gambler": ("ギャンブラー",),
        "obsessor": ("オブセッサー",),
    },
}
#: How a menu in each language writes the word of an English command that has none of
#: its own (card names as commands: "ghost 2 3" stays "GHOST 2 3" in German).
_SHOWN_AS_TYPED = {"de": str.upper, "ja": str.upper}


def _folded(word: str) -> str:
    """A German word as compared: lower case, umlauts and ß written out."""
    text = word.lower()
    for letter, written in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        text = text.replace(letter, written)
    return text


def _latin(word: str) -> bool:
    return all(ord(ch) < 0x250 or ch.isspace() for ch in word)


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], re.Pattern[str] | None, dict[str, str],
                       re.Pattern[str] | None]:
    """(folded Latin alias -> English, its regex; Japanese alias -> English, its regex)."""
    latin: dict[str, str] = {}
    cjk: dict[str, str] = {}
    for table in ALIASES.values():
        for english_word, words in table.items():
            for word in words:
                if _latin(word):
                    latin.setdefault(" ".join(_folded(word).split()), english_word)
                else:
                    cjk.setdefault(word, english_word)

    def pattern(words: list[str], bounded: bool) -> re.Pattern[str] | None:
        if not words:
            return None
        ordered = sorted(words, key=len, reverse=True)   # the longest phrase first
        body = "|".join(r"\s+".join(map(re.escape, w.split())) if bounded else re.escape(w)
                        for w in ordered)
        return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])" if bounded else f"(?:{body})",
                          re.I)

    return latin, pattern(list(latin), True), cjk, pattern(list(cjk), False)


#: Japanese punctuation a phone types, as the grammar's (NFKC leaves these).
_PUNCTUATION = str.maketrans({"、": ",", "。": " ", "「": " ", "」": " ", "・": " ",
                              "〜": " ", "～": " "})
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def english(line: str) -> str:
    """``line`` in the English command words: full-width letters, digits and spaces as
    ASCII (NFKC), German and Japanese command words as the English ones. English
    commands come back as they are (apart from NFKC); words that are no command word in
    any language are kept."""
    text = unicodedata.normalize("NFKC", str(line)).translate(_PUNCTUATION)
    latin, latin_re, cjk, cjk_re = _tables()
    if _CJK.search(text):
        text = _japanese_order(text)
        if cjk_re is not None:
            text = cjk_re.sub(lambda m: f" {cjk[m.group(0)]} ", text)
    if latin_re is None:
        return text.strip()
    # (umlauts written out, lower case: the parser reads lower-case words anyway)
    text = _folded(text)
    return latin_re.sub(lambda m: latin[" ".join(m.group(0).split())], text).strip()


_NUMBERS = r"\d{1,3}(?:\s*(?:と|,|\s)\s*\d{1,3})*"
_ORDER_WORDS = ("いつも", "常に", "毎回")


def _japanese_order(text: str) -> str:
    """Each clause of a Japanese line in the order the English grammar reads: the
    condition before なら after the move ("3以下なら2にキープ" -> "2にキープ もし 3以下"),
    "2を交換" -> "交換 2", "2にキープ" -> "キープ at 2", "3以下" and "#3未満" as English
    puts them ("3 以下", "未満 #3")."""
    clauses = re.split(r"(\s*[,;]\s*)", text)
    return "".join(_clause(c) if i % 2 == 0 else c for i, c in enumerate(clauses))


def _clause(clause: str) -> str:
    text = clause.strip()
    lead = ""
    for word in _ORDER_WORDS:
        if text.startswith(word):
            lead, text = word + " ", text[len(word):].strip()
    for word in ("それ以外は", "それ以外", "でなければ"):
        if text.startswith(word):
            lead, text = lead + "else ", text[len(word):].strip()
    trailing = re.match(r"^(.+?)\s+(?:もし\s*)?(\S+?)\s*(?:ならば|なら)$", text)
    condition = re.match(r"^(?:もし\s*)?(.+?)\s*(?:ならば|なら)\s*(.+)$", text)
    if trailing:   # 捨てる 9以上なら
        text = f"{trailing.group(1)} もし {trailing.group(2)}"
    elif condition:   # 9以上なら捨てる
        text = f"{condition.group(2)} もし {condition.group(1)}"
    head, if_word, tail = text.partition("もし")
    head = re.sub(rf"^\s*({_NUMBERS})\s*に\s*(\S+)", r"\2 at \1", head)     # 2にキープ
    head = re.sub(rf"^\s*({_NUMBERS})\s*を\s*(\S+)", r"\2 \1", head)        # 2と5を交換
    head = re.sub(r"^\s*(\S+?)\s*を\s*(\S+)$", r"\2 \1", head)             # ツイスターをパス
    head = re.sub(r"(\d)\s*と\s*(?=\d)", r"\1 ", head)
    tail = re.sub(r"^(?:自分の)?(?:カード)?\s*#?\s*(\d{1,2})\s*(?:番)?\s*未満$", r"未満 my card \1",
                  tail.strip())
    tail = re.sub(r"^(-?\d{1,2})\s*未満$", r"未満 \1", tail)
    tail = re.sub(r"^(-?\d{1,2})\s*(?:より大きい|より上|超)$", r"more than \1", tail)
    tail = re.sub(r"^(-?\d{1,2})\s*(?:より小さい|より下)$", r"less than \1", tail)
    tail = re.sub(r"^(\S+?)\s*(?:ではない|じゃない|でない)$", r"not \1", tail)        # シモンでない
    tail = re.sub(r"^(\S+?)\s*以外$", r"not \1", tail)                       # 7以外
    said = f"{head.strip()} {if_word} {tail}".strip() if if_word else head.strip()
    return f"{lead}{said}"


def local(code: str, command: str) -> str:
    """An English command (as ``commands.command_for`` writes it: "D", "X 2", "peek 1
    2", "drunk 2 left") in language ``code``'s words ("ZIEHEN", "TAUSCHEN 2",
    "覗く 1 2", "ドランク 2 左"); English, and any word without one, as it is."""
    table = ALIASES.get(code)
    if not table:
        return command
    short = {"D": "draw", "T": "take", "C": "call", "S": "skip", "X": "exchange"}
    words = command.split()
    if not words:
        return command
    verb = short.get(words[0], words[0].lower())
    shown = [table[verb][0] if verb in table else verb]
    for word in words[1:]:
        lowered = word.lower()
        shown.append(table[lowered][0] if lowered in table and not word.isdigit() else word)
    return " ".join(_SHOWN_AS_TYPED.get(code, str)(w) for w in shown)
