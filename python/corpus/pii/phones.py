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

import functools
import re

import phonenumbers
from phonenumbers import NumberParseException
import corpus.pii._presidio  # noqa: F401  # presidio imported without torch/transformers
from presidio_analyzer import LocalRecognizer, RecognizerResult

from corpus.pii.params import DEFAULT_CONTEXT_WINDOW, DEFAULT_CONTEXT_WORDS, DEFAULT_PHONE_CONTEXT, PhoneContext

__all__ = ["DEFAULT_CONTEXT_WINDOW", "DEFAULT_CONTEXT_WORDS", "DEFAULT_PHONE_CONTEXT", "PHONE_SHAPE", "PHONE_WORDS", "RULE_KEY", "TRIGGER_KEY",
           "ContextPhoneRecognizer", "InternationalPhoneRecognizer", "LocalPhoneRecognizer", "PhoneContext",
           "context_word_near", "has_phone_word_before", "in_address_block", "national_shape", "phone_digits",
           "phone_word_before"]

# Python's re, not regex: these patterns need nothing of regex's, and re runs them ~3x faster.
_FLAGS = re.MULTILINE | re.IGNORECASE
# recognition_metadata keys of every result here: the rule that reported it and what triggered it
RULE_KEY = "rule"
TRIGGER_KEY = "trigger"
_SEP = r"(?:/[ ]?|[ .\-/\u00a0]|[ ]?-[ ]?)"
_CC = r"(?:\+[ ]?[0-9]{1,3}|(?<![0-9])00[1-9][0-9]{0,2}|\(\+?[0-9]{1,4}\))"
_TRUNK = r"(?:[ ]?\(0\))"  # +49 (0) 30 ...: the national prefix shown in brackets
_AREA = r"(?:\([0-9]{1,5}\)[ .\-]?)"
_EXT = r"(?:[ ]?(?:x|ext\.?|extension|poste|доб\.?)[ ]?[0-9]{1,6})"
PHONE_SHAPE = (
    # ASCII boundaries, not \w: in CJK text a number is glued to letters ("電話番号は070-1152-4493です")
    r"(?<![A-Za-z0-9_+.,/:=#$€£¥*×÷<>])(?<![A-Za-z0-9_]-)(?<![A-Za-z0-9_)\]]\()(?<![0-9][ .\-])(?<![=*×÷+<>][ ])"
    rf"(?P<cc>{_CC}{_TRUNK}?{_SEP}?)?"
    rf"(?P<body>{_AREA}?[0-9]{{1,15}}(?:{_SEP}[0-9]{{1,15}}){{0,6}})"
    rf"(?P<ext>{_EXT})?"
    r"(?![A-Za-z0-9_]|[.,\-/:][0-9]|[ ]?[%€$£¥=*×÷+<>])"  # not followed by more of a number, a unit, a sum
)
_SHAPE = re.compile(PHONE_SHAPE, _FLAGS)
_DIGIT_GROUPS = re.compile(r"[0-9]+")
_SSN = re.compile(r"[0-9]{3}-[0-9]{2}-[0-9]{4}")
_TIME_RANGE = re.compile(r"[0-9]{1,2}[.:h][0-9]{2}\s?(?:-|–|to|a|bis)\s?[0-9]{1,2}[.:h][0-9]{2}")

# Words after which a digit group is a phone number. Long words match as prefixes (Telefonnummer,
# telefono, téléphonique); short abbreviations only as whole words ("tel" must not match "tell").
_STEMS = (
    "phone", "telephone", "mobile", "cellphone", "contact", "whatsapp", "hotline", "landline",
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
# "call" only as a whole word: not "Callejón", nor "called" ("a star called GSC 03549-02811")
_ABBREVIATIONS = ("call", "calls", "calling", "tel", "tél", "ph", "mob", "cell", "fax", "tlf", "puh", "telp", "hp", "đt", "sđt", "tfn")
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
_COPULA = r"(?:is|was|ist|lautet|est|es|era|è|é|era|is nu|est le|es el|è il|é o)"
_NUMBER_WORD = re.compile(rf"(?<!\w)(?:{_NUMBER})(?!\w)(?::[ ]?|[ ](?:{_COPULA}:?[ ])?(?=[0-9+(]))(?:\(?[0-9+])", _FLAGS)
# Languages that name the phone after the number: "02778709658 numarasından", "070-1234-5678に電話".
_AFTER = re.compile(r"[ ]?(?:numaras|numaral|nolu|に電話|までお電話|로 전화|번으로|\((?:tel|phone|mobile|fax|cell|c|h|w|m)\))",
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
    return phone_word_before(text, start) is not None


def phone_word_before(text: str, start: int) -> str | None:
    """The phone word of :func:`has_phone_word_before` (None if there is none)."""
    number_word = _number_word_right_before(text, start)
    if number_word is not None:
        return number_word
    line_start = text.rfind("\n", 0, start) + 1
    window_start = max(line_start, start - MAX_GAP - 24)
    window = text[window_start:start]
    last = None
    for last in _PHONE_WORD.finditer(window):
        pass
    if last is None:
        return None
    gap = window[last.end():]
    if len(gap) > MAX_GAP:
        return None
    if gap.startswith(".") and last.group().lower() in _ABBREVIATIONS:
        gap = gap[1:]  # "Tel." / "Mob." (not the full stop after "... my WhatsApp.")
    if any(c.isdigit() for c in gap) or any(c in "!?;" for c in gap) or ". " in gap:
        return None
    return last.group()


_COPULA_NUMBER = re.compile(r"\(?0|[0-9]{8}|[0-9]+[ .\-/][0-9]")  # "number is" + 0-led, 8+ digits or grouped


def _number_word_right_before(text: str, start: int) -> str | None:
    for match in _NUMBER_WORD.finditer(text, max(0, start - 24), min(len(text), start + 2)):
        if match.end() - 1 == start:
            word = match.group()[:-1].rstrip(": ")
            if " " in word and not _COPULA_NUMBER.match(text, start):
                return None  # "the number is 1234567": a count, not a phone
            if _noun_before(text, match.start()) is not None:
                return None  # "Hospital number 315 5761": the hospital's number
            return word
    return None


# "Hospital number 315 5761", "Account holder no. 341 1932", "Gas safety certificate no. 1019 5254 7826": a noun
# before the word for "number" says whose number it is. A phone or context word ("Mobile no.", "Contact number",
# "Home number") or a determiner ("my number", "the number") leaves it a phone's.
_WORD_BEFORE = re.compile(r"(?<![\w.])(?P<noun>[^\W\d_]{2,})[ ]\Z")
# determiners, possessives and prepositions of the default languages ("al numero", "unter der Nummer", "au numéro")
_DETERMINERS = frozenset("a an the my your his her our their its this that these new same direct best main other "
                         "alternative old only whose which what and or of to at on in via per by from "
                         "der die das den dem des ein eine einer einem meine mein meiner ihre ihr unsere unser "
                         "unter über am im zum zur an auf mit "
                         "le la les un une du de des au aux mon ma mes ton ta son sa notre votre leur par "
                         "el los las una al del mi tu su nuestro nuestra por para con en "
                         "il lo gli uno della dello dei al allo alla col nel sul mio mia tuo tua suo sua nostro "
                         "o os um uma do da dos das ao à no na nos pelo pela meu minha seu teu nosso através "
                         "het een mijn uw zijn haar ons onze op naar bij met "
                         "neue neuen alte alten nouveau nouvelle ancien nuevo nueva nuovo nuova novo nova nieuwe oude".split())


@functools.cache
def _default_words() -> "re.Pattern[str]":
    return context_word_regex(DEFAULT_PHONE_CONTEXT)


def _noun_before(text: str, start: int) -> str | None:
    """The noun right before text[start:] (a word for "number"), if it is no phone word, default context
    word or determiner."""
    m = _WORD_BEFORE.search(text, max(0, start - 40), start)
    if m is None:
        return None
    noun = m["noun"]
    if noun.lower() in _DETERMINERS or _PHONE_WORD.match(noun) or _default_words().match(noun):
        return None
    return noun


def _phone_word_after(text: str, end: int) -> str | None:
    match = _AFTER.match(text, end)
    return None if match is None else match.group().strip()


def _looks_like_other_number(body: str, groups: list[str]) -> bool:
    """Dates, times, decimals and years written like digit groups."""
    if re.fullmatch(r"(?:[0-9]{4}[-./][0-9]{1,2}[-./][0-9]{1,2}|[0-9]{1,2}[-./][0-9]{1,2}[-./][0-9]{2,4})", body):
        return True
    if all(len(g) == 4 and g[:2] in ("19", "20") for g in groups) and len(groups) > 1:
        return True  # 2019 2020 2021
    if (len(groups) == 2 and len(groups[0]) == 4 == len(groups[1]) and "1000" <= groups[0] < groups[1] <= "2099"
            and not body.startswith("0")):
        return True  # 1704-1759, 1866-1925: a lifespan or a period
    if len(groups) == 2 and len(groups[0]) == 4 and groups[0][:2] in ("19", "20") and len(groups[1]) <= 2:
        return True  # 1999 05: a year and a month
    if _TIME_RANGE.fullmatch(body):
        return True  # 9.00 - 18.30
    return False


def decided_result(recognizer, match: re.Match, decision: tuple[str, str]) -> RecognizerResult:
    """The RecognizerResult of `recognizer` for `match`, recording the (rule, trigger) that decided it."""
    return RecognizerResult(
        entity_type=recognizer.ENTITY, start=match.start(), end=match.end(), score=recognizer.SCORE,
        recognition_metadata={RecognizerResult.RECOGNIZER_NAME_KEY: recognizer.name,
                              RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: recognizer.id,
                              RULE_KEY: decision[0], TRIGGER_KEY: decision[1]})


class _ShapeRecognizer(LocalRecognizer):
    ENTITY = "PHONE_NUMBER"
    SCORE = 0.5

    def __init__(self, name: str) -> None:
        super().__init__(supported_entities=[self.ENTITY], name=name, supported_language="en")

    def load(self) -> None:
        pass

    RULE = "phone"

    def accept(self, text: str, match: re.Match) -> bool:
        raise NotImplementedError

    def decide(self, text: str, match: re.Match) -> tuple[str, str] | None:
        """(rule, trigger) if ``match`` is reported, else None; the trigger is what the rule saw."""
        return (self.RULE, "") if self.accept(text, match) else None

    def analyze(self, text, entities, nlp_artifacts=None) -> list[RecognizerResult]:
        decided = ((match, self.decide(text, match)) for match in shape_matches(text))
        return [decided_result(self, match, decision) for match, decision in decided if decision is not None]


class InternationalPhoneRecognizer(_ShapeRecognizer):
    """``+cc`` / ``00cc`` numbers whose country code exists, 7-15 digits, valid or not."""

    MIN_DIGITS, MAX_DIGITS = 7, 15
    RULE = "phone.international"

    def __init__(self) -> None:
        super().__init__("InternationalPhoneRecognizer")

    def decide(self, text: str, match: re.Match) -> tuple[str, str] | None:
        return (self.RULE, f"country code {match['cc'].strip()}") if self.accept(text, match) else None

    def accept(self, text: str, match: re.Match) -> bool:
        cc = match["cc"]
        if not cc:
            return False
        if text[:match.start()].rstrip().endswith(tuple("0123456789=")):
            return False  # 3 +12 345 678 or = 0044 ...: arithmetic
        digits = "".join(c for c in cc + match["body"] if c.isdigit())
        if cc.startswith("00") and other_number_label(text, match.start()) is not None:
            return False  # "Repair ticket 0059 4031 0687", "Order 007-9603250-1610482": not a "+"
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
        return self.decide(text, match) is not None

    def decide(self, text: str, match: re.Match) -> tuple[str, str] | None:
        if not self._shape_ok(match) or other_number_label(text, match.start()) is not None:
            return None
        if not match["cc"] and _CURRENCY_BEFORE.search(text, max(0, match.start() - 6), match.start()):
            return None  # "Fee € 315 448"
        word = phone_word_before(text, match.start()) or _phone_word_after(text, match.end())
        return None if word is None else ("phone.word_before", word)

    def _shape_ok(self, match: re.Match) -> bool:
        if not self.MIN_DIGITS <= phone_digits(match) <= self.MAX_DIGITS:
            return False
        groups = _DIGIT_GROUPS.findall(match["body"])
        if _looks_like_other_number(match["body"], groups):
            return False
        if len(groups) == 1 and not match["cc"] and len(groups[0]) < 7 and not groups[0].startswith("0"):
            return False  # a bare 6-digit count ("number 142857"); grouped or 0-led numbers are phones
        if _SSN.fullmatch(match["body"]) and not match["cc"]:
            return False  # 531-21-7351 is a US social security number
        if (not match["cc"] and len(groups) > 1 and len(groups[0]) <= 3 and not groups[0].startswith("0")
                and all(len(g) == 3 for g in groups[1:]) and sum(map(len, groups)) <= 8
                and set(re.sub(r"[0-9]+", "", match["body"])) <= {" ", ".", "\u00a0"}):
            return False  # "the call centre served 120 000 customers": thousands
        if (not match["cc"] and len(groups) >= 4 and any(len(g) == 1 for g in groups[1:])
                and set(re.sub(r"[0-9]+", "", match["body"])) == {"-"} and sum(map(len, groups)) in (10, 13)):
            return False  # 978-1-146-83234-2, 0-306-40615-2: an ISBN
        return True


# --------------------------------------------------------------------------- national numbers by context
#
# A national number written without a country code ("449 4898", "06 12 34 56 78", "0393 1144137") is
# valid for some region phonenumbers is not told about, so no validity test is possible; what makes it a
# phone number in text is what stands around it. LocalPhoneRecognizer reports a national-shaped digit group
# (national_shape) when
#
# * phone.context -- one of the configured context words (PhoneContext.words, per language: "phone",
#   "Telefon", "téléphone", "WhatsApp", "Fax", ...) stands at most PhoneContext.window characters before it
#   (on its line or the line above: "Phone:\n449 4898") or after it on its line ("449 4898 (office)",
#   "0521 998877-Fax"), with no sentence end between word and number; or
# * phone.address_block -- it stands alone on a short line (or after a name and a comma or dash) inside a
#   block of consecutive non-empty lines, at most ADDRESS_REACH lines away, that also holds a postal code
#   with a place name, a street with a house number, or an e-mail address: the lines of a letterhead, a
#   signature or a contact card.
#
# Every result names its rule and what triggered it (the word, or the address line's cue) in
# recognition_metadata, for corpus.pii.scrub.explain and `corpus why`.




# Telephone, mobile and fax signs: "📞 30 02 91", "☎️ 0344030905", "✆ 449 4898".
PHONE_SYMBOLS = ("☎", "☏", "✆", "📞", "📱", "📲", "📠")


def context_word_regex(context: PhoneContext) -> "re.Pattern[str]":
    """One regex for every configured word: ``(?<!\\w)word(?!\\w)``, or ``(?<!\\w)stem\\w*`` for ``stem*``."""
    whole, stems = set(), set()
    for _, ws in context.words:
        for w in ws:
            (stems if w.endswith("*") else whole).add(w.rstrip("*").lower())
    parts = ["(?:" + "|".join(PHONE_SYMBOLS) + ")\ufe0f?"]  # in every language
    if stems:
        parts.append("(?:" + "|".join(map(re.escape, sorted(stems, key=len, reverse=True))) + r")\w*")
    if whole:
        # "tel." ends in a non-word character: no (?!\w) needed after it
        parts.append("(?:" + "|".join(re.escape(w) + ("" if not w[-1].isalnum() else r"(?!\w)")
                                      for w in sorted(whole, key=len, reverse=True)) + ")")
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + ")", re.IGNORECASE)


_NATIONAL_SEPARATORS = frozenset(" -./\u00a0")
_PAREN_AREA = re.compile(r"^\((0[0-9]{1,4}|[0-9]{2,5})\)[ .\-]?")
_TIME = re.compile(r"[0-9]{1,2}[:.][0-9]{2}")


TIGHT = "tight"  # national_shape: a phone only with its word right next to it


def national_shape(match: re.Match) -> bool | str:
    """Whether a PHONE_SHAPE match without a country code is laid out like a national phone number:
    True, False, or TIGHT for a bare run of 7, 8 or 12 digits ("1266928", "573085716087"), which is a
    phone number only with a context word right next to it.

    6-13 digits; either one run of 9-11 digits ("4155550123", "06123456789") or 0-led 8, or 2-5 groups
    of at least 2 digits ("449 4898", "33 93 31", "612 345 678", "0521 998877", "030-12345678",
    "(030) 1234 5678", "(0646) 458955", "07648 52837 980") joined by one kind of separator (space, hyphen,
    dot or slash), an area code in brackets or with a separator of its own aside ("(059)-9228339",
    "16 9572-9685", "07/ 827 09 39"). Not: dates and times, a run of years, an SSN, 6-8 digits in
    thousands grouping ("120 000", "1.234.567": counts and prices), groups of one digit (ISBNs,
    "978-3-16-148410-0"), a year and a serial ("2014-822979"), a decimal ("4023.4543").
    """
    cc = match["cc"] or ""
    if cc and not _PAREN_AREA.match(cc):
        return False  # +cc / 00cc: the international recognizer's
    body = cc + match["body"]  # "(0646) " read as PHONE_SHAPE's country code is an area code
    rest = body
    area = _PAREN_AREA.match(body)
    if area:
        rest = body[area.end():]
    groups = _DIGIT_GROUPS.findall(body)
    digits = sum(map(len, groups))
    if not 6 <= digits <= 13:
        return False
    if len(groups) == 1:
        g = groups[0]
        if 9 <= len(g) <= 11 or (len(g) == 8 and g.startswith("0")):
            return True
        return TIGHT if len(g) in (7, 8, 12) else False
    if len(groups) > 5 or any(len(g) < 2 for g in groups):
        return False
    separators = [x for x in re.sub(r"[0-9]+", "|", rest.replace(" - ", "-").replace("/ ", "/")).strip("|").split("|")
                  if x]
    kinds = set(separators)
    if len(kinds) == 2 and len(set(separators[1:])) == 1 and len(groups[0]) <= 5 and not area:
        kinds = set(separators[1:])  # "16 9572-9685", "07/827 09 39": an area code, then the number
    if len(kinds) > 1 or not kinds <= _NATIONAL_SEPARATORS:
        return False
    if _looks_like_other_number(body, groups) or _SSN.fullmatch(body):
        return False
    if len(groups) == 2 and len(groups[0]) == 4 and groups[0][:2] in ("19", "20") and kinds != {" "}:
        return False  # 2014-822979, 2023/0042: a year and a serial
    first, tail = groups[0], groups[1:]
    if (not area and len(first) <= 3 and not first.startswith("0") and all(len(g) == 3 for g in tail)
            and digits <= 8 and kinds <= {" ", ".", "\u00a0"}):
        return False  # 120 000, 1.234.567
    if kinds == {"."} and len(groups) == 2:
        return TIGHT if min(map(len, groups)) >= 3 else False  # 1234.5678: a decimal, unless labelled
    if kinds == {"/"} and len(groups) == 2 and len(groups[1]) <= 2:
        return False  # 123456/78: a fraction or a reference
    return True


_SENTENCE_END = re.compile(r"[!?;]|(?<!\.)\.(?!\.)\s+(?=[A-Z])|\n\s*\n")
# A dot after one of these (or after a capitalised word of at most 4 letters: "Sig.", "Dr.", "Mme.") is an
# abbreviation's, no sentence end: "Tel. 449 4898", "Phone no. 449 4898", "chiamare Sig. Rossi al ...".
_ABBREVIATION = re.compile(r"(?:^|(?<=\W))(?:no|nr|nº|núm|num|tel|tél|ph|mob|tlf|tfno|telf|fax|ext|n|[A-Z][a-z]{0,3})$")
_LEADER_DOTS = re.compile(r"\.{2,}|…")
# "Mobile number:", "Telefonnummer", "Numéro de téléphone", "Mobiel nummer", "Tel. no.": words for "number"
# after a label's context word
_NUMBER_WORDS_AFTER = re.compile(r"(?i)(?<!\w)(?:number|no\.?|nr\.?|nummer|numéro|número|numero|n°|nº)(?!\w)")
_CURRENCY_BEFORE = re.compile(r"(?:[€$£¥₹]|\b(?:EUR|USD|GBP|CHF|R\$|Fr\.|Rs\.?))\s?$")
_LABEL_PUNCTUATION = " \t:.-–—|*/#>()[]"


_BRACKETED = re.compile(r"\([^()\n]{0,40}\)")
_ROUND_THE_CLOCK = re.compile(r"(?i)\b24[ ]?(?:h|hrs?|hours|horas|ore|stunden|heures|uur|/7|/24)\b|\b24/7|\b7j?/7\b")
_SHORT_COUNT = re.compile(r"(?<![\w.,:/-])[0-9]{1,2}(?=[ ]?[^\W\d_])(?![ ]?(?:no|nr|n°|nº)\b)")  # "sous 48 h", "7 days"
_QUESTION_LEAD = re.compile(r"^[^\W\d_][\w ’']{0,24}\?\s+(?=[^\W\d_])")


def _label_line(line: str) -> bool:
    """A label on the line above a number: short, no digit outside brackets, no sentence ("Phone:",
    "Tel. (day)", "Mobiel nummer", "Telefon / Fax", "Atención al cliente - teléfono", "Hotline (Mo–Fr 8–18
    Uhr)", "Questions? Speak to our team": a short question may lead it)."""
    line = line.strip()
    if not 0 < len(line) <= 2 * LABEL_LINE_MAX:
        return False
    bare = _SHORT_COUNT.sub(" ", _ROUND_THE_CLOCK.sub(" ", _QUESTION_LEAD.sub("", _BRACKETED.sub(" ", line)))).strip()
    return 0 < len(bare) <= 2 * LABEL_LINE_MAX and not any(c.isdigit() for c in bare) and _gap_ok(bare.rstrip(". "))


LABEL_LINE_MAX = 40


def _gap_ok(gap: str) -> bool:
    """No sentence end (nor a blank line) in the text between a context word and the number. A dot
    followed by a capital is a sentence end unless it closes an abbreviation; leader dots
    ("Contact number ........ 449 4898") are none."""
    gap = _LEADER_DOTS.sub(" ", gap)
    for m in _SENTENCE_END.finditer(gap):
        if m.group().startswith(".") and _ABBREVIATION.search(gap[:m.start()]):
            continue
        return False
    stripped = gap.rstrip()
    if stripped.endswith(".") and stripped != ".":
        return _ABBREVIATION.search(stripped[:-1]) is not None  # "no. 449 4898", not "call me. 449 4898"
    return True


# Labels that say a number is something else: "Order no. 96-74306", "Customer ID: 913 1785", "ISBN ...",
# "Rechnungsnummer 2023-000123". They decide over any phone word near the number.
OTHER_NUMBER_LABELS = (
    "order", "invoice", "bill", "receipt", "reference", "ref", "customer", "client", "member", "membership",
    "price", "prices", "total", "cost", "costs", "amount", "sum", "balance", "salary", "budget",
    "preis", "betrag", "summe", "prix", "montant", "precio", "importe", "prezzo", "importo", "preço", "valor",
    "fee", "fees", "gebühr", "frais", "tarifa", "tassa", "taxa",
    "result", "results", "score", "ergebnis", "résultat", "resultado", "risultato", "uitslag",
    "consignment", "voucher", "coupon", "statement", "lot", "batch", "room", "zimmer", "chambre", "habitación",
    "camera", "quarto", "kamer", "patient", "student", "employee", "badge",
    "prijs", "bedrag", "dated", "date", "datum", "fecha", "data",
    "account", "acct", "iban", "bic", "swift", "isbn", "issn", "doi", "vat", "tax", "tin", "ein", "ssn", "id", "ids",
    "serial", "model", "part", "item", "sku", "article", "product", "tracking", "shipment", "parcel", "ticket",
    "tickets", "booking", "reservation", "confirmation", "case", "claim", "policy", "patent", "file", "docket",
    "registration", "licence", "license", "passport", "page", "pages", "pp", "chapter", "version", "build",
    "bestell", "bestellnummer", "rechnung", "rechnungsnummer", "kundennummer", "kunden", "auftrag", "aktenzeichen",
    "steuernummer", "artikel", "artikelnummer",
    "commande", "facture", "référence", "dossier", "siret", "siren", "tva",
    "pedido", "factura", "referencia", "cliente", "expediente", "nif", "cif", "dni",
    "ordine", "fattura", "riferimento", "pratica", "codice", "partita",
    "encomenda", "fatura", "referência", "nif", "cpf", "cnpj", "protocolo",
    "bestelling", "factuur", "referentie", "klantnummer", "dossiernummer", "kvk", "btw",
    "meter", "reading", "zähler", "zählerstand", "compteur", "relevé", "contador", "lectura", "contatore", "lettura",
    "medidor", "leitura", "meterstand", "plate", "kennzeichen", "immatriculation", "matrícula", "targa", "placa", "kenteken",
    "warranty", "garantie", "garantía", "garanzia", "garantia", "locker", "schließfach", "casier", "taquilla",
    "armadietto", "cacifo", "kluis", "permit", "genehmigung", "permis", "permiso", "permesso", "licença", "vergunning",
    "frame", "chassis", "vin", "rma", "vacancy", "reg", "prescription", "rahmennummer", "ordonnance", "receta",
    "card", "karte", "carte", "tarjeta", "cartão", "kaart", "pass", "ausweis", "tag", "asset", "inventar", "inventaire",
    "inventario",
    "count", "size", "length", "height", "weight", "area", "volume", "capacity", "distance", "duration", "population",
    "postcode", "postal code", "zip", "zip code", "plz", "postleitzahl", "code postal", "código postal", "cep", "cap",
    "application", "certificate", "zertifikat", "certificat", "certificado", "certificato", "certificaat",
    "agreement", "contract", "vertrag", "contrat", "contrato", "contratto", "overeenkomst", "listing",
    "quote", "estimate", "devis", "angebot", "kostenvoranschlag", "presupuesto", "preventivo", "orçamento", "offerte",
    "attendance", "usage", "anzahl", "größe", "nombre", "taille", "cantidad", "tamaño", "numero di", "quantità", "aantal",
)
_OTHER_LABEL = re.compile(
    r"(?<!\w)(?:" + "|".join(map(re.escape, sorted(set(OTHER_NUMBER_LABELS), key=len, reverse=True))) + r")"
    r"(?:(?<=ref|reg|vat|doc|inv|art)\.)?"  # an abbreviation's own dot ("Vacancy ref. 2013-788472"), not a sentence's
    r"(?:[ .\-]?(?:no|nr|nº|n°|num|number|nummer|numéro|número|numero|code|id|10|13)\.?)?\s*(?:[:#=]|\bis\b|\best\b)?\s*"
    r"(?:[€$£¥₹]|EUR|USD|GBP|CHF|R\$|Fr\.)?[\s\-]*$",
    re.IGNORECASE)


def other_number_label(text: str, start: int) -> str | None:
    """The label right before text[start:] that names it another kind of number, or None. A number
    written with a "+" country code is a phone number whatever its label."""
    if text.startswith(("+", "(+"), start):
        return None
    head = text[max(0, start - 40):start]
    head = head[head.rfind("\n") + 1:]
    m = _OTHER_LABEL.search(head)
    if m is not None:
        return m.group().strip(" :#=")
    m = _ABBREVIATED_NUMBER.search(head)
    if m is not None and _noun_before(head, m.start()) is not None:
        return head[head.rfind(" ", 0, m.start() - 1) + 1:].strip(" :#=")  # "certificate no."
    return None


# "no." with its dot ("no" alone is a word: "Ligue para ... no 02-90566828"), "nº", "n°", "#"
_ABBREVIATED_NUMBER = re.compile(r"(?<![\w.])(?:(?:no|nr|num)\.|nº|n°)[ ]?[:#]?[ ]?\Z|(?<=[ ])#[ ]?\Z", re.IGNORECASE)


_CAPITALISED_LABEL = re.compile(r"(?:^|[.!?;]\s+|\n)(?P<label>[A-ZÀ-Ý][a-zà-ÿ]+(?:\s[a-zà-ÿ]+){0,2})\s?[#:]?\s?$")


def _unknown_label_before(text: str, start: int, words: "re.Pattern[str]") -> bool:
    """A capitalised word, or one and up to two more, opening the sentence right before the number, none of
    them a context word: "Plate 34/559429, phone the owner", "Permit 5317 0062 8974", "Meter reading
    67/240341, phone it in". The number is that thing's; a phone word after it belongs to the next clause
    (a word after a comma is not taken)."""
    m = _CAPITALISED_LABEL.search(text, max(0, start - 40), start)
    return m is not None and not any(words.fullmatch(w) or words.match(w) for w in m["label"].split())


def context_word_near(text: str, start: int, end: int, words: "re.Pattern[str]", window: int,
                      tight: bool = False, after_comma: bool = True) -> str | None:
    """The context word that confirms text[start:end] as a phone number, or None: the last one at most
    ``window`` characters before it -- on its line with no digit and no sentence end in between, or on
    the line above when that line ends with the word (a label, "Phone:") and nothing but punctuation
    precedes the number on its own line -- else the first one at most ``window`` characters after it on
    its line, with no digit and no sentence end in between. ``tight``: only punctuation may stand between
    word and number ("Mobile:\n1266928", "5155334 (cell)")."""
    line_start = text.rfind("\n", 0, start) + 1
    above = text.rfind("\n", 0, max(0, line_start - 1)) + 1 if line_start else 0
    best = None
    for m in words.finditer(text, max(above, start - window - 30), start):
        if start - m.end() > window and m.start() >= line_start:
            continue  # more than ``window`` characters between the word and the number
        if m.start() < line_start:
            if not _label_line(text[above:line_start]) or text[line_start:start].strip(_LABEL_PUNCTUATION):
                continue  # the line above is no label, or the number's line starts with something else
        else:
            gap = text[m.end():start]
            if _NUMBER_IN.search(gap) or not _gap_ok(gap) or (tight and gap.strip(_LABEL_PUNCTUATION)):
                continue
        best = m.group()
    if best is not None:
        return best
    line_end = text.find("\n", end)
    hi = min(len(text) if line_end < 0 else line_end, end + window)
    for m in words.finditer(text, end, hi):
        gap = text[end:m.start()]
        if tight and gap.strip(_LABEL_PUNCTUATION):
            break
        if not after_comma and "," in gap:
            break  # "Plate 34/559429, phone the owner": the number has its own label; the word is the next clause's
        if not _NUMBER_IN.search(gap) and _gap_ok(gap.rstrip(" .")) and not _SENTENCE_BREAK.match(gap):
            return m.group()
    return None


# --------------------------------------------------------------------------- address and contact blocks

ADDRESS_REACH = 4       # lines above or below the number, inside one block of non-empty lines
ADDRESS_LINE_MAX = 80   # a block line longer than this is prose, not part of an address
_STREET_WORDS = (
    r"street|st\.|road|rd\.?|avenue|ave\.?|lane|ln\.?|drive|dr\.|boulevard|blvd\.?|way|court|ct\.|place|pl\.|square"
    r"|suite|floor|building|house|close|crescent|terrace|parkway|highway"
    r"|stra(?:ss|ß)e|str\.|weg|gasse|platz|allee|ring|damm|ufer"
    r"|rue|avenue|boulevard|bd|chemin|impasse|all[ée]e|quai|route|place"
    r"|calle|c/|avenida|avda\.?|av\.|paseo|plaza|camino|carrera"
    r"|via|viale|piazza|corso|vicolo|largo|strada"
    r"|rua|travessa|praça|estrada|alameda|largo"
    r"|straat|laan|plein|gracht|kade|dijk|singel"
)
# "Hauptstraße 12", "12 Baker Street", "Via Roma 3", "Calle Mayor, 7", "Kerkstraat 5a", "Rua Augusta, 274"
_STREET = re.compile(
    rf"(?:\b[0-9]{{1,5}}[a-z]?,?\s+(?:[A-Z][\w'.-]*\s+){{0,4}}(?:{_STREET_WORDS})\b"
    rf"|(?:\b(?:{_STREET_WORDS})\b|\w(?:stra(?:ss|ß)e|str\.|weg|gasse|platz|allee|straat|laan|plein|gracht))"
    rf"[\w'. -]{{0,40}}?,?\s[0-9]{{1,5}}[a-z]?\b)",
    re.IGNORECASE)
# A postal code and a place name: "10115 Berlin", "75008 Paris", "1012 AB Amsterdam", "00184 Roma (RM)",
# "25074, Idro (BS)", "Springfield, IL 62704", "Alicante, 16357", "Wellington 6011", "London SW1A 1AA",
# "1000-001 Lisboa", "01310-100 São Paulo", "CEP 01310-100", "D-80331 München", a Dutch "7862 QR" alone.
_PLACE = r"[A-ZÀ-Ý][\w'’. ()/-]{1,40}"
_POSTAL = re.compile(
    rf"^(?:[A-Z]{{1,2}}-)?[0-9]{{4,5}}(?:-[0-9]{{3,4}})?(?:\s?[A-Z]{{2}})?,?\s+{_PLACE}$"
    rf"|^{_PLACE},\s*(?:[A-Z]{{2,3}},?\s+)?[0-9]{{4,5}}(?:-[0-9]{{3,4}})?$"
    r"|\b[A-Z][0-9][A-Z]\s?[0-9][A-Z][0-9]\b"
    rf"|^[A-ZÀ-Ý][\w'’. -]{{1,40}}\s[0-9]{{4}}$"
    rf"|^{_PLACE}[ ,-]+[0-9]{{6}}$"
    rf"|^{_PLACE}\s[0-9]{{4,5}},\s*{_PLACE}$"
    r"|^[0-9]{4}\s?[A-Z]{2}$"
    r"|\b[A-Z]{1,2}[0-9][A-Z0-9]?\s[0-9][A-Z]{2}\b"
    r"|\b(?:CEP|PLZ|CP|C\.P\.|CAP|Postcode|Zip)\b:?\s*[0-9]")
# A street line: a capitalised name with a house number at its end or start, at most 7 words, no
# sentence in it: "Hauptstraße 12", "Via Roma, 3", "Flat 80", "773 Tapia Viaduct Apt. 288".
_STREET_LINE = re.compile(
    r"^(?:[A-ZÀ-Ý][\w'’.-]*,?\s+(?:[\w'’.-]+,?\s+){0,5}[0-9]{1,5}[A-Za-z]?(?:\s?[-/]\s?[0-9]{1,4})?"
    r"|[0-9]{1,5}[A-Za-z]?,?\s+[A-ZÀ-Ý][\w'’.-]*(?:\s+[\w'’.#-]+){0,6})$")
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # an e-mail address, as the block rules read one
_EMAIL_CUE = re.compile(_EMAIL + r"|[\w.+-]+\s?[(\[]at[)\]]\s?[\w-]+")


def _address_cue(line: str) -> str | None:
    """What makes ``line`` a line of an address or contact block: "postal code", "street" or "e-mail"."""
    if _POSTAL.search(line):
        return "postal code"
    if _STREET.search(line) or (_STREET_LINE.match(line) and not _SENTENCE_IN_LINE.search(line)):
        return "street"
    if _EMAIL_CUE.search(line):
        return "e-mail"
    return None


# A short note in brackets right after a number: "(evenings)", "(a.m. only)", "(por la tarde)".
_NOTE_AFTER = re.compile(r"[ ]?\((?P<note>[^\W\d_][\w.'’]*(?:,?[ ][\w.'’]+){0,4}|24[ ]?h|24/7)\)"
                         r"(?=[ ]*(?:$|[\n.,;|·])|[ ]+[A-ZÀ-Ý])")
# Notes that qualify a quantity, not a phone number: "(approx.)", "(est.)", "(total)", "(km)", "(in EUR)".
_QUANTITY_NOTE = re.compile(r"(?i)(?:approx\w*|est\w*|ca|circa|avg|average|mean|median|total|gross|net|min\w*|max\w*"
                            r"|incl\w*|excl\w*|in \w+|per \w+|[a-z]{1,3})\.?$")
# after the number: an e-mail, a web address, or both ("| name@example.com", " • name@example.com • www.example.com")
_TRAILING_EMAIL = re.compile(r"^(?:(?:\s*[|,;/–—·•-]\s*|\s+)(?:" + _EMAIL + r"|(?:https?://|www\.)\S+)){1,3}\s*$")
# "name@example.net | ", "Thomas Group | smith@example.com | " before the number on its line
_LEADING_EMAIL = re.compile(r"^\s*(?:[^\W\d_][\w'’.&,() -]{0,60}?\s[|·/–—]\s)?" + _EMAIL + r"\s*[|,;/–—·•-]\s*$")
# A name after the number and a dash: "65 675520 — Ann Ward", "0683-8025784 — Univ.Prof. Stefani Meister".
_NAME_PARTICLES = r"(?:van|von|de|du|da|das|dos|do|der|den|del|della|di|la|le|y|e|ten|ter|zu|af|bin|al)"
# A line that is a name or a company: "Dr Ashley Wallis", "Wähner Stiftung & Co. KGaA", "Rey S.A.S."
_NAME_LINE = re.compile(rf"^(?:(?:[A-ZÀ-Ý][\w'’.()&-]*|&|{_NAME_PARTICLES})(?:[ ]|$)){{1,7}}$")
_NAME_AFTER = re.compile(rf"^[ ]?[–—|·-][ ]?(?:(?:[A-ZÀ-Ý][\w'’.()-]*|{_NAME_PARTICLES})(?:[ ]|$)){{1,7}}$")
_SENTENCE_IN_LINE = re.compile(r"[!?;]|[a-z]{4,}\.(?:\s|$)")
_NAME_BEFORE = re.compile(r"^[\w'’. ()&-]{0,60}?(?:[,:]|\s[-–—|:·]|\t)\s*$")  # "Name, ", "Name - ", "Company\t"


def in_address_block(text: str, start: int, end: int) -> str | None:
    """The cue ("street 2 lines above", ...) if text[start:end] is a number on an address or contact
    block's line of its own, else None.

    Its line holds only the number (and punctuation), or a short name before it followed by a comma or a
    dash ("Jana Nováková, 604 115 244") or an e-mail and a separator ("name@example.net | 24 25 17"), and
    nothing but punctuation after it, or a dash and a name when nothing precedes it ("65 675520 — Ann
    Ward" opening the block); the block is the run of
    non-empty lines around it (at most ADDRESS_REACH each way, each at most ADDRESS_LINE_MAX characters),
    and one of its other lines is a postal code with a place, a street with a house number, or an e-mail."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    note = _NOTE_AFTER.match(after)
    after = _TRAILING_EMAIL.sub("", after[note.end():] if note else after)  # "(a.m. only)", "| name@example.com"
    if not before.strip(_LABEL_PUNCTUATION) and _NAME_AFTER.match(after) and not any(c.isdigit() for c in after):
        after = ""  # "65 675520 — Ann Ward" opening the block
    if after.strip(_LABEL_PUNCTUATION + ",;"):
        return None
    if _LEADING_EMAIL.match(before):
        before = ""  # "name@example.net | 24 25 17" closing the block
    if before.rstrip().endswith((",", "·", "|", "–", "—")) and len(before) <= 2 * ADDRESS_LINE_MAX:
        cue = _address_cue(before.rstrip(" ,·|–—"))
        if cue:
            return f"{cue} on its line"  # "Springfield, IL 62704, 040 9227799"
    if before.strip(_LABEL_PUNCTUATION) and not _NAME_BEFORE.match(before):
        return None
    prev_blank = line_start == 0 or text[max(0, line_start - 2):line_start - 1] in ("\n", "")
    next_blank = line_end >= len(text) or text[line_end + 1:line_end + 2] in ("\n", "")
    own_paragraph = prev_blank or next_blank
    for direction in (-1, 1):
        pos_start, pos_end = line_start, line_end
        skipped = False
        for distance in range(1, ADDRESS_REACH + 2):
            if distance - skipped > ADDRESS_REACH:
                break
            if direction < 0:
                if pos_start == 0:
                    break
                pos_end = pos_start - 1
                pos_start = text.rfind("\n", 0, pos_end) + 1
            else:
                if pos_end >= len(text):
                    break
                pos_start = pos_end + 1
                pos_end = text.find("\n", pos_start)
                pos_end = len(text) if pos_end < 0 else pos_end
            line = text[pos_start:pos_end].strip()
            if not line and not skipped and (distance > 1 or own_paragraph):
                # one blank line inside the block: "...\n10115 Berlin\n\n030 1234567", "{address}\n\nName\n030 1234567"
                skipped = True
                continue
            if not line or len(line) > ADDRESS_LINE_MAX:
                break
            cue = _address_cue(line)
            if cue:
                return f"{cue} {distance} line{'s' if distance > 1 else ''} {'above' if direction < 0 else 'below'}"
    return None


def label_line_above(text: str, start: int, end: int) -> str | None:
    """The label when text[start:end] stands alone on its line (a bracketed note, punctuation or an e-mail
    after it at most) right under a label line, or one blank line under it -- short, no digit, no sentence
    (a name's dots are none: "Prof. Knut Hövel B.A."), not a label of another kind of number:
    "Acme Ltd\nOut of hours\n0161 496 0000", "Camping – accueil\n\n0449303595". Any label, not only a
    context word: a national-shaped number on a line of its own under a heading is a phone number (years,
    counts, dates and labelled IDs are not national-shaped or have their label)."""
    line_start = text.rfind("\n", 0, start) + 1
    if line_start == 0 or text[line_start:start].strip(_LABEL_PUNCTUATION):
        return None
    line_end = text.find("\n", end)
    after = text[end:len(text) if line_end < 0 else line_end]
    note = _NOTE_AFTER.match(after)
    if _TRAILING_EMAIL.sub("", after[note.end():] if note else after).strip(_LABEL_PUNCTUATION + ",;"):
        return None
    above_start = text.rfind("\n", 0, line_start - 1) + 1
    label = text[above_start:line_start - 1].strip()
    if not label and above_start > 0:  # "Camping – accueil\n\n0449303595": one blank line between
        above_start = text.rfind("\n", 0, above_start - 1) + 1
        label = text[above_start:line_start - 2].strip()
    if not label or not any(c.isalpha() for c in label) or not _label_line(label):
        return None
    if _OTHER_LABEL.search(label + " ") or (label.endswith((".", "!", "?")) and not _NAME_LINE.match(label)):
        return None  # "Order number\n..." , a sentence (not a name: "Prof. Knut Hövel B.A.")
    return label.rstrip(":").strip()


def _note_alone(text: str, start: int) -> bool:
    """The number starts its line (or follows a sentence end or a separator): "...\n449 4898 (evenings)",
    "...tired. 449 4898 (evenings)", not "in 2019 the 449 4898 (est.)"."""
    head = text[max(0, start - 3):start]
    return start == 0 or head.endswith("\n") or bool(re.search(r"(?:[.!?]|[|·:;,–—-])\s$", head))


# a number in the text between word and number; digits inside a word ("U11", "A4") are part of a name
_NUMBER_IN = re.compile(r"(?<!\w)[0-9]")
_CELL_SEPARATORS = ("|", "/", "\t", ";", "·")
_SENTENCE_BREAK = re.compile(r"^[ ]?[.!?][ ]+$")  # "2108 6754 9620. Phone ...": the word opens the next sentence


def table_column_word(text: str, start: int, end: int, words: "re.Pattern[str]") -> str | None:
    """The header cell's context word when text[start:end] is the whole cell of a table row whose header
    (one of the 3 lines above, same separator, same number of cells) names that column with a context
    word: "Name / Phone / Email\nJane Roe / 94 971030 / jroe@example.com"."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    line = text[line_start:line_end]
    for sep in _CELL_SEPARATORS:
        if sep not in line:
            continue
        cells = line.split(sep)
        offset, column = 0, None
        for i, cell in enumerate(cells):
            if line_start + offset <= start and end <= line_start + offset + len(cell):
                column = i if cell.strip(" |") == text[start:end] else None
                break
            offset += len(cell) + len(sep)
        if column is None:
            continue
        pos = line_start
        for _ in range(3):
            if pos == 0:
                break
            above_end = pos - 1
            pos = text.rfind("\n", 0, above_end) + 1
            header = text[pos:above_end].split(sep)
            if len(header) == len(cells) and not any(c.isdigit() for c in header[column]):
                word = words.search(header[column])
                if word is not None:
                    return word.group()
    return None


# "prévenez Alexandrie Guillou au 1805617826", "atiende en el 528 3213", "bereiken op 02/ 910 97 01", "unter
# 0357-9831315 entgegen": a preposition right before a number laid out as phones are (an area code in
# brackets or a leading 0, 9-11 digits in one run, or groups that are not thousands -- national_shape -- nor a
# clock time).
_PREPOSITION = re.compile(r"(?:^|[\s(])(?P<p>au|al|en el|unter|an|auf|op|naar|via|pelo|no número|(?-i:no)|através d[oe]|tramite|on|at)[ ]$",
                         re.IGNORECASE)  # "no" lower-case only: "me chamar no 89 6717-1169", not "No 449 4898"


def _phone_only_layout(match: re.Match) -> bool:
    """A leading 0 or an area code in brackets, 9-11 digits in one run, or three groups and more."""
    body = (match["cc"] or "") + match["body"]
    groups = _DIGIT_GROUPS.findall(body)
    return body.startswith(("0", "(0")) or (len(groups) == 1 and 9 <= len(groups[0]) <= 11) or len(groups) >= 3


_CLOCK_TIME = re.compile(r"(?:[01][0-9]|2[0-3])[ .:](?:[0-5][0-9])(?:[ .:][0-5][0-9])?")


def _preposition_before(text: str, match: re.Match) -> str | None:
    body = (match["cc"] or "") + match["body"]
    if not (_phone_only_layout(match) or len(_DIGIT_GROUPS.findall(body)) >= 2) or _CLOCK_TIME.fullmatch(body):
        return None  # one run of 6-8 digits (a count), or "met at 10 15 20": a time
    m = _PREPOSITION.search(text, max(0, match.start() - 12), match.start())
    return None if m is None else m["p"]


# A number that opens its line or sentence and is followed by what it is: "0249375433 – taxi conventionné",
# "(03935) 90500 (Salon, Di–Sa)", "70 241864, c'est la ligne de la ferme": a directory entry. Prose does not
# open a sentence with a national-shaped number.
_SENTENCE_START = re.compile(r"(?:^|\n|[.!?;][ ]+|[.!?][\"'”»)][ ]+)\Z")
_WORD_AFTER = re.compile(r"[ ](?P<word>[a-zà-ÿ]{2,}[ ][a-zà-ÿ]{2,})")


_QUANTITY_LEAD = re.compile(r"(?i)(?:approx\w*|est\.|estimated|ca\.|circa|avg|average|mean|median|total|gross|net|"
                            r"min\.|minimum|max\.|maximum|incl\w*|excl\w*|per|in)\b")


def _quantity_note(note: str) -> bool:
    """A bracketed note that qualifies a quantity, whole ("(approx.)", "(km)") or by its first word ("(approx. 20
    units)", "(in EUR)"): phone.note and phone.entry refuse it."""
    return _QUANTITY_NOTE.match(note.strip()) is not None or _QUANTITY_LEAD.match(note) is not None


_BRACKET_AFTER = re.compile(r"[ ]\((?P<note>[^\W\d_][^()\n]{0,60})(?:\)|[^()\n]*\))")
_ENTRY_AFTER = re.compile(r"[ ]?(?:[–—:←]|<-|(?<=[ ])-(?=[ ])|,)[ ]?[^\W\d_]")


def _directory_entry(text: str, match: re.Match) -> str | None:
    """What follows a number that opens its line or sentence: a dash, colon or comma and a word, or a note in
    brackets that is no quantity's ("(approx.)")."""
    lead = _SENTENCE_START.search(text, max(0, match.start() - 4), match.start())
    if lead is None:
        return None
    if lead.group().startswith(".") and _ABBREVIATION.search(text, max(0, lead.start() - 6), lead.start()):
        return None  # "Library card no. 375 5031 – ...": an abbreviation's dot, no sentence end
    after = _ENTRY_AFTER.match(text, match.end())
    if after is not None:
        return after.group().strip()
    word = _WORD_AFTER.match(text, match.end())
    if word is not None and _phone_only_layout(match):
        return word["word"]  # "915013519 para confirmar a presença"
    note = _BRACKET_AFTER.match(text, match.end())
    if note is None or _quantity_note(note["note"]):
        return None  # "(approx.)", "(approx. 20 units)"
    return note.group().strip()  # the whole note, "(Salon, Di–Sa)"


# An e-mail address right after the number, or right before it, on its line: "Vos coordonnées : Noémi Roy,
# 0495411839, michellegillet@sfr.fr", "jan@example.nl · 06 12345678": the line gives contact details.
_EMAIL_NEXT = re.compile(r"[ ]?[,;|·/–—-][ ]?" + _EMAIL)
_EMAIL_PREVIOUS = re.compile(_EMAIL + r"[ ]?[,;|·/–—-][ ]?\Z")


def _email_beside(text: str, match: re.Match) -> str | None:
    after = _EMAIL_NEXT.match(text, match.end())
    if after is not None:
        return after.group().strip(" ,;|·/–—-")
    before = _EMAIL_PREVIOUS.search(text, max(0, match.start() - 80), match.start())
    return None if before is None else before.group().strip(" ,;|·/–—-")


# A person's name right before the number, the number in brackets, after a comma, or after a space with a note
# in brackets behind it: "Many thanks to Tina Fox (333 313 4251)", "sort something out with John Thomas,
# 01-65130133", "Ashleigh Wallis (29 49 97)\n1 Fuller Avenue".
# Two to five capitalised words (titles and particles allowed), the last not an abbreviation.
_PERSON_BEFORE = re.compile(
    rf"(?<![\w.])(?:(?:Mr|Mrs|Ms|Dr|Prof|Sr|Sra|Hr|Fr|Mme|M|Dott|Ing|Dipl\.-Ing)\.?[ ])?"
    rf"[A-ZÀ-Ý][a-zà-ÿ'’]+(?:-[A-ZÀ-Ý][a-zà-ÿ'’]+)?(?:[ ](?:{_NAME_PARTICLES}[ ])?[A-ZÀ-Ý][a-zà-ÿ'’]+(?:-[A-ZÀ-Ý][a-zà-ÿ'’]+)?){{1,4}}"
    r"(?P<sep>[ ]\(|,[ ]|[ ])\Z")


def _person_before(text: str, match: re.Match) -> str | None:
    """(TIGHT numbers never get here: "Decca Records (4783589)", a bare run of digits after a name, is as often
    a catalogue number.)"""
    m = _PERSON_BEFORE.search(text, max(0, match.start() - 80), match.start())
    if m is None:
        return None
    if m["sep"] == " (":
        if not text.startswith(")", match.end()):
            return None
    elif m["sep"] == " ":
        if (not _BRACKET_AFTER.match(text, match.end()) or phone_digits(match) < 7
                or not _SENTENCE_START.search(text, max(0, m.start() - 4), m.start())):
            return None  # "Adele Mies 62 322077 (Vertretung Physio)": a name opening its sentence, a note after
    elif text[match.end():match.end() + 1] not in ("", "\n", ".", ",", ";", ")"):
        return None  # "Main Street, 449 4898 is ...": the comma form closes a clause
    return m.group()[:-len(m["sep"])]


_SENTENCE_STOP = re.compile(r"[.!?](?=\s)|\n")


def _bracketed_in_sentence(text: str, match: re.Match, words: "re.Pattern[str]") -> str | None:
    """The context word of the number's sentence when the number is all a bracket holds: "phone your order
    through before midday and our driver will bring it round that afternoon (58 79 39)", "rufen Sie uns an
    oder schicken Sie uns die Unterlagen ((0277) 096385)"."""
    if text[match.start() - 1:match.start()] != "(" or not text.startswith(")", match.end()):
        return None
    lo = max(0, match.start() - 240)
    stops = [m.end() for m in _SENTENCE_STOP.finditer(text, lo, match.start())]
    found = None
    for found in words.finditer(text, stops[-1] if stops else lo, match.start()):
        pass
    return None if found is None else found.group()


# A short label opening its line or sentence right before the number: "Salon: 643 7258", "Apotheke,
# Rezeptvorbestellung: 08-25595068", "Jeugdherberg – balie 05/ 914 92 76", "Radiotaxi 349 8393", "Hofladen
# (Bestellungen) 11 38 46". What the label names (a shop, a service, a desk) is open-ended; that a number
# laid out nationally follows a label of its own is what says "phone" (labels of other numbers are refused
# first: "Order no.", "Policy", "Card"). Without a colon or a dash the label is at most three words and the
# number laid out only as phones are.
_OWN_LABEL = re.compile(r"(?:^|\n|[.!?;|·•][ ]+)(?P<label>[A-ZÀ-Ý][^\n.!?;|·•:]{0,48}?)[ ]?(?P<sep>[:–—]|[ ]-|)[ ]?\Z")
_AFTER_LABELLED = re.compile(r"[ ]?(?:$|\n|[.,;)|·•](?:\s|$)|[ ]+[A-ZÀ-Ý(])")


def _own_label(text: str, match: re.Match) -> str | None:
    m = _OWN_LABEL.search(text, max(0, match.start() - 60), match.start())
    if m is None or not _AFTER_LABELLED.match(text, match.end()):
        return None
    label = m["label"].strip(" ,-–—")
    words = _BRACKETED.sub(" ", label).split()
    if not words or len(words) > 5 or not _label_line(label):
        return None
    if not m["sep"].strip():
        if not any(c.islower() for c in label):
            return None  # "BN 445 24 52": a code, not a word
        if len(words) > 3 or not _phone_only_layout(match):
            return None
    return label


class LocalPhoneRecognizer(_ShapeRecognizer):
    """National numbers without a country code, by a context word near them (phone.context) or by the
    address block they stand in (phone.address_block); see the comment above."""

    def __init__(self, context: PhoneContext = DEFAULT_PHONE_CONTEXT) -> None:
        super().__init__("LocalPhoneRecognizer")
        self.phone_context = context
        self._words = context_word_regex(context)

    def decide(self, text: str, match: re.Match) -> tuple[str, str] | None:
        """(rule, trigger) if ``match`` is reported, else None."""
        shape = national_shape(match)
        if not shape or other_number_label(text, match.start()) is not None:
            return None
        if match["ext"]:  # "(0147) 989860 ext. 3": only phones have extensions ("x 3" could be a size)
            return ("phone.extension", match["ext"].strip()) if match["ext"].strip()[:1] not in "xX" else None
        if _CURRENCY_BEFORE.search(text, max(0, match.start() - 6), match.start()):
            return None  # "€ 605 197", "USD 1 250 000"
        word = context_word_near(text, match.start(), match.end(), self._words, self.phone_context.window,
                                 tight=shape == TIGHT, after_comma=not _unknown_label_before(text, match.start(), self._words))
        if word is not None:
            return "phone.context", word
        if shape == TIGHT:
            return None
        preposition = _preposition_before(text, match)
        if preposition is not None:
            return "phone.preposition", preposition
        column = table_column_word(text, match.start(), match.end(), self._words)
        if column is not None:
            return "phone.table_column", column
        label = label_line_above(text, match.start(), match.end())
        if label is not None:
            return "phone.label_line", label
        note = _NOTE_AFTER.match(text, match.end())  # (other_number_label was refused above)
        if note is not None and not _quantity_note(note["note"]) and _note_alone(text, match.start()):
            return "phone.note", f"({note['note']})"
        if self.phone_context.address_blocks:
            cue = in_address_block(text, match.start(), match.end())
            if cue is not None:
                return "phone.address_block", cue
        email = _email_beside(text, match)
        if email is not None:
            return "phone.email_beside", email
        bracketed = _bracketed_in_sentence(text, match, self._words)
        if bracketed is not None:
            return "phone.sentence", bracketed
        if self.phone_context.layout:
            for rule, find in (("phone.label", _own_label), ("phone.entry", _directory_entry),
                               ("phone.person", _person_before)):
                trigger = find(text, match)
                if trigger is not None:
                    return rule, trigger
        return None
