"""presidio-analyzer recognizers and engine for the stage-05 PII scrub, built to run offline.

What is here:

* :func:`build_analyzer` -- one ``AnalyzerEngine`` per (entities, phone regions), cached per process.
  Its NLP engine is :class:`BlankSpacyNlpEngine` (``spacy.blank("en")``: a tokenizer, no model, no
  download), its context enhancer :class:`IndexedContextEnhancer` (presidio's, minus a scan that is
  quadratic in long documents), and its registry holds only the recognizers this scrub needs:

  ======  ================================================================================
  EMAIL   :class:`OfflineEmailRecognizer` -- presidio's ``EmailRecognizer`` (plus the same pattern
          with ASCII-only boundaries, for addresses glued to CJK letters) whose domain check
          uses a private ``TLDExtract(suffix_list_urls=(), cache_dir=None)``: the public-suffix
          snapshot bundled with tldextract, never the network (see below)
  PHONE   presidio's ``PhoneRecognizer`` (python-phonenumbers, leniency VALID, the given regions),
          run per line by :class:`LineWindowPhoneRecognizer` (same results, less parsing);
          :class:`FormattedPhoneRecognizer` (digit groups shaped like a phone number that
          phonenumbers rejects as invalid, e.g. unassigned area codes); and, from
          :mod:`corpus.pii.phones`, ``InternationalPhoneRecognizer`` (+cc / 00cc with a real
          country code) and ``ContextPhoneRecognizer`` (national/local numbers after a phone
          word in ~30 languages)
  CARD    presidio's ``CreditCardRecognizer`` (regex + Luhn) and
          :class:`corpus.pii.cards.PaymentCardRecognizer` (every brand's IIN ranges and lengths,
          12-19 digits, Luhn, with or without separators)
  IP      presidio's ``IpRecognizer`` without its ``IPv6_unspecified`` pattern (a bare ``::`` is
          not PII and is common in code), plus IPv4 / full IPv6 with ASCII-only boundaries
  KEY     :class:`SecretKeyRecognizer` (fixed-prefix tokens: AWS, GitHub, GitLab, Slack, Google,
          OpenAI/Anthropic ``sk-``, Stripe, Hugging Face, Twilio, npm, PyPI, SendGrid, Shopify,
          DigitalOcean, Azure connection-string keys and SAS signatures),
          :class:`JwtRecognizer`, :class:`PemPrivateKeyRecognizer`,
          :class:`SecretAssignmentRecognizer` (``password=`` / ``api_key:`` with a high-entropy
          value), :class:`BasicAuthUrlRecognizer` (``scheme://user:password@host``)
  ======  ================================================================================

  :func:`corpus.pii.scrub.find_spans` calls these recognizers directly (no spaCy pass) wherever
  that gives the engine's result; the engine itself is the reference and the path for thresholds
  above 0.4.

* The facts the pre-check gates (:mod:`corpus.pii.precheck`) are derived from (:data:`KEY_FORMATS` prefixes, :data:`SECRET_NAME`,
  :func:`min_phone_digits`, :func:`presidio_pattern_fingerprint`), kept next to the patterns they
  describe so that a change to one is seen next to the other.

Offline tldextract: presidio's ``EmailRecognizer.validate_result`` calls the module-level
``tldextract.extract``, whose default extractor fetches the public suffix list over HTTP on first
use (and caches it under ``~/.cache``). :class:`OfflineEmailRecognizer` overrides that one method
to use an extractor built with ``suffix_list_urls=()`` (no URL to fetch, so tldextract falls back
to its bundled snapshot) and ``cache_dir=None`` (no disk cache to read or write). presidio's own
module and the global ``tldextract.extract`` are left untouched.
"""

from __future__ import annotations

import base64
import bisect
import re
import binascii
import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import phonenumbers
import regex
import spacy
import tldextract
from phonenumbers import COUNTRY_CODE_TO_REGION_CODE, phonenumbermatcher, phonenumberutil
from phonenumbers.phonemetadata import PhoneMetadata
import corpus.pii._presidio  # noqa: F401  # presidio imported without torch/transformers
from presidio_analyzer import AnalyzerEngine, EntityRecognizer, Pattern, PatternRecognizer, RecognizerRegistry
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import NlpArtifacts, SlimSpacyNlpEngine
from presidio_analyzer.predefined_recognizers import (
    CreditCardRecognizer,
    EmailRecognizer,
    IpRecognizer,
    PhoneRecognizer,
)
from spacy.tokens import Doc

from corpus.web.urls import offline_tld_extractor

from corpus.pii.cards import PaymentCardRecognizer
from corpus.pii.params import PII_TYPES, validate_regions
from corpus.pii.emails import ObfuscatedEmailRecognizer
from corpus.pii.phones import (
    DEFAULT_PHONE_CONTEXT,
    ContextPhoneRecognizer,
    InternationalPhoneRecognizer,
    LocalPhoneRecognizer,
    PhoneContext,
    other_number_label,
)

__all__ = [
    "ASSIGNMENT_REGEX",
    "ENTITY_OF_TYPE",
    "KEY_FORMATS",
    "KEY_REGEX_FLAGS",
    "PHONE_LENIENCY",
    "PII_TYPES",
    "PRESIDIO_REGEX_FLAGS",
    "SECRET_NAME",
    "TYPE_OF_ENTITY",
    "BASIC_AUTH_REGEX",
    "BasicAuthUrlRecognizer",
    "BlankSpacyNlpEngine",
    "FormattedPhoneRecognizer",
    "IndexedContextEnhancer",
    "JwtRecognizer",
    "KeyFormat",
    "LineWindowPhoneRecognizer",
    "OfflineEmailRecognizer",
    "PemPrivateKeyRecognizer",
    "SecretAssignmentRecognizer",
    "SecretKeyRecognizer",
    "build_analyzer",
    "recognizers_for",
    "looks_like_secret",
    "min_phone_digits",
    "offline_tld_extractor",
    "phone_digit_run",
    "presidio_pattern_fingerprint",
    "validate_regions",
]

ENTITY_OF_TYPE = {
    "EMAIL": "EMAIL_ADDRESS",
    "PHONE": "PHONE_NUMBER",
    "CARD": "CREDIT_CARD",
    "IP": "IP_ADDRESS",
    "KEY": "SECRET_KEY",
}
TYPE_OF_ENTITY = {entity: pii_type for pii_type, entity in ENTITY_OF_TYPE.items()}

# presidio compiles PatternRecognizer patterns with the `regex` module and these flags.
PRESIDIO_REGEX_FLAGS = regex.DOTALL | regex.MULTILINE | regex.IGNORECASE
# Key prefixes are case-sensitive (AKIA..., ghp_...): no IGNORECASE; names in assignments opt in
# with a scoped (?i:...).
KEY_REGEX_FLAGS = regex.DOTALL | regex.MULTILINE
# phonenumbers' Leniency.VALID (presidio's default): the number must be valid for its region.
# POSSIBLE (0) accepts any 2+ digit run that has a possible length somewhere -- years, prices.
PHONE_LENIENCY = 1


# --------------------------------------------------------------------------- offline tldextract




# presidio's e-mail and IP patterns are bounded by \b, which sees no boundary between a CJK letter
# and an ASCII one ("メールはeabe@gmail.comまで"): the same shapes with ASCII-only boundaries.
EMAIL_ASCII_BOUNDARIES = Pattern(
    "Email (ASCII boundaries)",
    r"(?<![A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.])[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~](?:[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.]*"
    r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~])?@[A-Za-z0-9]+(?:-+[A-Za-z0-9]+)*(?:\.[A-Za-z0-9]+(?:-+[A-Za-z0-9]+)*)+"
    r"(?![A-Za-z0-9\-])",
    0.5,
)
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
IP_ASCII_BOUNDARIES = [
    Pattern("IPv4 (ASCII boundaries)", rf"(?<![A-Za-z0-9_.])(?:{_OCTET}\.){{3}}{_OCTET}(?![A-Za-z0-9_]|\.[0-9])", 0.6),
    Pattern("IPv6 full (ASCII boundaries)", r"(?<![A-Za-z0-9_:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![A-Za-z0-9_:])",
            0.6),
]


class OfflineEmailRecognizer(EmailRecognizer):
    """presidio's EmailRecognizer (plus its pattern with ASCII boundaries), validating the domain
    against the bundled suffix snapshot."""

    def __init__(self, tld_extractor: tldextract.TLDExtract) -> None:
        super().__init__(patterns=[*EmailRecognizer.PATTERNS, EMAIL_ASCII_BOUNDARIES])
        self._tld_extractor = tld_extractor

    def validate_result(self, pattern_text: str) -> bool:  # same rule as presidio's, offline
        return self._tld_extractor(pattern_text).fqdn != ""


# --------------------------------------------------------------------------- NLP engine


class _Tokens(list):
    """A Doc's tokens, materialised once (iterating a Doc builds a new Token object per step),
    with each token's end offset for :class:`IndexedContextEnhancer`."""

    def __init__(self, doc: Doc) -> None:
        super().__init__(doc)
        self.ends = [token.idx + len(token) for token in self]


class _Keywords(list):
    """presidio's keyword list with a set behind ``in`` (it is searched once per context word)."""

    def __init__(self, words: list[str]) -> None:
        super().__init__(words)
        self._set = frozenset(words)

    def __contains__(self, word: object) -> bool:
        return word in self._set


class BlankSpacyNlpEngine(SlimSpacyNlpEngine):
    """presidio NLP engine on ``spacy.blank("en")``: tokens for context words, no model to load.

    A blank pipeline has no lemmatizer, so a token's "lemma" is its lower-cased text; presidio's
    context enhancer then still finds words like "phone" or "card" before a match. The vocabulary
    grows with every new word tokenised, so the pipeline is rebuilt past :attr:`MAX_VOCAB` entries
    (a blank tokenizer's output does not depend on what it has seen).
    """

    MAX_VOCAB = 500_000

    def __init__(self) -> None:
        super().__init__(models=[{"lang_code": "en", "model_name": "blank:en"}], auto_download=False)

    def load(self) -> None:
        self.nlp = {"en": spacy.blank("en")}

    def _doc_to_nlp_artifact(self, doc: Doc, language: str) -> NlpArtifacts:
        tokens = _Tokens(doc)
        artifacts = NlpArtifacts(
            entities=[],
            tokens=tokens,
            tokens_indices=[token.idx for token in tokens],
            lemmas=[token.lemma_ or token.lower_ for token in tokens],
            nlp_engine=self,
            language=language,
            scores=[],
        )
        artifacts.keywords = _Keywords(artifacts.keywords)
        if len(self.nlp[language].vocab) > self.MAX_VOCAB:
            self.load()
        return artifacts


class IndexedContextEnhancer(LemmaContextAwareEnhancer):
    """presidio's LemmaContextAwareEnhancer with its per-match token scan replaced by a bisect.

    presidio walks the tokens from the start of the text for every match (quadratic: a 180 kB
    page with 4,000 phone numbers took 40 s). The token it looks for is the first whose
    ``idx == start`` or ``start < idx + len`` -- tokens are non-empty, so the first with
    ``end > start``, which ``bisect_right`` over the (sorted) token ends finds directly.
    """

    @staticmethod
    def _find_index_of_match_token(word: str, start: int, tokens, tokens_indices: list[int]) -> int:
        ends = getattr(tokens, "ends", None)
        if ends is None:  # artifacts from another engine: presidio's own scan
            return LemmaContextAwareEnhancer._find_index_of_match_token(word, start, tokens, tokens_indices)
        index = bisect.bisect_right(ends, start)
        if index == len(ends):
            raise ValueError(f"Did not find word '{word}' in the list of tokens although it is expected to be found")
        return index


# --------------------------------------------------------------------------- phones


class FormattedPhoneRecognizer(PatternRecognizer):
    """Digit groups laid out like a phone number, valid or not: ``(96) 627-277``, ``+1-944-435-4352x04732``.

    phonenumbers (leniency VALID) drops numbers with unassigned area codes or unusual lengths,
    which still identify a person in text. This catches them by shape: an optional ``+cc`` /
    ``00cc`` prefix, 3-6 groups of digits separated by one of ``space . -`` (the first group may be
    a parenthesised area code), an optional ``x123`` / ``ext. 123`` extension, and 8-15 digits
    before the extension. Shapes that are something else are rejected in :meth:`invalidate_result`:
    mixed separators (``25.50-13.50``), US SSNs (``123-45-6789``), dotted quads (IPv4), date-times,
    space/dot thousands grouping (``1 000 000``), runs of years (``2019 2020 2021``); and the
    regex itself refuses digit groups glued to words, further digits, times or arithmetic
    (``<<960-480-120=360>>``).
    """

    MIN_DIGITS = 8
    MAX_DIGITS = 15
    SCORE = 0.4  # presidio's PhoneRecognizer score
    CONTEXT = ["phone", "telephone", "tel", "mobile", "cell", "call", "fax", "contact", "number"]
    REGEX = (
        r"(?<![\w+\-.(/])(?<![=+*/×÷<>$]\s{0,3})"  # not the tail of a word, number, path or sum
        r"(?P<prefix>\+[0-9]{1,3}[ .\-]?|00[0-9]{1,3}[ .\-])?"
        r"(?P<groups>(?:\([0-9]{1,4}\)[ .\-]?|[0-9]{1,4}[ .\-])(?:[0-9]{2,4}[ .\-]){1,4}[0-9]{2,4})"
        r"(?P<ext>[ ]?(?:x|ext\.?|extension)[ ]?[0-9]{1,6})?"
        r"(?![\w(]|[.\-/:][0-9]|\s{0,3}[=+*/×÷<>])"  # not followed by more of a number, a time or a sum
    )
    _SHAPE = regex.compile(REGEX, PRESIDIO_REGEX_FLAGS)
    _GROUP = regex.compile(r"[0-9]+")
    _SSN = regex.compile(r"[0-9]{3}-[0-9]{2}-[0-9]{4}")
    _DOTTED_QUAD = regex.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}")
    _YEAR = regex.compile(r"(?:1[89]|20)[0-9]{2}")
    _AREA_CODE = regex.compile(r"^\([0-9]+\)[ .\-]?")
    _DIGITS_OUT = str.maketrans("", "", "0123456789")
    _DATE_FIRST = regex.compile(
        r"(?:[0-9]{4}[-./][0-9]{1,2}[-./][0-9]{1,2}|[0-9]{1,2}[-./][0-9]{1,2}[-./][0-9]{4})(?![0-9])")

    def __init__(self) -> None:
        super().__init__(
            supported_entity=ENTITY_OF_TYPE["PHONE"],
            name="FormattedPhoneRecognizer",
            patterns=[Pattern("formatted phone", self.REGEX, self.SCORE)],
            context=self.CONTEXT,
        )

    def analyze(self, text, entities, nlp_artifacts=None, regex_flags=None):
        results = super().analyze(text, entities, nlp_artifacts, regex_flags)
        return [r for r in results if other_number_label(text, r.start) is None]  # "Invoice 2014 822 979"

    def invalidate_result(self, pattern_text: str) -> bool:
        # invalidate (not validate): a validated result would be scored 1.0, above presidio's phones
        shape = self._SHAPE.fullmatch(pattern_text)
        if shape is None:  # cannot happen for presidio's own matches; be strict anyway
            return True
        prefix, body = shape["prefix"] or "", shape["groups"]
        groups = self._GROUP.findall(body)
        digits = sum(map(len, groups)) + sum(c.isdigit() for c in prefix)
        if not self.MIN_DIGITS <= digits <= self.MAX_DIGITS:
            return True
        return self._is_other_number(prefix, body, groups)

    def _is_other_number(self, prefix: str, body: str, groups: list[str]) -> bool:
        separators = self._separators(body)
        if len(separators) > 1:
            return True  # 25.50-13.50: a phone sticks to one separator (after any "(area) ")
        if prefix:  # an explicit +cc / 00cc is a phone number
            return False
        if self._SSN.fullmatch(body) or self._DOTTED_QUAD.fullmatch(body):
            return True
        if self._DATE_FIRST.match(body):
            return True  # 2023-01-01 15, 12.10.2023 0830
        if len(groups) == 3 and not body.startswith("(") and sum(map(len, groups)) <= 8:
            return True  # 12-10-23 1, 1 12 2023: too short to tell from a date
        if all(self._YEAR.fullmatch(group) for group in groups):
            return True
        first, rest = groups[0], groups[1:]
        thousands = len(first) <= 3 and not first.startswith("0") and all(len(g) == 3 for g in rest)
        return thousands and separators <= {" ", "."}

    @classmethod
    def _separators(cls, body: str) -> set[str]:
        """The characters between digit groups, ignoring a leading ``(area) ``."""
        return set(cls._AREA_CODE.sub("", body).translate(cls._DIGITS_OUT))


def _min_national_length(country_code: int) -> int:
    """Shortest national number valid in any region sharing ``country_code``.

    ``is_valid_number`` first requires the national number's length to be one of the region's
    ``general_desc.possible_length`` (local-only lengths are not valid); without metadata, 2 is
    ``parse``'s own floor.
    """
    shortest = []
    for region in COUNTRY_CODE_TO_REGION_CODE.get(country_code, ()):
        if region == phonenumberutil.REGION_CODE_FOR_NON_GEO_ENTITY:
            metadata = PhoneMetadata.metadata_for_nongeo_region(country_code)
        else:
            metadata = PhoneMetadata.metadata_for_region(region)
        lengths = [n for n in (metadata.general_desc.possible_length or ()) if n > 0] if metadata else []
        shortest.append(min(lengths, default=2))
    return min(shortest, default=2)


@lru_cache(maxsize=None)
def min_phone_digits(regions: tuple[str, ...]) -> int:
    """Fewest digits any number reported by PhoneRecognizer or FormattedPhoneRecognizer can contain.

    A VALID number written without a country code is a national number of a default region; one
    written with ``+``/IDD/its country code carries that code's digits too. So the bound is the
    minimum of (shortest valid national number of each default region's country code) and
    (digits of any country code + its shortest valid national number), over phonenumbers'
    metadata -- e.g. 6 for +43/+49 numbers, 4 if DE is a default region. National prefixes,
    IDD prefixes and extensions only add digits.
    """
    national = min(_min_national_length(phonenumbers.country_code_for_region(r)) for r in regions)
    international = min(len(str(cc)) + _min_national_length(cc) for cc in COUNTRY_CODE_TO_REGION_CODE)
    return min(national, international, FormattedPhoneRecognizer.MIN_DIGITS)


@lru_cache(maxsize=8)
def phone_digit_run(regions: tuple[str, ...]) -> "re.Pattern[str]":
    """At least min_phone_digits digits (or x/X) joined by <= 4 phonenumbers punctuation characters:
    every number PhoneRecognizer reports contains such a run (see corpus.pii.precheck)."""
    digit_like = r"[\dxX]"
    punctuation = f"[{phonenumberutil._VALID_PUNCTUATION}]"
    n = min_phone_digits(regions)
    return re.compile(f"{digit_like}(?:{punctuation}{{0,4}}{digit_like}){{{n - 1}}}", phonenumberutil._REGEX_FLAGS)


class LineWindowPhoneRecognizer(PhoneRecognizer):
    """presidio's PhoneRecognizer run only on the lines that hold a :func:`phone_digit_run`.

    Same results as on the whole text: phonenumbers' candidate regex has no newline, no ``\\s`` and
    no look-behind, so no candidate crosses a line; its leniency checks look at the characters
    right before and after a candidate, where a line's edge (start or end of the window) reads as
    the newline it replaces -- not a letter, digit or currency sign; and a VALID number contains a
    digit run of at least min_phone_digits digits, so lines without one yield nothing. On numeric
    text (GSM8K) this skips most of phonenumbers' parsing of short numbers.
    ``tests/test_pii_engine.py`` compares it with PhoneRecognizer on real data.
    """

    def analyze(self, text, entities, nlp_artifacts=None):
        run = phone_digit_run(tuple(self.supported_regions))
        results, line_end = [], -1
        for hit in run.finditer(text):
            if hit.start() < line_end:
                continue
            line_start = text.rfind("\n", 0, hit.start()) + 1
            line_end = text.find("\n", hit.end())
            line_end = len(text) if line_end < 0 else line_end
            for result in super().analyze(text[line_start:line_end], entities, None):
                result.start += line_start
                result.end += line_start
                if other_number_label(text, result.start) is None:  # "Invoice 2014-822979" is no phone
                    results.append(result)
        return results


# --------------------------------------------------------------------------- secret keys


_TOKEN_START = r"(?<![A-Za-z0-9_\-])"  # not the middle of a longer token
_TOKEN_END = r"(?![A-Za-z0-9_\-])"


@dataclass(frozen=True)
class KeyFormat:
    """One kind of issuer-prefixed secret.

    Its regex is ``start``, then one of the literal ``prefixes``, then ``tail``, compiled without
    IGNORECASE: every match contains a prefix verbatim, which is what the pre-check looks for.
    With ``keep_prefix`` the prefix is a look-behind instead (``AccountKey=<KEY>``: the name stays
    readable); the text still holds the prefix verbatim wherever the regex matches.
    """

    name: str
    prefixes: tuple[str, ...]
    tail: str
    score: float = 0.9
    start: str = _TOKEN_START
    keep_prefix: bool = False

    @property
    def regex(self) -> str:
        alternatives = "|".join(map(regex.escape, self.prefixes))
        if self.keep_prefix:
            return f"{self.start}(?<=(?:{alternatives})){self.tail}"
        return f"{self.start}(?:{alternatives}){self.tail}"


# Mixed-case-and-digit body: real generated keys have all three, hyphenated words do not.
_MIXED = r"(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[a-z])(?=[A-Za-z0-9_\-]*[A-Z])"

SECRET_TOKEN_FORMATS = (
    KeyFormat("aws_access_key_id", ("AKIA", "ASIA", "ABIA", "ACCA"), r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
    KeyFormat("github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), rf"[A-Za-z0-9]{{36,255}}{_TOKEN_END}"),
    KeyFormat("github_fine_grained_pat", ("github_pat_",), rf"[A-Za-z0-9_]{{22,255}}{_TOKEN_END}"),
    KeyFormat("gitlab_token", tuple(f"gl{kind}-" for kind in ("pat", "ptt", "dt", "rt", "soat", "ft", "imt", "cbt",
                                                              "oas", "agent")),
              rf"[A-Za-z0-9_\-]{{20,255}}{_TOKEN_END}"),
    KeyFormat("slack_token", tuple(f"xox{kind}-" for kind in "abposre"), rf"[A-Za-z0-9\-]{{10,255}}{_TOKEN_END}"),
    KeyFormat("slack_app_token", ("xapp-",), rf"[0-9]-[A-Za-z0-9\-]{{10,255}}{_TOKEN_END}"),
    KeyFormat("slack_webhook", ("https://hooks.slack.com/services/", "https://hooks.slack.com/workflows/"),
              r"[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+"),
    KeyFormat("google_api_key", ("AIza",), rf"[0-9A-Za-z_\-]{{35}}{_TOKEN_END}"),
    KeyFormat("sk_api_key", ("sk-",), rf"(?:proj-|svcacct-|admin-|or-v1-|ant-[a-z]+[0-9]{{2}}-)?{_MIXED}"
                                      rf"[A-Za-z0-9_\-]{{20,255}}{_TOKEN_END}"),
    KeyFormat("stripe_key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_", "whsec_"),
              rf"[A-Za-z0-9]{{16,255}}{_TOKEN_END}"),
    # Hugging Face user (hf_) and org (api_org_) tokens: 30-40 letters/digits of mixed case.
    KeyFormat("huggingface_token", ("hf_", "api_org_"),
              rf"(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{{30,40}}{_TOKEN_END}"),
    # Twilio account SID (AC), API key SID (SK): 32 lower-case hex digits.
    KeyFormat("twilio_sid", ("AC", "SK"), rf"[0-9a-f]{{32}}{_TOKEN_END}"),
    KeyFormat("npm_token", ("npm_",), rf"[A-Za-z0-9]{{36}}{_TOKEN_END}"),
    KeyFormat("pypi_token", ("pypi-AgEIcHlwaS5vcmc",), rf"[A-Za-z0-9_\-]{{50,255}}{_TOKEN_END}"),
    KeyFormat("sendgrid_key", ("SG.",), rf"[A-Za-z0-9_\-]{{22}}\.[A-Za-z0-9_\-]{{43}}{_TOKEN_END}"),
    KeyFormat("shopify_token", ("shpat_", "shpss_", "shpca_", "shppa_"), rf"[a-fA-F0-9]{{32}}{_TOKEN_END}"),
    KeyFormat("digitalocean_token", ("dop_v1_", "doo_v1_", "dor_v1_"), rf"[a-f0-9]{{64}}{_TOKEN_END}"),
    # Azure storage / Service Bus / Event Hubs connection strings: the base64 key after its name.
    KeyFormat("azure_connection_key", ("AccountKey=", "SharedAccessKey="),
              r"[A-Za-z0-9+/]{30,100}={0,2}(?![A-Za-z0-9+/=])", start="", keep_prefix=True),
    # Azure SAS token signature in a URL query (sig=...%3D).
    KeyFormat("azure_sas_signature", ("?sig=", "&sig="), r"(?:[A-Za-z0-9+/]|%2[BbFf]){30,120}(?:%3[Dd]|=){0,2}"
              r"(?![A-Za-z0-9+/%=])", start="", keep_prefix=True),
)
JWT_FORMAT = KeyFormat("jwt", ("eyJ",), rf"[A-Za-z0-9_\-]{{5,}}\.eyJ[A-Za-z0-9_\-]{{5,}}\.[A-Za-z0-9_\-]*{_TOKEN_END}")
PEM_FORMAT = KeyFormat(
    "pem_private_key",
    ("-----BEGIN",),
    # base64 lines, "Proc-Type: 4,ENCRYPTED" headers and escaped "\n" (keys inside JSON strings),
    # up to the END line when there is one; possessive so a block without END cannot backtrack.
    r"[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?:\s|\\[nr])*+(?!-----END)[A-Za-z0-9+/=:,.\-]++)*+"
    r"(?:(?:\s|\\[nr])*+-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?",
    score=1.0,
    start="",  # may follow an escaped "\n" inside a string
)
KEY_FORMATS = (*SECRET_TOKEN_FORMATS, JWT_FORMAT, PEM_FORMAT)

# password= / "api_key": / DB_PASSWORD: ... The name is only looked behind, so the redaction
# keeps it ("password=<KEY>"). Every name-and-separator contains ":" or "=" (the pre-check's gate).
SECRET_NAME = (
    r"(?<![A-Za-z0-9])(?i:pass(?:word|wd|phrase)|pwd|secret|token|api[_\-]?key|access[_\-]?key"
    r"|private[_\-]?key|auth[_\-]?key|client[_\-]?secret|account[_\-]?key|subscription[_\-]?key)"
    r"(?:[_\-.][A-Za-z0-9]+)*"  # DB_PASSWORD, aws_secret_access_key, token.value
    r"[\"']?[ \t]{0,3}(?:=>|:=|[:=])\s{0,3}[\"']?"
)
_SECRET_VALUE = r"[A-Za-z0-9+/=_\-.~!@#$%^&*?]{7,199}[A-Za-z0-9+/=_\-~!@#$%^&*?](?![A-Za-z0-9+/=_\-.~!@#$%^&*?])"
ASSIGNMENT_REGEX = f"(?<={SECRET_NAME}){_SECRET_VALUE}"


class _KeyPatternRecognizer(PatternRecognizer):
    """A PatternRecognizer for SECRET_KEY, case-sensitive."""

    def __init__(self, name: str, patterns: list[Pattern]) -> None:
        super().__init__(
            supported_entity=ENTITY_OF_TYPE["KEY"],
            name=name,
            patterns=patterns,
            global_regex_flags=KEY_REGEX_FLAGS,
        )


def _patterns(*formats: KeyFormat) -> list[Pattern]:
    return [Pattern(f.name, f.regex, f.score) for f in formats]


def _prefixes(*formats: KeyFormat) -> tuple[str, ...]:
    return tuple(prefix for f in formats for prefix in f.prefixes)


class SecretKeyRecognizer(_KeyPatternRecognizer):
    """Tokens whose prefix names the issuer (one KeyFormat): AWS, GitHub, GitLab, Slack, Google,
    OpenAI/Anthropic ``sk-``, Stripe, Hugging Face, Twilio, npm, PyPI, SendGrid, Shopify,
    DigitalOcean, Azure. One recognizer per format, so that each runs only where its own prefix
    occurs (a text with "AC" in it need not be searched for every other format)."""

    def __init__(self, key_format: KeyFormat) -> None:
        super().__init__(f"SecretKeyRecognizer:{key_format.name}", _patterns(key_format))
        self.KEY_PREFIXES = key_format.prefixes  # the pre-check gate: one is in every match


class JwtRecognizer(_KeyPatternRecognizer):
    """``header.payload.signature`` whose header decodes to a JSON object (as every JWT's does)."""

    KEY_PREFIXES = JWT_FORMAT.prefixes

    def __init__(self) -> None:
        super().__init__("JwtRecognizer", _patterns(JWT_FORMAT))

    def validate_result(self, pattern_text: str) -> bool:
        header = pattern_text.split(".", 1)[0]
        try:
            decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
        except (binascii.Error, ValueError):
            return False
        return isinstance(decoded, dict)


class PemPrivateKeyRecognizer(_KeyPatternRecognizer):
    """A PEM/PGP private-key block from its BEGIN line through its END line (or its last base64 line)."""

    KEY_PREFIXES = PEM_FORMAT.prefixes

    def __init__(self) -> None:
        super().__init__("PemPrivateKeyRecognizer", _patterns(PEM_FORMAT))


class SecretAssignmentRecognizer(_KeyPatternRecognizer):
    """The value of ``password=...``, ``"api_key": "..."``, ``DB_PASSWORD: ...`` when it looks secret.

    Only the value is redacted (``password=<KEY>``); the name stays, so the text stays readable.
    """

    def __init__(self) -> None:
        super().__init__("SecretAssignmentRecognizer", [Pattern("secret assignment", ASSIGNMENT_REGEX, 0.8)])

    def invalidate_result(self, pattern_text: str) -> bool:
        return not looks_like_secret(pattern_text)


# scheme://user:password@host -- the span runs through the host so that it always contains (and so
# outlasts, in span resolution) the e-mail-shaped "password@host" inside it.
BASIC_AUTH_REGEX = (r"(?<=[A-Za-z][A-Za-z0-9+.\-]{0,15}://)"
                    r"[^\s:/@?#\[\]\"'<>]{1,64}:[^\s/@?#\"'<>]{1,128}"
                    r"@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9\-]+)*")
_PLACEHOLDER_PASSWORD = regex.compile(r"(?i)(?:pass(?:word|wd)?|pwd|secret|x+|\*+|[<${%].*|\.\.\.)")


class BasicAuthUrlRecognizer(_KeyPatternRecognizer):
    """Credentials in a URL (``https://user:pass@host``), unless the password is a placeholder."""

    def __init__(self) -> None:
        super().__init__("BasicAuthUrlRecognizer", [Pattern("basic auth url", BASIC_AUTH_REGEX, 0.9)])

    def invalidate_result(self, pattern_text: str) -> bool:
        password = pattern_text.split(":", 1)[1].rsplit("@", 1)[0]
        return _PLACEHOLDER_PASSWORD.fullmatch(password) is not None


_DOTTED_IDENTIFIER = regex.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _shannon_entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def looks_like_secret(value: str) -> bool:
    """A password or key rather than a placeholder or code reference.

    At least 8 characters and 3.0 bits of entropy per character (rejects ``********``,
    ``changeme``); letters and digits, or -- for 16+ characters -- mixed case at 3.5 bits
    (rejects ``YOUR_API_KEY_HERE``); and not a dotted identifier (``settings.SECRET_KEY``).
    """
    if len(value) < 8 or _DOTTED_IDENTIFIER.fullmatch(value):
        return False
    entropy = _shannon_entropy(value)
    has_digit = any(c.isdigit() for c in value)
    has_letter = any(c.isalpha() for c in value)
    mixed_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    if has_digit and has_letter:
        return entropy >= 3.0
    return len(value) >= 16 and mixed_case and entropy >= 3.5


# --------------------------------------------------------------------------- engine


def _ip_recognizer() -> IpRecognizer:
    patterns = [p for p in IpRecognizer.PATTERNS if p.name != "IPv6_unspecified"]
    return IpRecognizer(patterns=[*patterns, *IP_ASCII_BOUNDARIES])


def recognizers_for(
    pii_type: str, phone_regions: tuple[str, ...], tld_extractor: tldextract.TLDExtract,
    phone_context: PhoneContext | None = DEFAULT_PHONE_CONTEXT, obfuscated_email: bool = True,
) -> list[EntityRecognizer]:
    """The recognizers of one PII type. ``phone_context`` None leaves LocalPhoneRecognizer out,
    ``obfuscated_email`` False ObfuscatedEmailRecognizer."""
    if pii_type == "EMAIL":
        return [OfflineEmailRecognizer(tld_extractor)] + ([ObfuscatedEmailRecognizer(tld_extractor)]
                                                          if obfuscated_email else [])
    if pii_type == "PHONE":
        return [LineWindowPhoneRecognizer(supported_regions=phone_regions, leniency=PHONE_LENIENCY),
                FormattedPhoneRecognizer(), InternationalPhoneRecognizer(), ContextPhoneRecognizer(),
                *([LocalPhoneRecognizer(phone_context)] if phone_context is not None else [])]
    if pii_type == "CARD":
        return [CreditCardRecognizer(), PaymentCardRecognizer()]
    if pii_type == "IP":
        return [_ip_recognizer()]
    if pii_type == "KEY":
        return [*map(SecretKeyRecognizer, SECRET_TOKEN_FORMATS), JwtRecognizer(), PemPrivateKeyRecognizer(), SecretAssignmentRecognizer(),
                BasicAuthUrlRecognizer()]
    raise ValueError(f"unknown PII type {pii_type!r}; expected a subset of {PII_TYPES}")


@lru_cache(maxsize=8)
def build_analyzer(pii_types: tuple[str, ...], phone_regions: tuple[str, ...],
                   phone_context: PhoneContext | None = DEFAULT_PHONE_CONTEXT, obfuscated_email: bool = True) -> AnalyzerEngine:
    """The AnalyzerEngine for these PII types, phone regions and options; built once per process per key.

    Nothing here touches the network: the NLP engine is a blank spaCy pipeline, the registry is
    filled by hand (no predefined-recognizer or model loading) and e-mail validation uses
    :func:`offline_tld_extractor`.
    """
    validate_regions(phone_regions)
    registry = RecognizerRegistry(supported_languages=["en"])
    tld_extractor = offline_tld_extractor()
    for pii_type in pii_types:
        for recognizer in recognizers_for(pii_type, phone_regions, tld_extractor, phone_context, obfuscated_email):
            registry.add_recognizer(recognizer)
    return AnalyzerEngine(registry=registry, nlp_engine=BlankSpacyNlpEngine(), supported_languages=["en"],
                          context_aware_enhancer=IndexedContextEnhancer())


# --------------------------------------------------------------------------- pre-check provenance


def presidio_pattern_fingerprint() -> str:
    """Hash of the third-party patterns the pre-check was derived from.

    The pre-check's soundness argument (see :mod:`corpus.pii.scrub`) reads these exact regexes:
    presidio's e-mail, card and IP patterns and phonenumbers' candidate grammar. If an upgrade
    changes any of them, the fingerprint changes and the scrub stops trusting the pre-check.
    """
    presidio = (EmailRecognizer, CreditCardRecognizer, IpRecognizer)
    parts = [f"{p.name}\x00{p.regex}" for recognizer in presidio for p in recognizer.PATTERNS]
    parts.append(phonenumberutil._VALID_PUNCTUATION)
    parts.append(phonenumbermatcher._PATTERN.pattern)
    return hashlib.sha256("\x01".join(parts).encode()).hexdigest()
