"""International (+cc / 00cc) and context-confirmed local phone numbers in many languages, and the
numeric text (arithmetic, dates, IDs, SSNs, ISBNs) that must not become phones."""

from __future__ import annotations

import json

import pytest

from conftest import mirror_sha, tinystories
from corpus.pii.phones import ContextPhoneRecognizer, InternationalPhoneRecognizer
from corpus.pii.scrub import PiiParams, find_spans, scrub

PARAMS = PiiParams()
GSM8K_TRAIN = "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465"


def found(recognizer, text: str) -> list[str]:
    return [text[r.start:r.end] for r in recognizer.analyze(text, ["PHONE_NUMBER"])]


@pytest.mark.parametrize("text,number", [
    ("Rufen Sie uns an: +49 30 1234567.", "+49 30 1234567"),
    ("Büro 0049 30 1234567 (Zentrale)", "0049 30 1234567"),
    ("+49(0)1152449390 is the hotline", "+49(0)1152449390"),  # invalid for phonenumbers, still a +cc number
    ("Contacto (+351) 961 152 449 hoje", "(+351) 961 152 449"),
    ("Телефон: +7 (768) 595-57-26", "+7 (768) 595-57-26"),
    ("00420 604 115 244 je moje číslo", "00420 604 115 244"),
    ("+1-944-435-4352x04732 ok", "+1-944-435-4352x04732"),
])
def test_international_numbers(text: str, number: str) -> None:
    assert found(InternationalPhoneRecognizer(), text) == [number]
    assert "<PHONE>" in scrub(text, PARAMS)[0] and number not in scrub(text, PARAMS)[0]


@pytest.mark.parametrize("text", [
    "She has 5 +12 345 6789 apples",          # arithmetic, not a country code
    "x = 0044 123 4567",                      # after an equals sign
    "Survival ( ISBN 978 @-@ 0062023117 )",   # 00 + digits with no grouping and no phone word
    "+999 1234567",                           # no such country code
])
def test_international_near_misses(text: str) -> None:
    assert found(InternationalPhoneRecognizer(), text) == []


# National and local numbers from many countries, each after (or, in Turkish, before) the phone
# word of its language.
LOCAL = [
    ("Call me at 449 4898 tomorrow.", "449 4898"),
    ("Tel. 96 237271", "96 237271"),
    ("Telefon: 33 93 31", "33 93 31"),
    ("Tel.: 0393 1144137 (Zentrale)", "0393 1144137"),
    ("Per informazioni: cellulare 0961-7596216.", "0961-7596216"),
    ("Appelez-moi au 04 20 00 57 56.", "04 20 00 57 56"),
    ("Llámame al 982 58 78 40.", "982 58 78 40"),
    ("Zadzwoń pod numer 668 233 025.", "668 233 025"),
    ("Позвоните мне по номеру 81183472366.", "81183472366"),
    ("電話番号は070-1152-4493です。", "070-1152-4493"),
    ("请拨打13797876055联系我们。", "13797876055"),
    ("전화번호는 042-335-9469입니다.", "042-335-9469"),
    ("Bize 02778709658 numarasından ulaşabilirsiniz.", "02778709658"),
    ("Número: 96 237271", "96 237271"),
    ("You can reach our office on 6932307699 during business hours.", "6932307699"),
]


@pytest.mark.parametrize("text,number", LOCAL)
def test_context_confirmed_local_numbers(text: str, number: str) -> None:
    assert found(ContextPhoneRecognizer(), text) == [number]
    scrubbed, counts = scrub(text, PARAMS)
    assert number not in scrubbed and counts.get("PHONE") == 1, scrubbed


@pytest.mark.parametrize("text", [
    "The same digits in a list: 449 4898 and 96 237271.",
    "He made 142857 calls last year.",                              # the word comes after, and is not one
    "phone number 142857",                                          # a bare 6-digit count
    "The number of students was 1234567.",                          # "number" not right before it
    "Carries charged her phone 742 / 106 = <<742/106=7>>7 times.",  # arithmetic
    "The phone costs $120 000 in total.",                           # money
    "Call on 12.10.2023 at noon.",                                  # a date
    "His social security number is 531-21-7351",                    # an SSN
    "Phone sales: 2019 2020 2021 were good years.",                 # years
    "Call me. 449 4898 is the code.",                               # a sentence ends in between
])
def test_context_near_misses(text: str) -> None:
    assert found(ContextPhoneRecognizer(), text) == []


def test_no_new_phones_in_gsm8k_and_tinystories() -> None:
    """Real numeric text: the two new recognizers report nothing in GSM8K train (7,473 problems,
    many with "phone" and "call" in them) nor in TinyStories."""
    rows = [json.loads(line) for line in mirror_sha(GSM8K_TRAIN).read_text().splitlines() if line]
    texts = [row["question"] + "\n" + row["answer"] for row in rows] + list(tinystories())
    hits = [(t, hit) for t in texts for r in (InternationalPhoneRecognizer(), ContextPhoneRecognizer())
            for hit in found(r, t)]
    assert hits == []
    with_words = sum(any(w in t.lower() for w in ("phone", "call")) for t in texts)
    assert with_words > 200  # phone words were all around


def test_phone_inside_other_pii_is_resolved_once() -> None:
    text = "Tel. +44 20 7946 0958 / mail tom@example.org"
    assert [t for *_, t in find_spans(text, PARAMS)] == ["PHONE", "EMAIL"]
