"""Payment card numbers: every major brand's IIN ranges and lengths (12-19 digits), Luhn-checked.

presidio's ``CreditCardRecognizer`` covers 13-19 digit numbers starting 1/3/4/5/6 in one fixed
4-4-4-4-ish grouping; it misses 12-digit Maestro, 2-series Mastercard (2221-2720), Mir (2200-2204),
15-digit JCB (2131/1800) and Amex written 4-6-5. :class:`PaymentCardRecognizer` finds any run of
12-19 digits (one separator at most between digits, and the same separator throughout) and keeps
it only if it passes Luhn AND its prefix and length belong to a brand in :data:`BRANDS`: random
12-19 digit numbers pass Luhn one time in ten, but few also start with a card IIN.
"""

from __future__ import annotations

from dataclasses import dataclass

import re

import corpus.pii._presidio  # noqa: F401  # presidio imported without torch/transformers
from presidio_analyzer import Pattern, PatternRecognizer, RecognizerResult

__all__ = ["BRANDS", "Brand", "PaymentCardRecognizer", "brand_of", "card_prefix_end", "is_card_number", "luhn_ok"]


@dataclass(frozen=True)
class Brand:
    name: str
    ranges: tuple[tuple[str, str], ...]  # inclusive IIN prefix ranges; both ends have the same digit count
    lengths: tuple[int, ...]


def _r(*spans: str) -> tuple[tuple[str, str], ...]:
    """``"51-55"`` or ``"34"``: digit strings, so leading zeros count (``"0604"``)."""
    return tuple((s.split("-")[0], s.split("-")[-1]) for s in spans)


# Published IIN ranges (ISO/IEC 7812 registrations as listed by the issuers' acceptance guides).
BRANDS = (
    Brand("visa", _r("4"), (13, 16, 19)),
    Brand("mastercard", _r("51-55", "2221-2720"), (16,)),
    Brand("amex", _r("34", "37"), (15,)),
    Brand("discover", _r("6011", "644-649", "65", "622126-622925"), (16, 17, 18, 19)),
    Brand("diners", _r("300-305", "3095", "36", "38", "39"), (14, 15, 16, 17, 18, 19)),
    Brand("jcb", _r("35"), (16, 17, 18, 19)),  # registered 3528-3589; issued test ranges use all of 35xx
    Brand("jcb15", _r("2131", "1800"), (15,)),
    Brand("maestro", _r("5018", "5020", "5038", "5893", "6304", "6759", "6761-6763", "0604", "6390", "50", "56-69"),
          tuple(range(12, 20))),
    Brand("unionpay", _r("62", "81"), (16, 17, 18, 19)),
    Brand("mir", _r("2200-2204"), (16, 17, 18, 19)),
    Brand("rupay", _r("60", "65", "508", "353", "356"), (16,)),
    Brand("troy", _r("9792"), (16,)),
    Brand("prostir", _r("9"), (16,)),  # Ukraine's PROSTIR: 9804 registered, 9xxx in issuers' test numbers
)


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def brand_of(digits: str) -> str | None:
    """The first brand whose IIN range and length fit ``digits`` (a string of digits), or None."""
    for brand in BRANDS:
        if len(digits) not in brand.lengths:
            continue
        for low, high in brand.ranges:
            if low <= digits[:len(low)] <= high:
                return brand.name
    return None


class PaymentCardRecognizer(PatternRecognizer):
    """12-19 digits, optionally grouped by one kind of separator, Luhn-valid, with a brand's IIN.

    The pattern finds maximal digit runs (digits joined by at most one space or hyphen); a run
    glued to a word, a sign or a decimal point is refused, so an ID or a hash is never cut into a
    card-sized piece. Inside a grouped run the longest prefix of whole groups that is a valid card
    wins: ``4111 1111 1111 1111 12/25`` is a card followed by an expiry month.
    """

    SCORE = 1.0  # only validated numbers are reported (so there is no context to score)
    # ASCII boundaries, not \w: in CJK text a number is glued to letters ("カード番号は4900403270782120です")
    REGEX = r"(?<![A-Za-z0-9_+\-.,/:#])(?<![0-9][ \-])[0-9](?:[ \-]?[0-9]){11,}(?![A-Za-z0-9_]|[.,][0-9])"
    _RUN = re.compile(REGEX)

    def __init__(self) -> None:
        super().__init__(supported_entity="CREDIT_CARD", name="PaymentCardRecognizer",
                         patterns=[Pattern("payment card 12-19", self.REGEX, self.SCORE)])

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None) -> list[RecognizerResult]:
        results = []
        for run in self._RUN.finditer(text):
            end = card_prefix_end(run.group())
            if end:
                results.append(RecognizerResult(
                    entity_type="CREDIT_CARD", start=run.start(), end=run.start() + end, score=self.SCORE,
                    recognition_metadata={RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                                          RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}))
        return results


def card_prefix_end(run: str) -> int:
    """Length of the longest card at the start of ``run`` (a digit run), 0 if none."""
    separators = {c for c in run if not c.isdigit()}
    if not separators:
        return len(run) if 12 <= len(run) <= 19 and is_card_number(run) else 0
    if len(separators) > 1:
        return 0
    separator = separators.pop()
    groups = run.split(separator)
    for n in range(len(groups), 1, -1):
        candidate = groups[:n]
        digits = "".join(candidate)
        if len(digits) < 12:
            break
        if len(digits) <= 19 and _card_grouping([len(g) for g in candidate]) and is_card_number(digits):
            return len(separator.join(candidate))
    return 0


def is_card_number(digits: str) -> bool:
    return luhn_ok(digits) and brand_of(digits) is not None


def _card_grouping(groups: list[int]) -> bool:
    """4-4-4-4 style (the last group 1-7 long: 4-4-4-7 for 19 digits), or Amex/Diners 4-6-5 / 4-6-4."""
    if len(groups) == 3 and groups[0] == 4 and groups[1] == 6 and groups[2] in (4, 5):
        return True
    return len(groups) >= 3 and all(n == 4 for n in groups[:-1]) and 1 <= groups[-1] <= 7
