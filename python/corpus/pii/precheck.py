"""Gates: for each recognizer, a cheap necessary condition of it reporting anything in a text.

A recognizer is run on a text only when its gate fires. Each gate is a *necessary condition* of
its recognizer -- every match that recognizer can report contains a match of the gate -- so a
text whose gate does not fire gets an empty result from that recognizer, and skipping it changes
no output:

==========================  ======================================================================
OfflineEmailRecognizer      a local-part character, ``@``, a word character -- presidio's pattern
                            has ``[...\\w]`` ``[@]`` ``\\w+`` (its ASCII twin subsets of those).
CreditCardRecognizer        ``\\d{4}[- ]?\\d{3,4}[- ]?\\d{3,4}[- ]?\\d{3,5}`` -- presidio's card regex
                            with its first-group alternatives widened to ``\\d{4}`` and its
                            look-arounds and ``\\b`` dropped.
IpRecognizer                ``[0-9]{1,3}(\\.[0-9]{1,3}){3}`` or ``::`` or ``([0-9A-Fa-f]{1,4}:){6}``:
                            every IPv4 form holds a dotted quad; every IPv6 alternative holds
                            ``::`` except the full 8-group form and the 6-group IPv4-embedded
                            form, which both hold six ``h:`` groups. (Both compiled with
                            presidio's own engine -- the ``regex`` module -- and flags.)
PhoneRecognizer,            ``D([P]{0,4}D){N-1}`` with D = a digit or x/X, P = phonenumbers'
FormattedPhoneRecognizer    punctuation class, and N = :func:`~corpus.pii.recognizers.min_phone_digits`
                            (6 for the default regions US, GB; 4 with DE). PhoneNumberMatcher only
                            parses substrings of its candidate regex: digit blocks joined by at
                            most four punctuation characters (x/X among them), then an optional
                            extension that parsing cuts off. Parsing keeps the digits (and, given
                            3+ letters, maps letters -- here only x/X -- to digits), so a number's
                            country code and national number come from D characters of one such
                            run, and a VALID number has at least N. FormattedPhoneRecognizer's
                            matches have at least 8 digits joined by ``space . - ( )``.
                            (Compiled with Python's ``re`` and phonenumbers' flags.)
PaymentCardRecognizer,      a decimal digit: their patterns start with ``[0-9]``.
International-, Context-,
LocalPhoneRecognizer
ObfuscatedEmailRecognizer   a bracketed "at" (``at)`` ``at]`` ``at}`` ``at>``, any case) or "dot"/"DOT":
                            its bracketed pattern holds one, its spelled one the word ``dot``.
SecretKeyRecognizer, Jwt-,  one of the recognizer's KeyFormat prefixes as a plain substring (their
PemPrivateKeyRecognizer     regexes hold the literal prefix, or look behind at it, case-sensitive)
SecretAssignmentRecognizer  a ``:`` or ``=``, one of pass/pwd/secret/token/key (any case), and
                            the name-and-separator regex that the value's look-behind requires
BasicAuthUrlRecognizer      ``://`` and ``@``, both literal in its pattern
==========================  ======================================================================

Context enhancement, score thresholds and de-duplication only rescore or drop results; they never
create one, so they cannot break the implication. The argument for presidio's and phonenumbers'
recognizers reads their exact regexes: :func:`corpus.pii.recognizers.presidio_pattern_fingerprint`
pins them and, if they differ from the ones analysed (an upgrade), those gates are switched off
(always fire) with a warning rather than trusted.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from functools import lru_cache

import regex
import corpus.pii._presidio  # noqa: F401  # presidio imported without torch/transformers
from presidio_analyzer import EntityRecognizer
from presidio_analyzer.predefined_recognizers import CreditCardRecognizer, IpRecognizer, PhoneRecognizer

from corpus.pii.cards import PaymentCardRecognizer
from corpus.pii.emails import ObfuscatedEmailRecognizer, may_hold_obfuscated_email
from corpus.pii.phones import ContextPhoneRecognizer, InternationalPhoneRecognizer, LocalPhoneRecognizer
from corpus.pii.recognizers import (
    KEY_REGEX_FLAGS,
    PRESIDIO_REGEX_FLAGS,
    SECRET_NAME,
    BasicAuthUrlRecognizer,
    FormattedPhoneRecognizer,
    OfflineEmailRecognizer,
    SecretAssignmentRecognizer,
    phone_digit_run,
    presidio_pattern_fingerprint,
)

__all__ = ["ANALYSED_PATTERN_FINGERPRINT", "Gate", "gate_for", "has_digit", "precheck_is_trusted"]

logger = logging.getLogger(__name__)

Gate = Callable[[str], bool]

# The gates of presidio's and phonenumbers' recognizers were derived from these exact patterns.
ANALYSED_PATTERN_FINGERPRINT = "517d1cb6d84ff1419c6c826774aaf4b76169f7518f8729e91d8205da3b228bd8"

# Card and IPv4 relaxations, in presidio's engine (`regex`) with presidio's flags.
_CARD = regex.compile(r"\d{4}[- ]?\d{3,4}[- ]?\d{3,4}[- ]?\d{3,5}", PRESIDIO_REGEX_FLAGS)
_IPV4 = regex.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}", PRESIDIO_REGEX_FLAGS)
_IPV6_SIX_GROUPS = regex.compile(r"(?:[0-9A-Fa-f]{1,4}:){6}", PRESIDIO_REGEX_FLAGS)
_SECRET_NAME = regex.compile(SECRET_NAME, KEY_REGEX_FLAGS)
_RE_DIGIT = re.compile(r"\d")
_REGEX_DIGIT = regex.compile(r"\d")


def _last_text_memo(fn: Callable[[str], bool]) -> Callable[[str], bool]:
    """``fn`` remembering its last text (by identity): several gates share one test of one text."""
    last: list = [None, False]

    def memo(text: str) -> bool:
        if last[0] is not text:
            last[:] = [text, fn(text)]
        return last[1]

    memo.__doc__ = fn.__doc__
    return memo


@_last_text_memo
def has_digit(text: str) -> bool:
    """Whether ``re`` or ``regex`` sees a decimal digit (both mean [0-9] on ASCII text; their
    Unicode tables may differ elsewhere, so then ask both)."""
    if text.isascii():
        return any(digit in text for digit in "0123456789")
    return bool(_RE_DIGIT.search(text) or _REGEX_DIGIT.search(text))


def _may_hold_ip(text: str) -> bool:
    if "::" in text or (text.count(":") >= 6 and _IPV6_SIX_GROUPS.search(text) is not None):
        return True
    return "." in text and has_digit(text) and _IPV4.search(text) is not None


def _may_hold_card(text: str) -> bool:
    return has_digit(text) and _CARD.search(text) is not None


# Every name SECRET_NAME accepts holds one of these words, in some letter case.
_SECRET_NAME_WORDS = ("pass", "pwd", "secret", "token", "key")




def _may_hold_assignment(text: str) -> bool:
    """The words are looked for in the case-folded text: every character the name's case-insensitive
    match equates with a letter of them (its case forms, "ſ", the Kelvin sign) folds to that letter, so
    this is a superset of the name's matches, and five substring scans cost a fifth of one
    case-insensitive alternation."""
    if "=" not in text and ":" not in text:
        return False
    folded = text.casefold()
    return any(word in folded for word in _SECRET_NAME_WORDS) and _SECRET_NAME.search(text) is not None


# presidio's e-mail pattern (and its ASCII-boundary twin) puts a local-part character right before
# the "@" and a word character right after it; "@-@" (WikiText's hyphen) has neither.
_AT_SIGN = regex.compile(r"[!#$%&'*+\-/=?^_`{|}~\w]@\w", PRESIDIO_REGEX_FLAGS)


def _may_hold_email(text: str) -> bool:
    return "@" in text and _AT_SIGN.search(text) is not None


@lru_cache(maxsize=1)
def precheck_is_trusted() -> bool:
    if presidio_pattern_fingerprint() == ANALYSED_PATTERN_FINGERPRINT:
        return True
    logger.warning("presidio/phonenumbers patterns differ from the ones the PII gates were derived from; "
                   "running those recognizers on every document")
    return False


@lru_cache(maxsize=8)
def _phone_gate(regions: tuple[str, ...]) -> Gate:
    run = phone_digit_run(regions)
    return _last_text_memo(lambda text: has_digit(text) and run.search(text) is not None)


def _always(text: str) -> bool:
    return True


def _prefix_gate(prefixes: tuple[str, ...]) -> Gate:
    def gate(text: str) -> bool:
        return any(prefix in text for prefix in prefixes)
    return gate


def gate_for(recognizer: EntityRecognizer, regions: tuple[str, ...]) -> Gate:
    """The necessary condition of ``recognizer`` reporting anything (see the module docstring)."""
    third_party = isinstance(recognizer, (OfflineEmailRecognizer, CreditCardRecognizer, IpRecognizer,
                                          PhoneRecognizer, FormattedPhoneRecognizer))
    if third_party and not precheck_is_trusted():
        return _always
    if isinstance(recognizer, OfflineEmailRecognizer):
        return _may_hold_email
    if isinstance(recognizer, CreditCardRecognizer):
        return _may_hold_card
    if isinstance(recognizer, IpRecognizer):
        return _may_hold_ip
    if isinstance(recognizer, (PhoneRecognizer, FormattedPhoneRecognizer)):
        return _phone_gate(regions)
    if isinstance(recognizer, (PaymentCardRecognizer, InternationalPhoneRecognizer, ContextPhoneRecognizer,
                               LocalPhoneRecognizer)):
        return has_digit
    if isinstance(recognizer, ObfuscatedEmailRecognizer):
        return may_hold_obfuscated_email
    if isinstance(recognizer, SecretAssignmentRecognizer):
        return _may_hold_assignment
    if isinstance(recognizer, BasicAuthUrlRecognizer):
        return lambda text: "://" in text and "@" in text
    prefixes = getattr(recognizer, "KEY_PREFIXES", None)
    if prefixes:
        return _prefix_gate(prefixes)
    logger.warning("no pre-check gate for %s; it runs on every document", type(recognizer).__name__)
    return _always
