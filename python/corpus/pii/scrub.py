"""Record-level PII scrub for stage 05: find e-mails, phones, cards, IPs and secret keys with
presidio-analyzer and replace each with a plain-text placeholder.

Public API: :class:`PiiParams`, :data:`PLACEHOLDERS`, :func:`find_spans`, :func:`scrub`,
:func:`scrub_batch`. Engines come from :func:`corpus.pii.recognizers.build_analyzer` (offline,
one per process per parameter set).

Span resolution. presidio may report overlapping spans (a phone inside a key, an IP that is also
phone-shaped). They are resolved greedily in a fixed order -- longest span first, then type
priority KEY > CARD > EMAIL > IP > PHONE, then leftmost start -- keeping a span only if it overlaps
none already kept. The result depends only on the set of (start, end, type) triples, never on
presidio's output order or scores.

Replacement and idempotence. Each kept span becomes ``<EMAIL>``, ``<PHONE>``, ``<CARD>``, ``<IP>``
or ``<KEY>``. No recognizer matches ``<`` or ``>`` (none of their character classes holds them) nor
the bare words inside, so a placeholder is never detected, nor is any span reaching into one; and
placeholders hold no ``@``, digit, ``:`` or key prefix, so the pre-check skips them. Removing a
span can still expose a new match in the text around it (a phone that was glued to a letter,
say), so :func:`scrub` repeats find-and-replace until nothing is found: its output is a fixed
point, hence ``scrub(scrub(t)) == scrub(t)`` holds by construction.
The counts are the replacements made over all rounds.

The pre-check. Running presidio costs milliseconds per document (tokenising, one phonenumbers
pass per region, context scoring); most documents hold no candidate at all. Before calling
presidio, :func:`may_contain_pii` searches a few regexes, each a *necessary condition* of one
recognizer -- every match that recognizer can report contains a match of the regex, so a text
with no hit gets an empty result from presidio and is skipped with exactly the same output:

=====  =====================================================================================
EMAIL  ``@`` -- presidio's pattern has a literal ``[@]``.
CARD   ``\\d{4}[- ]?\\d{3,4}[- ]?\\d{3,4}[- ]?\\d{3,5}`` -- presidio's card regex with its first-group
       alternatives widened to ``\\d{4}`` and its look-arounds and ``\\b`` dropped.
IP     ``[0-9]{1,3}(\\.[0-9]{1,3}){3}`` or ``::`` or ``([0-9A-Fa-f]{1,4}:){6}``: every IPv4 form
       holds a dotted quad; every IPv6 alternative holds ``::`` except the full 8-group form and
       the 6-group IPv4-embedded form, which both hold six ``h:`` groups.
       (Both compiled with presidio's own engine -- the ``regex`` module -- and flags.)
PHONE  ``D([P]{0,4}D){N-1}`` with D = a digit or x/X, P = phonenumbers' punctuation class, and
       N = :func:`~corpus.pii.recognizers.min_phone_digits` (5 for the default regions, because
       of AU; 4 with DE). PhoneNumberMatcher only parses substrings of its candidate regex:
       digit blocks joined by at most four punctuation characters (x/X among them), then an
       optional extension that parsing cuts off. Parsing keeps the digits (and, given 3+ letters,
       maps letters -- here only x/X -- to digits), so a number's country code and national
       number come from D characters of one such run, and a VALID number has at least N.
       FormattedPhoneRecognizer's matches have at least 8 digits joined by ``space . - ( )``.
       (Compiled with Python's ``re`` and phonenumbers' flags, like phonenumbers itself.)
KEY    one of the KeyFormat prefixes as a plain substring (their regexes are the literal prefix
       plus a tail, case-sensitive); or, for ``password=``-style values, a ``:`` or ``=`` and then
       the name-and-separator regex that the value's look-behind requires.
=====  =====================================================================================

Context enhancement, score thresholds and de-duplication only rescore or drop results; they never
create one, so they cannot break the implication. The argument reads specific third-party
regexes; :func:`corpus.pii.recognizers.presidio_pattern_fingerprint` pins them and, if they differ
from the ones analysed (a presidio/phonenumbers upgrade), the pre-check is switched off with a
warning rather than trusted.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import regex
from phonenumbers import phonenumberutil
from presidio_analyzer import BatchAnalyzerEngine, RecognizerResult

from corpus.pii.recognizers import (
    ENTITY_OF_TYPE,
    KEY_FORMATS,
    KEY_REGEX_FLAGS,
    PII_TYPES,
    PRESIDIO_REGEX_FLAGS,
    SECRET_NAME,
    TYPE_OF_ENTITY,
    build_analyzer,
    min_phone_digits,
    presidio_pattern_fingerprint,
    validate_regions,
)

__all__ = [
    "DEFAULT_PHONE_REGIONS",
    "PLACEHOLDERS",
    "TYPE_PRIORITY",
    "PiiParams",
    "find_spans",
    "may_contain_pii",
    "resolve_spans",
    "scrub",
    "scrub_batch",
]

logger = logging.getLogger(__name__)

PLACEHOLDERS = {"EMAIL": "<EMAIL>", "PHONE": "<PHONE>", "CARD": "<CARD>", "IP": "<IP>", "KEY": "<KEY>"}
# Which type wins when two overlapping spans have the same length (lower wins).
TYPE_PRIORITY = {"KEY": 0, "CARD": 1, "EMAIL": 2, "IP": 3, "PHONE": 4}
# Default regions for numbers written without a country code; a number written with +cc / 00cc
# is found whatever the regions, and FormattedPhoneRecognizer finds grouped national numbers
# ("01 23 45 67 89", "030 1234 5678") by shape. So the regions only matter for numbers written
# as bare or irregular digit runs, and each one adds false positives on numeric text and one
# phonenumbers pass per candidate document. Chosen for English-language text: US (all of NANP,
# CA included: validity is checked across every region sharing +1) and GB. Left out: IN and AU,
# whose national formats turn GSM8K arithmetic ("60000-10800") into valid numbers (15 false phones
# in 1,500 GSM8K documents, none with US+GB, at the same recall on the labelled sentences); DE,
# whose valid national numbers can be 4 digits long (years, house numbers -- "16 48 rue
# Descartes" -- become phones, and the pre-check must fire on any 4-digit run); and FR/ES/IE,
# which matched arithmetic ("960-480-120 = ...") and version strings in GSM8K and bug reports.
DEFAULT_PHONE_REGIONS = ("US", "GB")
# The pre-check below was derived from these exact third-party patterns.
ANALYSED_PATTERN_FINGERPRINT = "517d1cb6d84ff1419c6c826774aaf4b76169f7518f8729e91d8205da3b228bd8"
# Each round replaces at least one span of non-placeholder text, so rounds are few; the cap only
# guards against a recognizer that, contrary to the argument above, matched a placeholder.
MAX_ROUNDS = 8


@dataclass(frozen=True)
class PiiParams:
    """What to scrub.

    ``entities``: subset of EMAIL, PHONE, CARD, IP, KEY. ``phone_regions``: phonenumbers regions
    tried for numbers without a country code. ``score_threshold``: presidio scores below it are
    dropped -- 0.4 keeps presidio's phone score (0.4) and everything validated (e-mail, card, keys:
    0.8-1.0; IP 0.6). ``precheck``: skip presidio on texts the pre-check rules out (same output).
    """

    entities: tuple[str, ...] = PII_TYPES
    phone_regions: tuple[str, ...] = DEFAULT_PHONE_REGIONS
    score_threshold: float = 0.4
    precheck: bool = True

    def __post_init__(self) -> None:
        unknown = set(self.entities) - set(PII_TYPES)
        if not self.entities or unknown:
            raise ValueError(f"entities must be a non-empty subset of {PII_TYPES}; unknown: {sorted(unknown)}")
        validate_regions(self.phone_regions)
        if not 0.0 <= self.score_threshold <= 1.0:
            raise ValueError(f"score_threshold must be in [0, 1], got {self.score_threshold}")

    @property
    def engine_key(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Parameters that change the engine (order-insensitive), for the per-process caches."""
        return tuple(sorted(set(self.entities))), tuple(sorted(set(self.phone_regions)))


Span = tuple[int, int, str]


# --------------------------------------------------------------------------- pre-check

# Card and IPv4 relaxations, in presidio's engine (`regex`) with presidio's flags.
_CARD = regex.compile(r"\d{4}[- ]?\d{3,4}[- ]?\d{3,4}[- ]?\d{3,5}", PRESIDIO_REGEX_FLAGS)
_IPV4 = regex.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}", PRESIDIO_REGEX_FLAGS)
_IPV6_SIX_GROUPS = regex.compile(r"(?:[0-9A-Fa-f]{1,4}:){6}", PRESIDIO_REGEX_FLAGS)
_SECRET_NAME = regex.compile(SECRET_NAME, KEY_REGEX_FLAGS)
_KEY_PREFIXES = tuple(prefix for key_format in KEY_FORMATS for prefix in key_format.prefixes)
_RE_DIGIT = re.compile(r"\d")
_REGEX_DIGIT = regex.compile(r"\d")


def _has_digit(text: str) -> bool:
    """Whether ``re`` or ``regex`` sees a decimal digit (both mean [0-9] on ASCII text; their
    Unicode tables may differ elsewhere, so then ask both)."""
    if text.isascii():
        return any(digit in text for digit in "0123456789")
    return bool(_RE_DIGIT.search(text) or _REGEX_DIGIT.search(text))


def _may_hold_key(text: str) -> bool:
    if any(prefix in text for prefix in _KEY_PREFIXES):
        return True
    return ("=" in text or ":" in text) and _SECRET_NAME.search(text) is not None


def _may_hold_ipv6(text: str) -> bool:
    return "::" in text or (text.count(":") >= 6 and _IPV6_SIX_GROUPS.search(text) is not None)


@lru_cache(maxsize=8)
def _phone_digit_run(regions: tuple[str, ...]) -> re.Pattern[str]:
    """At least min_phone_digits digits (or x/X) joined by <= 4 phonenumbers punctuation characters."""
    digit_like = r"[\dxX]"
    punctuation = f"[{phonenumberutil._VALID_PUNCTUATION}]"
    n = min_phone_digits(regions)
    return re.compile(f"{digit_like}(?:{punctuation}{{0,4}}{digit_like}){{{n - 1}}}", phonenumberutil._REGEX_FLAGS)


@lru_cache(maxsize=1)
def _precheck_is_trusted() -> bool:
    if presidio_pattern_fingerprint() == ANALYSED_PATTERN_FINGERPRINT:
        return True
    logger.warning("presidio/phonenumbers patterns differ from the ones the PII pre-check was derived "
                   "from; running presidio on every document")
    return False


def may_contain_pii(text: str, params: PiiParams) -> bool:
    """False only if presidio is certain to find nothing in ``text`` (see the module docstring).

    Cheap tests first: substring tests before regexes, and the digit test gates the digit-based
    types (PHONE, CARD, IPv4) at once.
    """
    if not _precheck_is_trusted():
        return True
    types = params.entities
    if "EMAIL" in types and "@" in text:
        return True
    if "KEY" in types and _may_hold_key(text):
        return True
    if "IP" in types and _may_hold_ipv6(text):
        return True
    if not _has_digit(text):
        return False
    if "IP" in types and "." in text and _IPV4.search(text):
        return True
    if "CARD" in types and _CARD.search(text):
        return True
    return "PHONE" in types and _phone_digit_run(params.engine_key[1]).search(text) is not None


# --------------------------------------------------------------------------- spans


def resolve_spans(spans: Iterable[Span]) -> list[Span]:
    """Non-overlapping spans by the documented rule: longest, then type priority, then start."""
    kept: list[Span] = []
    for span in sorted(set(spans), key=lambda s: (s[0] - s[1], TYPE_PRIORITY[s[2]], s[0], s[1])):
        if all(span[1] <= k[0] or k[1] <= span[0] for k in kept):
            kept.append(span)
    return sorted(kept)


def _to_spans(results: Iterable[RecognizerResult]) -> list[Span]:
    return resolve_spans((r.start, r.end, TYPE_OF_ENTITY[r.entity_type]) for r in results if r.end > r.start)


def _analyze(text: str, params: PiiParams) -> list[Span]:
    pii_types, regions = params.engine_key
    results = build_analyzer(pii_types, regions).analyze(
        text=text,
        language="en",
        entities=[ENTITY_OF_TYPE[t] for t in pii_types],
        score_threshold=params.score_threshold,
    )
    return _to_spans(results)


def find_spans(text: str, params: PiiParams) -> list[Span]:
    """Resolved, non-overlapping ``(start, end, type)`` spans of ``text``, sorted by start."""
    if params.precheck and not may_contain_pii(text, params):
        return []
    return _analyze(text, params)


# --------------------------------------------------------------------------- replacement


def _replace(text: str, spans: list[Span]) -> str:
    pieces, position = [], 0
    for start, end, pii_type in spans:
        pieces += [text[position:start], PLACEHOLDERS[pii_type]]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _scrub_rounds(text: str, spans: list[Span], params: PiiParams) -> tuple[str, dict[str, int]]:
    """Replace ``spans`` (found in ``text``), then rescan until a fixed point."""
    counts: Counter[str] = Counter()
    for _ in range(MAX_ROUNDS):
        if not spans:
            break
        text = _replace(text, spans)
        counts.update(pii_type for _, _, pii_type in spans)
        spans = find_spans(text, params)
    return text, dict(counts)


def scrub(text: str, params: PiiParams) -> tuple[str, dict[str, int]]:
    """``text`` with every PII span replaced by its placeholder, and the count per type found."""
    return _scrub_rounds(text, find_spans(text, params), params)


def scrub_batch(texts: list[str], params: PiiParams, batch_size: int = 64) -> list[tuple[str, dict[str, int]]]:
    """:func:`scrub` for many texts: the pre-check picks the candidates, presidio's
    BatchAnalyzerEngine analyses only those (tokenising them with ``nlp.pipe``)."""
    if params.precheck:
        candidates = [i for i, text in enumerate(texts) if may_contain_pii(text, params)]
    else:
        candidates = list(range(len(texts)))
    spans_of: dict[int, list[Span]] = {}
    pii_types, regions = params.engine_key
    batch = BatchAnalyzerEngine(build_analyzer(pii_types, regions))
    results = batch.analyze_iterator(
        [texts[i] for i in candidates],
        language="en",
        batch_size=batch_size,
        entities=[ENTITY_OF_TYPE[t] for t in pii_types],
        score_threshold=params.score_threshold,
    )
    for i, doc_results in zip(candidates, results):
        spans_of[i] = _to_spans(doc_results)
    return [_scrub_rounds(text, spans_of.get(i, []), params) for i, text in enumerate(texts)]
