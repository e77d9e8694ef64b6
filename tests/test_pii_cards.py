"""PaymentCardRecognizer: every major brand and length 12-19, Luhn + IIN, with and without separators;
numbers that only look like cards are left alone."""

from __future__ import annotations

import json
import re

import pytest

from conftest import mirror_sha
from corpus.pii.cards import BRANDS, PaymentCardRecognizer, brand_of, card_prefix_end, luhn_ok
from corpus.pii.scrub import PiiParams, scrub

PARAMS = PiiParams()
GSM8K_TRAIN = "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465"


def with_check_digit(body: str) -> str:
    """``body`` plus the digit that makes it pass Luhn."""
    return next(body + d for d in "0123456789" if luhn_ok(body + d))


# Issuers' published test numbers, plus numbers built from a brand's IIN with a Luhn check digit.
CARDS = {
    "visa16": "4111111111111111",
    "visa13": "4222222222222",
    "visa19": with_check_digit("411111111111111111"),
    "mastercard_51": "5105105105105100",
    "mastercard_2series": "2223003122003222",
    "amex": "378282246310005",
    "discover": "6011111111111117",
    "diners14": "30569309025904",
    "jcb16": "3530111333300000",
    "jcb15_2131": with_check_digit("21310000000000"),
    "jcb15_1800": with_check_digit("18001234567890"),
    "maestro12": with_check_digit("50381234567"),
    "maestro19": with_check_digit("676312345678901234"),
    "unionpay": "6200000000000005",
    "mir": with_check_digit("220012345678901"),
}


def cards_in(text: str) -> list[str]:
    return [text[r.start:r.end] for r in PaymentCardRecognizer().analyze(text, ["CREDIT_CARD"])]


@pytest.mark.parametrize("kind", sorted(CARDS))
def test_every_brand_and_length_is_a_card(kind: str) -> None:
    number = CARDS[kind]
    assert brand_of(number) is not None and luhn_ok(number)
    assert cards_in(f"Please charge card {number} today.") == [number]
    assert scrub(f"Please charge card {number} today.", PARAMS) == ("Please charge card <CARD> today.", {"CARD": 1})


@pytest.mark.parametrize("text,card", [
    ("Card on file: 4111 1111 1111 1111, exp 09/27", "4111 1111 1111 1111"),
    ("Karte: 5105-1051-0510-5100.", "5105-1051-0510-5100"),
    ("amex 3782 822463 10005 ok", "3782 822463 10005"),
    ("card 4111 1111 1111 1111 12/25", "4111 1111 1111 1111"),  # the expiry after it is not part of it
    ("カード番号は4900403270782120です。", None),  # glued to CJK letters: still found (checked below)
    ("19 digits: 4111-1111-1111-1111-110 end", None),
])
def test_separators_and_surroundings(text: str, card: str | None) -> None:
    found = cards_in(text)
    assert len(found) == 1, (text, found)
    if card is not None:
        assert found == [card]
    assert luhn_ok(re.sub(r"\D", "", found[0]))


@pytest.mark.parametrize("text", [
    "card 4111111111111112 on file",          # Luhn fails
    "id 7111111111111114 is not a card",      # Luhn passes, no brand starts with 7
    "4111 1111-1111 1111",                    # mixed separators
    "order ID4111111111111111 shipped",       # glued to a word
    "ratio 4111111111111111.5",               # a decimal
    "hash 41111111111111112222 long run",     # a longer number is not cut into a card
    "ISBN 978-3-16-148410-0",
    "version 4.1.1.1111111111111",
    "tel 4111 111 111",                       # too short
])
def test_card_near_misses(text: str) -> None:
    assert cards_in(text) == []


def test_grouping_prefix_rule() -> None:
    assert card_prefix_end("4111 1111 1111 1111 12") == len("4111 1111 1111 1111")
    assert card_prefix_end("4111 11 11 1111 1111") == 0  # groups of 2 are not a card layout
    assert card_prefix_end("411111111111111") == 0       # 15 digits: not a Visa length


def test_brand_table_is_consistent() -> None:
    for brand in BRANDS:
        assert all(12 <= n <= 19 for n in brand.lengths), brand
        assert all(len(low) == len(high) and low <= high for low, high in brand.ranges), brand


def test_no_cards_in_gsm8k_numbers() -> None:
    """Real arithmetic with long numbers: no card is found in 7,473 GSM8K training problems."""
    rows = [json.loads(line) for line in mirror_sha(GSM8K_TRAIN).read_text().splitlines() if line]
    recognizer = PaymentCardRecognizer()
    found = [text[r.start:r.end] for row in rows for text in [row["question"] + "\n" + row["answer"]]
             for r in recognizer.analyze(text, ["CREDIT_CARD"])]
    assert found == []
    assert sum(bool(re.search(r"\d{7,}", row["answer"])) for row in rows) >= 20  # long numbers were there
