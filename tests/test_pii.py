"""Stage-05 PII scrub (corpus.pii): detection per type, placeholders, idempotence, overlap rule,
no network, and that the pre-check never changes the output (real data)."""

from __future__ import annotations

import json
import random
import re
import socket
from dataclasses import replace
from pathlib import Path

import pytest
import tldextract
from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import NlpArtifacts

from corpus.pii import recognizers
from corpus.pii.recognizers import build_analyzer, looks_like_secret, min_phone_digits, presidio_pattern_fingerprint
from corpus.pii.scrub import (
    ANALYSED_PATTERN_FINGERPRINT,
    detectors,
    PLACEHOLDERS,
    PiiParams,
    find_spans,
    may_contain_pii,
    resolve_spans,
    scrub,
    scrub_batch,
)

GENERATED_SMALL = "ebc4d2e49907678d65e38ed7b9efc267f6e3c1b6761af9de30aef6fa7e11c1e4"
TINYSTORIES = "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5"
ENTERPRISE_PII = "de3a638feb3285dd45d54dddbc21fb26ecf1a89ef18e63582434e6e2eda2d14a"
TYPE_OF_LABEL = {"EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE", "CREDIT_CARD": "CARD", "IP_ADDRESS": "IP"}

PARAMS = PiiParams()
NO_PRECHECK = replace(PARAMS, precheck=False)


# --------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def labelled(mirror: Path) -> list[dict]:
    return json.loads((mirror / GENERATED_SMALL).read_text())


@pytest.fixture(scope="module")
def stories(mirror: Path) -> list[str]:
    """TinyStories: stories separated by a single newline, paragraphs by a blank line."""
    return [s for s in re.split(r"(?<!\n)\n(?!\n)", (mirror / TINYSTORIES).read_text()) if s.strip()]


@pytest.fixture(scope="module")
def enterprise(mirror: Path) -> list[str]:
    lines = (mirror / ENTERPRISE_PII).read_text().splitlines()
    return [json.loads(line)["query"] for line in lines if line]


def gold(row: dict, pii_type: str) -> list[tuple[int, int]]:
    return [(s["start_position"], s["end_position"]) for s in row["spans"]
            if TYPE_OF_LABEL.get(s["entity_type"]) == pii_type]


# --------------------------------------------------------------------------- keys

# Built from parts so the test file itself does not look like a leaked credential to scanners.
BODY36 = "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hI6"
KEY_EXAMPLES = {
    "aws": ("AWS_ACCESS_KEY_ID=" + "AKIA" + "IOSFODNN7EXAMPLE" + "\n", "AWS_ACCESS_KEY_ID=<KEY>\n"),
    "github_classic": ("echo " + "ghp_" + BODY36 + " | gh auth login --with-token",
                       "echo <KEY> | gh auth login --with-token"),
    "github_fine_grained": ("GH_TOKEN " + "github_pat_" + "11ABCDEFG0" + BODY36 + "_x9Y8z7W6v5U4",
                            "GH_TOKEN <KEY>"),
    "gitlab": ("curl --header 'PRIVATE-TOKEN: " + "glpat-" + "Xy9_ab12Cd34Ef56Gh78" + "' https://gitlab.com/api/v4",
               "curl --header 'PRIVATE-TOKEN: <KEY>' https://gitlab.com/api/v4"),
    "slack": ("slack bot " + "xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx" + " posted",
              "slack bot <KEY> posted"),
    "google": ("maps?key=" + "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY" + "&q=paris", "maps?key=<KEY>&q=paris"),
    "openai_sk": ('client = OpenAI(api_key="' + "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1w" + '")',
                  'client = OpenAI(api_key="<KEY>")'),
    "anthropic_sk": ("export KEY_A=" + "sk-ant-api03-" + "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Ji0Hg" + " # dev",
                     "export KEY_A=<KEY> # dev"),
    "stripe": ("Stripe.api_key = '" + "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc" + "'", "Stripe.api_key = '<KEY>'"),
    "jwt": ("Authorization: Bearer " + "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "."
            + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ" + "."
            + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "Authorization: Bearer <KEY>"),
    "pem": ("key file:\n" + "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAKCAQEAvx1k2BmP7\nq8Zl3Ww0dTz+9/AbCd==\n"
            + "-----END RSA " + "PRIVATE KEY-----\nend", "key file:\n<KEY>\nend"),
    "pem_in_json": ('{"private_key": "' + "-----BEGIN " + "PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0B\\nAQEFAASC==\\n"
                    + "-----END " + "PRIVATE KEY-----\\n" + '", "id": 7}', '{"private_key": "<KEY>\\n", "id": 7}'),
    "password_assignment": ("DB_PASSWORD=" + "Tr0ub4dor&3xQ" + "\nDB_USER=app", "DB_PASSWORD=<KEY>\nDB_USER=app"),
    "api_key_json": ('{"api_key": "' + "f3a9c2e17b4d8e6a" + '", "region": "eu"}',
                     '{"api_key": "<KEY>", "region": "eu"}'),
    "yaml_secret": ("auth:\n  client_secret: " + "Qm9iJ3NTZWNyZXQyMDI0" + "\n", "auth:\n  client_secret: <KEY>\n"),
    "stripe_webhook": ("STRIPE_WEBHOOK_SECRET=" + "whsec_" + BODY36[:32], "STRIPE_WEBHOOK_SECRET=<KEY>"),
    "stripe_publishable": ("Stripe('" + "pk_live_" + BODY36[:24] + "')", "Stripe('<KEY>')"),
    "huggingface": ("huggingface-cli login --token " + "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "huggingface-cli login --token <KEY>"),
    "twilio_sid": ("client = Client('" + "AC" + "0123456789abcdef" * 2 + "', token)", "client = Client('<KEY>', token)"),
    "twilio_auth_token": ("TWILIO_AUTH_TOKEN=" + "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "TWILIO_AUTH_TOKEN=<KEY>"),
    "npm": ("//registry.npmjs.org/:_authToken=" + "npm_" + BODY36, "//registry.npmjs.org/:_authToken=<KEY>"),
    "sendgrid": ("key " + "SG." + BODY36[:22] + "." + (BODY36 + BODY36)[:43] + " end", "key <KEY> end"),
    "shopify": ("X-Shopify-Access-Token: " + "shpat_" + "0123456789abcdef" * 2, "X-Shopify-Access-Token: <KEY>"),
    "digitalocean": ("doctl auth init -t " + "dop_v1_" + "0123456789abcdef" * 4, "doctl auth init -t <KEY>"),
    "azure_connection_string": ("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + BODY36 * 2 + "ab=="
                                + ";EndpointSuffix=core.windows.net",
                                "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=<KEY>"
                                ";EndpointSuffix=core.windows.net"),
    "azure_sas": ("https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sr=b&sp=r&sig="
                  + BODY36 + "%2B" + BODY36[:8] + "%3D",
                  "https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&se=2026-01-01&sr=b&sp=r&sig=<KEY>"),
    "basic_auth_url": ("git clone https://deploy:" + "Xk9vQ2mN7pL4" + "@git.example.com/team/app.git",
                       "git clone https://<KEY>/team/app.git"),
    "db_url": ("DATABASE_URL=postgres://app:" + "s3Cr3tPa55w0rd" + "@db.internal:5432/prod",
               "DATABASE_URL=postgres://<KEY>:5432/prod"),
}


@pytest.mark.parametrize("kind", sorted(KEY_EXAMPLES))
def test_each_key_kind_is_replaced_by_key(kind: str) -> None:
    text, expected = KEY_EXAMPLES[kind]
    assert scrub(text, PARAMS) == (expected, {"KEY": 1})


@pytest.mark.parametrize("text", [
    "Use sk-learn-tutorial-for-beginners-and-experts to start.",  # hyphenated words, no digits/case mix
    "password=changeme",                                          # too short, low entropy
    "password: ********",
    "api_key=YOUR_API_KEY_HERE",                                  # a placeholder, not a key
    "SECRET_KEY = settings.SECRET_KEY_FALLBACK",                  # a code reference
    "Lily had a secret: she loved the big red ball.",
    "eyJub3QiOiJqc29u.eyJhYmNkZWZnaA.c2ln but eyJ is just text",   # first segment is not a JSON header
    "-----BEGIN PUBLIC KEY-----",                                  # public keys are not secrets
    "AKIA is a prefix, AKIA123 is too short",
    "from huggingface_hub import hf_hub_download",                 # hf_ followed by words, not a token
    "mysql://root:${DB_PASS}@localhost/db",                        # a template variable
    "ACME SKU AC-1234 and SK 42 are product codes",                # Twilio prefixes without their 32 hex
    "AccountKey=<your-storage-key>;",                              # a placeholder
    "sig=abc and pk_test_ alone",                                  # prefixes without a body
])
def test_key_near_misses_are_left_alone(text: str) -> None:
    assert scrub(text, PARAMS) == (text, {})


@pytest.mark.parametrize("text", [
    "git clone git@github.com:org/repo.git",                       # ssh user, no password
    "https://user:password@example.com/ is the documented form",   # placeholder password
])
def test_urls_without_real_credentials_hold_no_key(text: str) -> None:
    # presidio's e-mail recognizer may still see "git@github.com": only the KEY type is at stake here
    assert [t for *_, t in find_spans(text, PARAMS) if t == "KEY"] == []


def test_secret_values_need_entropy_and_mixed_classes() -> None:
    assert looks_like_secret("Tr0ub4dor&3xQ")
    assert looks_like_secret("aB3dE6gH9jK2mN5pQ8sT")
    assert not looks_like_secret("aaaaaaaa1")
    assert not looks_like_secret("YOUR_API_KEY_HERE")
    assert not looks_like_secret("os.environ")


# --------------------------------------------------------------------------- cards, e-mail, phone, IP


def test_luhn_invalid_16_digits_is_not_a_card() -> None:
    valid, invalid = "4111111111111111", "4111111111111112"
    assert scrub(f"card {valid} on file", PARAMS) == ("card <CARD> on file", {"CARD": 1})  # control
    text, counts = scrub(f"card {invalid} on file", PARAMS)
    assert "CARD" not in counts and invalid in text


@pytest.mark.parametrize("pii_type,min_recall", [("EMAIL", 0.99), ("CARD", 0.95), ("IP", 0.95), ("PHONE", 0.85)])
def test_real_sentences_are_scrubbed(labelled: list[dict], pii_type: str, min_recall: float) -> None:
    rows = [row for row in labelled if gold(row, pii_type)]
    assert rows, f"no {pii_type} sentences in generated_small.json"
    found = total = 0
    for row in rows:
        text = row["full_text"]
        spans = [s for s in find_spans(text, PARAMS) if s[2] == pii_type]
        for start, end in gold(row, pii_type):
            total += 1
            found += any(s[0] < end and start < s[1] for s in spans)
        scrubbed, counts = scrub(text, PARAMS)
        assert PLACEHOLDERS[pii_type] in scrubbed and counts[pii_type] >= 1, text
        for start, end in gold(row, pii_type):
            assert text[start:end] not in scrubbed, (text, scrubbed)
    assert found / total >= min_recall


def test_entities_restrict_what_is_scrubbed() -> None:
    text = "Write to ann@example.org or call +1 212 555 0187, server 10.0.0.12"
    assert scrub(text, PiiParams(entities=("EMAIL",))) == (
        "Write to <EMAIL> or call +1 212 555 0187, server 10.0.0.12", {"EMAIL": 1})
    assert scrub(text, PARAMS) == ("Write to <EMAIL> or call <PHONE>, server <IP>", {"EMAIL": 1, "PHONE": 1, "IP": 1})


def test_invalid_params_are_rejected() -> None:
    with pytest.raises(ValueError):
        PiiParams(entities=("EMAIL", "SSN"))
    with pytest.raises(ValueError):
        PiiParams(phone_regions=("XX",))
    with pytest.raises(ValueError):
        PiiParams(score_threshold=1.5)


# --------------------------------------------------------------------------- placeholders, idempotence


def test_placeholders_are_never_detected() -> None:
    text = " ".join(PLACEHOLDERS.values()) + " password=<KEY> call <PHONE>, mail <EMAIL>:<IP>::<CARD>"
    assert find_spans(text, NO_PRECHECK) == []  # presidio itself finds nothing
    assert not may_contain_pii(" ".join(PLACEHOLDERS.values()), PARAMS)


def test_scrub_is_idempotent(labelled: list[dict], enterprise: list[str]) -> None:
    texts = [row["full_text"] for row in labelled] + [t for t, _ in KEY_EXAMPLES.values()]
    texts += [t for t in enterprise[:400] if may_contain_pii(t, PARAMS)]
    changed = 0
    for text in texts:
        once, counts = scrub(text, PARAMS)
        changed += once != text
        assert scrub(once, PARAMS) == (once, {}), text
    assert changed >= 30  # the property was exercised on texts that had PII


def test_rescans_until_nothing_is_left() -> None:
    # Removing the card exposes nothing new here, but the loop must still stop with a fixed point
    # and count every replacement once.
    text = "a@b.co 4111111111111111 a@b.co"
    assert scrub(text, PARAMS) == ("<EMAIL> <CARD> <EMAIL>", {"EMAIL": 2, "CARD": 1})


# --------------------------------------------------------------------------- overlaps


def test_overlap_rule_longest_then_priority_then_start() -> None:
    spans = [
        (0, 10, "PHONE"), (2, 12, "IP"),    # same length: IP beats PHONE
        (20, 30, "EMAIL"), (20, 30, "KEY"),  # same span: KEY beats EMAIL
        (40, 45, "KEY"), (41, 50, "PHONE"),  # longer PHONE beats KEY
        (60, 64, "CARD"), (62, 66, "CARD"),  # same type and length: leftmost
    ]
    expected = [(2, 12, "IP"), (20, 30, "KEY"), (41, 50, "PHONE"), (60, 64, "CARD")]
    for seed in range(20):
        shuffled = spans[:]
        random.Random(seed).shuffle(shuffled)
        assert resolve_spans(shuffled) == expected


def test_overlapping_detections_resolve_to_disjoint_sorted_spans() -> None:
    text = "password=john.doe1@example.com and call 212-555-0187 or 212.555.0187"
    spans = find_spans(text, PARAMS)
    assert spans == sorted(spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    # e-mail (whole 'password=...@example.com' by presidio's pattern) beats the shorter KEY value
    assert spans[0] == (0, 30, "EMAIL")


# --------------------------------------------------------------------------- no network


def test_no_network_access(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[str] = []

    def refuse(name: str):
        def blocked(*args, **kwargs):
            attempts.append(f"{name}{args[:2]}")
            raise OSError(f"network disabled in test ({name})")
        return blocked

    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    # tldextract's global extractor (what presidio's EmailRecognizer calls) without its disk cache,
    # so that any use of it would have to fetch the suffix list -- whatever ~/.cache holds.
    monkeypatch.setattr(tldextract.tldextract, "TLD_EXTRACTOR", tldextract.TLDExtract(cache_dir=None))

    build_analyzer.cache_clear()  # engine, NLP pipeline and suffix list all built under the block
    try:
        assert scrub("mail LeaVLind@superrito.com now", PARAMS) == ("mail <EMAIL> now", {"EMAIL": 1})
        assert attempts == []
        # Control: presidio's default path does try the network, and the block sees it.
        assert tldextract.extract("LeaVLind@superrito.com").fqdn == "superrito.com"  # snapshot fallback
        assert attempts, "the socket block did not observe tldextract's default fetch"
    finally:
        build_analyzer.cache_clear()


def test_email_validation_uses_the_bundled_snapshot() -> None:
    extractor = recognizers.offline_tld_extractor()
    assert extractor.suffix_list_urls == ()
    assert extractor("LeaVLind@superrito.com").fqdn == "superrito.com"
    assert extractor("john@localhost").fqdn == ""


# --------------------------------------------------------------------------- engine


class _DocTokensEngine(recognizers.BlankSpacyNlpEngine):
    """Artifacts exactly as presidio's spaCy engines build them: a Doc and plain lists."""

    def _doc_to_nlp_artifact(self, doc, language):
        return NlpArtifacts(entities=[], tokens=doc, tokens_indices=[t.idx for t in doc],
                            lemmas=[t.lemma_ or t.lower_ for t in doc], nlp_engine=self, language=language, scores=[])


def test_indexed_context_enhancer_scores_like_presidios(labelled: list[dict]) -> None:
    ours = build_analyzer(*PARAMS.engine_key)
    stock = AnalyzerEngine(registry=ours.registry, nlp_engine=_DocTokensEngine(), supported_languages=["en"],
                           context_aware_enhancer=LemmaContextAwareEnhancer())
    directory = "".join(f"Mobile phone of clerk {i}: +1 212 555 {1000 + i:04d}; card 4111111111111111\n"
                        for i in range(60))
    texts = [row["full_text"] for row in labelled] + [directory, "my phone number is 212-555-0187, call me"]
    boosted = 0
    for text in texts:
        a = [(r.entity_type, r.start, r.end, r.score) for r in ours.analyze(text, language="en")]
        b = [(r.entity_type, r.start, r.end, r.score) for r in stock.analyze(text, language="en")]
        assert sorted(a) == sorted(b), text
        boosted += sum(score not in (0.4, 0.6, 0.8, 0.9, 1.0) for *_, score in a)
    assert boosted >= 60  # context words did raise scores, so the enhancer was exercised


# --------------------------------------------------------------------------- pre-check


def test_precheck_derivation_matches_installed_patterns() -> None:
    # If this fails, presidio or phonenumbers changed the patterns the pre-check argument reads:
    # re-derive the pre-check (corpus.pii.scrub docstring), then update the fingerprint.
    assert presidio_pattern_fingerprint() == ANALYSED_PATTERN_FINGERPRINT


def test_phone_digit_bound_follows_regions() -> None:
    assert min_phone_digits(("US", "GB", "IN", "AU")) == 5  # AU has 5-digit national numbers
    assert min_phone_digits(PARAMS.phone_regions) == 6  # the default US, GB
    assert min_phone_digits(("DE",)) == 4
    assert min_phone_digits(("US",)) == 6  # +43/+49 numbers: 2 + 4 digits


def test_precheck_output_identical_on_real_data(
    stories: list[str], labelled: list[dict], enterprise: list[str]
) -> None:
    with_digits = [s for s in stories if re.search(r"\d", s)]
    with_at = [d for d in enterprise if "@" in d]
    docs = with_digits + stories[:150] + [row["full_text"] for row in labelled] + enterprise[:250] + with_at
    with_check = [find_spans(d, PARAMS) for d in docs]
    without = [find_spans(d, NO_PRECHECK) for d in docs]
    assert with_check == without
    # the gate of the expensive recognizer (phonenumbers) skipped most documents...
    phone_gate = next(d.gate for d in detectors(*PARAMS.engine_key) if type(d.recognizer).__name__ ==
                      "LineWindowPhoneRecognizer")
    assert sum(not phone_gate(d) for d in docs) >= len(docs) // 2
    assert sum(map(bool, without)) >= 25  # ...and there was PII to find
    assert scrub_batch(docs, PARAMS) == [scrub(d, NO_PRECHECK) for d in docs]
    assert sum(not may_contain_pii(d, PARAMS) for d in docs) >= 100  # digit-free stories skip everything


# The shortest numbers phonenumbers accepts (found by brute force): 4 digits in DE, 6 with +43/+49.
SHORTEST_PHONES = {("DE", "FR"): ["Ruf 1640 an", "Call +49 1640 today"],
                   ("US", "GB", "IN", "AU"): ["Call +49 1640 today", "Call +43 1110 today", "Call 016300 today"],
                   ("US", "GB"): ["Call +49 1640 today", "Call +43 1110 today"]}
PHONEISH_PIECES = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "12", "555", "0187", "44", "49", "61", "91",
                   "1640", "016300", "+49 1640", "+43 1110", "+61 16300",
                   " ", "-", ".", "(", ")", "+", "/", "x", "X", " ext ", ":", "::", "a", "f", "@", ",", "ab.co"]


@pytest.mark.parametrize("regions", [PARAMS.phone_regions, ("US", "GB", "IN", "AU"), ("DE", "FR")])
def test_precheck_never_hides_what_presidio_finds(regions: tuple[str, ...]) -> None:
    """Random phone/IP/card-ish strings: whenever presidio reports something, the pre-check fired."""
    params = PiiParams(phone_regions=regions, precheck=False)
    for text in SHORTEST_PHONES[regions]:  # the digit bound is tight: these sit right at it
        assert find_spans(text, params) and may_contain_pii(text, params), text
    rng = random.Random(5)
    detected = 0
    for _ in range(700):
        core = "".join(rng.choice(PHONEISH_PIECES) for _ in range(rng.randint(2, 14)))
        text = f"Call {core} today"
        if find_spans(text, params):
            detected += 1
            assert may_contain_pii(text, params), text
    assert detected >= 30  # non-vacuous: presidio did find things


def test_the_assignment_gate_sees_every_case_form_the_name_regex_sees():
    """The secret-assignment gate looks for pass/pwd/secret/token/key in the case-folded text: every
    text the name regex matches (any letter case, the long s, the Kelvin sign) must open the gate."""
    from corpus.pii.precheck import _SECRET_NAME, _may_hold_assignment

    named = [text for text in ("PASSWORD=hunter2", "db_Pwd: x", "pa\u017f\u017fword = \"x\"", "api_\u212aEY=abc",
                               "Secret: 1", "client_token=abc", "set MyKey := 3")
             if _SECRET_NAME.search(text) is not None]
    assert len(named) >= 4  # the forms the regex names, the long s and the Kelvin sign among them
    assert all(_may_hold_assignment(text) for text in named)
    assert not _may_hold_assignment("no secrets here")  # neither ':' nor '='
