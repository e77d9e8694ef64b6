"""Phone numbers phonenumbers' matcher misses: international numbers it rejects as invalid, and
national/local numbers of any country confirmed by a phone word before them.

presidio's ``PhoneRecognizer`` (python-phonenumbers, leniency VALID) only reports numbers valid for
the configured regions, or with a ``+`` country code. Most numbers in text from other countries
are written nationally ("0393 1144137", "96 237271", "449 4898"), and synthetic or unassigned
numbers fail validation. Two recognizers here share one shape regex (:data:`PHONE_SHAPE`):

* :class:`InternationalPhoneRecognizer` -- ``+cc`` / ``00cc`` / ``(+cc)`` then digit groups: the
  country code must be one phonenumbers knows (``parse`` with ``+`` fails otherwise) and the
  number 7-15 digits long (E.164). No context needed: the prefix says "phone".
* :class:`ContextPhoneRecognizer` -- 6-15 digits in phone-like groups, reported only when a phone
  word (:data:`PHONE_WORDS`, ~30 languages: "tel", "Telefon", "téléphone", "телефон", "電話", ...)
  ends at most :data:`MAX_GAP` characters before the number on the same line, with no digit and
  no sentence end in between. Without that word, digit groups in text are far more often counts,
  prices, dates and IDs than phones (GSM8K is full of them).

Both run without any NLP pipeline: the context test is a regex over the characters before the
match, so presidio's context enhancer (which needs spaCy tokens) is not involved in deciding.
"""

from __future__ import annotations

import re

import phonenumbers
from phonenumbers import NumberParseException
from presidio_analyzer import LocalRecognizer, RecognizerResult

__all__ = ["PHONE_SHAPE", "PHONE_WORDS", "ContextPhoneRecognizer", "InternationalPhoneRecognizer",
           "has_phone_word_before", "phone_digits"]

# Python's re, not regex: these patterns need nothing of regex's, and re runs them ~3x faster.
_FLAGS = re.MULTILINE | re.IGNORECASE
_SEP = r"(?:[ .\-/\u00a0]|[ ]?-[ ]?)"
_CC = r"(?:\+[ ]?[0-9]{1,3}|(?<![0-9])00[1-9][0-9]{0,2}|\(\+?[0-9]{1,4}\))"
_TRUNK = r"(?:[ ]?\(0\))"  # +49 (0) 30 ...: the national prefix shown in brackets
_AREA = r"(?:\([0-9]{1,5}\)[ .\-]?)"
_EXT = r"(?:[ ]?(?:x|ext\.?|extension|poste|доб\.?)[ ]?[0-9]{1,6})"
PHONE_SHAPE = (
    # ASCII boundaries, not \w: in CJK text a number is glued to letters ("電話番号は070-1152-4493です")
    r"(?<![A-Za-z0-9_+.,/(:=#$€£¥*×÷<>])(?<![A-Za-z0-9_]-)(?<![0-9][ .\-])(?<![=*×÷+<>][ ])"
    rf"(?P<cc>{_CC}{_TRUNK}?{_SEP}?)?"
    rf"(?P<body>{_AREA}?[0-9]{{1,15}}(?:{_SEP}[0-9]{{1,15}}){{0,6}})"
    rf"(?P<ext>{_EXT})?"
    r"(?![A-Za-z0-9_]|[.,\-/:][0-9]|[ ]?[%€$£¥=*×÷+<>])"  # not followed by more of a number, a unit, a sum
)
_SHAPE = re.compile(PHONE_SHAPE, _FLAGS)
_DIGIT_GROUPS = re.compile(r"[0-9]+")
_SSN = re.compile(r"[0-9]{3}-[0-9]{2}-[0-9]{4}")

# Words after which a digit group is a phone number. Long words match as prefixes (Telefonnummer,
# telefono, téléphonique); short abbreviations only as whole words ("tel" must not match "tell").
_STEMS = (
    "phone", "telephone", "mobile", "cellphone", "call", "contact", "whatsapp", "hotline", "landline",
    "dial", "text me", "sms", "reach",
    "telefon", "handy", "ruf", "anruf", "erreichbar", "kontakt", "durchwahl",
    "téléphone", "telephon", "portable", "appel", "joindre", "numéro", "contacter",
    "teléfono", "telefono", "móvil", "movil", "celular", "llam", "llám", "contacto",
    "cellulare", "chiam", "telefone", "telemóvel", "ligue", "ligar", "contato",
    "telefoon", "mobiel", "bel ", "bellen",
    "komórk", "zadzwo", "dzwo",
    "телефон", "мобильн", "мобільн", "звон", "позвон", "зателефон", "обадете", "контакт", "тел.", "моб.",
    "puhelin", "soita", "ring ", "ringer",
    "volej", "mobil",
    "arayın", "arayin", "cep ",
    "hívj",
    "sunați", "sunati",
    "τηλέφων", "τηλεφων", "κινητ", "τηλ.", "καλέστε", "καλέσ",
    "هاتف", "جوال", "اتصل",
    "טלפון", "נייד", "התקשר", "חייג",
    "फ़ोन", "फोन", "मोबाइल",
    "telepon", "hubungi",
    "điện thoại", "gọi",
)
# Scripts without spaces between words: matched anywhere, not only after a non-letter.
_CJK_STEMS = ("電話", "携帯", "連絡", "电话", "手机", "手機", "联系", "聯繫", "聯絡", "拨打", "撥打", "致电", "號碼", "号码",
              "전화", "휴대폰", "연락처", "โทร")
_ABBREVIATIONS = ("tel", "tél", "ph", "mob", "cell", "fax", "tlf", "puh", "telp", "hp", "đt", "sđt", "tfn")
# "number" words name a phone only right before it ("Número: 96 237271", "Nummer 0393 1144137"),
# not further away ("number of students was 1234567").
_NUMBER_WORDS = ("number", "numéro", "número", "numero", "nummer", "numer", "номер", "номеру", "numara", "číslo",
                 "szám", "număr", "nomor", "नंबर", "رقم")
_WORDS = "|".join(re.escape(s) for s in sorted(_STEMS, key=len, reverse=True))
_ABBR = "|".join(re.escape(s) for s in sorted(_ABBREVIATIONS, key=len, reverse=True))
_NUMBER = "|".join(re.escape(s) for s in sorted(_NUMBER_WORDS, key=len, reverse=True))
_CJK = "|".join(re.escape(s) for s in _CJK_STEMS)
PHONE_WORDS = rf"(?:(?<!\w)(?:{_WORDS})[\w]*|(?<!\w)(?:{_ABBR})(?!\w)|(?:{_CJK})\w*)"
_PHONE_WORD = re.compile(PHONE_WORDS, _FLAGS)
_NUMBER_WORD = re.compile(rf"(?<!\w)(?:{_NUMBER})(?!\w)(?::[ ]?|[ ](?=[0-9+(]))(?:\(?[0-9+])", _FLAGS)
# Languages that name the phone after the number: "02778709658 numarasından", "070-1234-5678に電話".
_AFTER = re.compile(r"[ ]?(?:numaras|numaral|nolu|に電話|までお電話|로 전화|번으로|\((?:tel|phone|mobile|fax|cell)\))",
                    _FLAGS)
MAX_GAP = 32  # characters between the phone word and the number: "numéro de téléphone est le "


_last_scan: list = [None, ()]


def shape_matches(text: str) -> tuple[re.Match, ...]:
    """PHONE_SHAPE matches of ``text``; both recognizers here ask for the same text in a row, so
    the last scan is kept (keyed by the text object itself)."""
    if _last_scan[0] is not text:
        _last_scan[:] = [text, tuple(_SHAPE.finditer(text))]
    return _last_scan[1]


def phone_digits(match: re.Match) -> int:
    cc = match["cc"] or ""
    return sum(c.isdigit() for c in cc) + sum(c.isdigit() for c in match["body"])


def has_phone_word_after(text: str, end: int) -> bool:
    return _AFTER.match(text, end) is not None


def has_phone_word_before(text: str, start: int) -> bool:
    """A phone word ends at most MAX_GAP characters before ``start``, on the same line, with no
    digit and no sentence end between them (an abbreviation's own dot, "Tel. ", is allowed)."""
    if _number_word_right_before(text, start):
        return True
    line_start = text.rfind("\n", 0, start) + 1
    window_start = max(line_start, start - MAX_GAP - 24)
    window = text[window_start:start]
    last = None
    for last in _PHONE_WORD.finditer(window):
        pass
    if last is None:
        return False
    gap = window[last.end():]
    if len(gap) > MAX_GAP:
        return False
    gap = gap.lstrip(".")  # "Tel." / "Mob."
    return not any(c.isdigit() for c in gap) and not any(c in "!?;" for c in gap) and ". " not in gap


def _number_word_right_before(text: str, start: int) -> bool:
    for match in _NUMBER_WORD.finditer(text, max(0, start - 24), min(len(text), start + 2)):
        if match.end() - 1 == start:
            return True
    return False


def _looks_like_other_number(body: str, groups: list[str]) -> bool:
    """Dates, times, decimals and years written like digit groups."""
    if re.fullmatch(r"(?:[0-9]{4}[-./][0-9]{1,2}[-./][0-9]{1,2}|[0-9]{1,2}[-./][0-9]{1,2}[-./][0-9]{2,4})", body):
        return True
    if all(len(g) == 4 and g[:2] in ("19", "20") for g in groups) and len(groups) > 1:
        return True  # 2019 2020 2021
    return False


class _ShapeRecognizer(LocalRecognizer):
    ENTITY = "PHONE_NUMBER"
    SCORE = 0.5

    def __init__(self, name: str) -> None:
        super().__init__(supported_entities=[self.ENTITY], name=name, supported_language="en")

    def load(self) -> None:
        pass

    def accept(self, text: str, match: re.Match) -> bool:
        raise NotImplementedError

    def analyze(self, text, entities, nlp_artifacts=None) -> list[RecognizerResult]:
        results = []
        for match in shape_matches(text):
            if self.accept(text, match):
                results.append(RecognizerResult(
                    entity_type=self.ENTITY, start=match.start(), end=match.end(), score=self.SCORE,
                    recognition_metadata={RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                                          RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}))
        return results


class InternationalPhoneRecognizer(_ShapeRecognizer):
    """``+cc`` / ``00cc`` numbers whose country code exists, 7-15 digits, valid or not."""

    MIN_DIGITS, MAX_DIGITS = 7, 15

    def __init__(self) -> None:
        super().__init__("InternationalPhoneRecognizer")

    def accept(self, text: str, match: re.Match) -> bool:
        cc = match["cc"]
        if not cc:
            return False
        if text[:match.start()].rstrip().endswith(tuple("0123456789=")):
            return False  # 3 +12 345 678 or = 0044 ...: arithmetic
        digits = "".join(c for c in cc + match["body"] if c.isdigit())
        if cc.startswith("00"):
            digits = digits[2:]
            grouped = not match["body"].isdigit() or not cc[-1].isdigit()
            if not grouped and not has_phone_word_before(text, match.start()):
                return False  # "0062023117" alone is as likely an ID or an ISBN part as +62 ...
        if not self.MIN_DIGITS <= len(digits) <= self.MAX_DIGITS:
            return False
        try:  # fails for a country code phonenumbers does not know
            number = phonenumbers.parse("+" + digits)
        except NumberParseException:
            return False
        return len(str(number.national_number)) >= 4


class ContextPhoneRecognizer(_ShapeRecognizer):
    """6-15 digits in phone-like groups right after a phone word, in any of ~30 languages."""

    MIN_DIGITS, MAX_DIGITS = 6, 15

    def __init__(self) -> None:
        super().__init__("ContextPhoneRecognizer")

    def accept(self, text: str, match: re.Match) -> bool:
        if not self.MIN_DIGITS <= phone_digits(match) <= self.MAX_DIGITS:
            return False
        groups = _DIGIT_GROUPS.findall(match["body"])
        if _looks_like_other_number(match["body"], groups):
            return False
        if len(groups) == 1 and not match["cc"] and len(groups[0]) < 7 and not groups[0].startswith("0"):
            return False  # a bare 6-digit count ("number 142857"); grouped or 0-led numbers are phones
        if _SSN.fullmatch(match["body"]) and not match["cc"]:
            return False  # 531-21-7351 is a US social security number
        return has_phone_word_before(text, match.start()) or has_phone_word_after(text, match.end())
