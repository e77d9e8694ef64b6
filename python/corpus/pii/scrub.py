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

Two ways to run the recognizers, same output. presidio's ``AnalyzerEngine`` tokenises every text
with spaCy (for context words) and then asks each recognizer; context can only *raise* a score, and
every recognizer here reports scores of at least 0.4 (presidio's phone score; e-mail, cards and IPs
are 1.0 once validated, keys 0.8-1.0, anything invalidated is dropped by the recognizer itself). So
at a ``score_threshold`` of at most :data:`DIRECT_MAX_THRESHOLD` the set of reported spans does not
depend on context at all, and :func:`find_spans` calls the recognizers directly -- no spaCy pass,
no context scoring, no de-duplication (span resolution below subsumes it). Above that threshold the
engine is used, because there context does decide. ``tests/test_pii_engine.py`` checks that both
give identical spans on real data.

The pre-check (:mod:`corpus.pii.precheck`): each recognizer runs only on texts where a cheap
necessary condition of it reporting anything holds (``@`` for e-mail, a dotted quad for IPv4, a key
prefix, ...), so most recognizers are skipped on most texts with exactly the same output.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import corpus.pii._presidio  # noqa: F401  # presidio imported without torch/transformers
from presidio_analyzer import BatchAnalyzerEngine, EntityRecognizer, RecognizerResult

from corpus.pii.params import DEFAULT_PHONE_REGIONS, PiiParams, params_from_config
from corpus.pii.phones import DEFAULT_PHONE_CONTEXT, RULE_KEY, TRIGGER_KEY, PhoneContext
from corpus.pii.precheck import ANALYSED_PATTERN_FINGERPRINT, Gate, gate_for
from corpus.pii.recognizers import (
    ENTITY_OF_TYPE,
    TYPE_OF_ENTITY,
    build_analyzer,
)

__all__ = [
    "ANALYSED_PATTERN_FINGERPRINT",
    "DEFAULT_PHONE_REGIONS",
    "DIRECT_MAX_THRESHOLD",
    "PLACEHOLDERS",
    "TYPE_PRIORITY",
    "PiiParams",
    "detectors",
    "explain",
    "params_from_config",
    "find_spans",
    "find_spans_with_engine",
    "may_contain_pii",
    "resolve_spans",
    "scrub",
    "scrub_batch",
]

PLACEHOLDERS = {"EMAIL": "<EMAIL>", "PHONE": "<PHONE>", "CARD": "<CARD>", "IP": "<IP>", "KEY": "<KEY>"}
# Which type wins when two overlapping spans have the same length (lower wins).
TYPE_PRIORITY = {"KEY": 0, "CARD": 1, "EMAIL": 2, "IP": 3, "PHONE": 4}
# The lowest base score any recognizer reports (presidio's phone score): up to this threshold,
# context enhancement cannot change which spans pass, and the engine is not needed.
DIRECT_MAX_THRESHOLD = 0.4
# Each round replaces at least one span of non-placeholder text, so rounds are few; the cap only
# guards against a recognizer that, contrary to the argument above, matched a placeholder.
MAX_ROUNDS = 8


Span = tuple[int, int, str]


# --------------------------------------------------------------------------- recognizers and gates


@dataclass(frozen=True)
class Detector:
    """One recognizer of the engine, the entity it reports, and its pre-check gate."""

    recognizer: EntityRecognizer
    entity: str
    gate: Gate


@lru_cache(maxsize=8)
def detectors(pii_types: tuple[str, ...], regions: tuple[str, ...],
              phone_context: PhoneContext | None = DEFAULT_PHONE_CONTEXT,
              obfuscated_email: bool = True) -> tuple[Detector, ...]:
    """The engine's own recognizer objects (so both paths run the very same recognizers)."""
    analyzer = build_analyzer(pii_types, regions, phone_context, obfuscated_email)
    return tuple(Detector(r, r.supported_entities[0], gate_for(r, regions))
                 for r in analyzer.registry.recognizers)


def may_contain_pii(text: str, params: PiiParams) -> bool:
    """False only if no recognizer can report anything in ``text`` (see corpus.pii.precheck)."""
    return any(d.gate(text) for d in detectors(*params.engine_key))


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


def _direct(text: str, params: PiiParams) -> list[Span]:
    spans = []
    for d in detectors(*params.engine_key):
        if params.precheck and not d.gate(text):
            continue
        for r in d.recognizer.analyze(text, [d.entity], None):
            if r.score >= params.score_threshold and r.end > r.start:
                spans.append((r.start, r.end, TYPE_OF_ENTITY[r.entity_type]))
    return resolve_spans(spans)


def find_spans_with_engine(text: str, params: PiiParams) -> list[Span]:
    """Spans by presidio's AnalyzerEngine (spaCy tokens, context scoring) on every text."""
    pii_types = params.engine_key[0]
    results = build_analyzer(*params.engine_key).analyze(
        text=text,
        language="en",
        entities=[ENTITY_OF_TYPE[t] for t in pii_types],
        score_threshold=params.score_threshold,
    )
    return _to_spans(results)


def find_spans(text: str, params: PiiParams) -> list[Span]:
    """Resolved, non-overlapping ``(start, end, type)`` spans of ``text``, sorted by start."""
    if params.score_threshold <= DIRECT_MAX_THRESHOLD:
        return _direct(text, params)
    if params.precheck and not may_contain_pii(text, params):
        return []
    return find_spans_with_engine(text, params)


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
    """:func:`scrub` for many texts. When the engine is needed (a threshold above
    DIRECT_MAX_THRESHOLD), presidio's BatchAnalyzerEngine analyses the pre-check's candidates,
    tokenising them with ``nlp.pipe``."""
    if params.score_threshold <= DIRECT_MAX_THRESHOLD:
        return [scrub(text, params) for text in texts]
    if params.precheck:
        candidates = [i for i, text in enumerate(texts) if may_contain_pii(text, params)]
    else:
        candidates = list(range(len(texts)))
    spans_of: dict[int, list[Span]] = {}
    pii_types = params.engine_key[0]
    batch = BatchAnalyzerEngine(build_analyzer(*params.engine_key))
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


# --------------------------------------------------------------------------- explanation

# The rule each recognizer's results are reported under when it records none of its own
# (corpus.pii.phones and corpus.pii.emails record theirs, with what triggered them).
RULE_OF_RECOGNIZER = {
    "LineWindowPhoneRecognizer": "phone.valid",  # phonenumbers: a valid number of phone_regions
    "FormattedPhoneRecognizer": "phone.formatted",
    "OfflineEmailRecognizer": "email.address",
    "CreditCardRecognizer": "card.presidio",
    "PaymentCardRecognizer": "card.iin_luhn",
    "IpRecognizer": "ip.address",
    "JwtRecognizer": "key.jwt",
    "PemPrivateKeyRecognizer": "key.pem",
    "SecretAssignmentRecognizer": "key.assignment",
    "BasicAuthUrlRecognizer": "key.url_credentials",
}


def _rule(result: RecognizerResult) -> tuple[str, str]:
    meta = result.recognition_metadata or {}
    if RULE_KEY in meta:
        return meta[RULE_KEY], meta.get(TRIGGER_KEY, "")
    name = meta.get(RecognizerResult.RECOGNIZER_NAME_KEY, "")
    if name.startswith("SecretKeyRecognizer:"):
        return "key." + name.split(":", 1)[1], ""
    return RULE_OF_RECOGNIZER.get(name, name), ""


def explain(text: str, params: PiiParams) -> list[dict]:
    """Why :func:`scrub` makes each redaction of ``text``: one dict per replaced span, in order --
    ``round`` (1, or later for a span only found once an earlier one was replaced), ``start``/``end`` in
    that round's text, ``type``, ``text`` (the span), and ``rules``: every recognizer rule that reported exactly this span, each
    as ``{"rule", "trigger"}`` (the context word, address cue, country code... that decided it; "" when
    the rule has no trigger, e.g. phonenumbers' validity or a Luhn check)."""
    out = []
    for round_ in range(1, MAX_ROUNDS + 1):
        spans = find_spans(text, params)
        if not spans:
            break
        rules: dict[Span, set[tuple[str, str]]] = {}
        for d in detectors(*params.engine_key):
            for r in d.recognizer.analyze(text, [d.entity], None):
                rules.setdefault((r.start, r.end, TYPE_OF_ENTITY[r.entity_type]), set()).add(_rule(r))
        for span in spans:
            found = sorted(rules.get(span, ())) or [("presidio.context", "")]  # only the engine's scoring kept it
            out.append({"round": round_, "start": span[0], "end": span[1], "type": span[2], "text": text[span[0]:span[1]],
                        "rules": [{"rule": rule, "trigger": trigger} for rule, trigger in found]})
        text = _replace(text, spans)
    return out
