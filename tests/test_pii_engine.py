"""The direct path (recognizers called without presidio's AnalyzerEngine and its spaCy pass) and the
line-windowed phonenumbers matcher give exactly the results of presidio's own paths on real data."""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import sys
import zipfile
from dataclasses import replace

import pytest
from presidio_analyzer.predefined_recognizers import PhoneRecognizer

from conftest import REPO, mirror_sha, tinystories
from corpus.pii.recognizers import PHONE_LENIENCY, LineWindowPhoneRecognizer
from corpus.pii.scrub import DIRECT_MAX_THRESHOLD, PiiParams, find_spans, find_spans_with_engine, scrub

PARAMS = PiiParams()
GENERATED_SMALL = "ebc4d2e49907678d65e38ed7b9efc267f6e3c1b6761af9de30aef6fa7e11c1e4"
ENTERPRISE_PII = "de3a638feb3285dd45d54dddbc21fb26ecf1a89ef18e63582434e6e2eda2d14a"
GSM8K_TRAIN = "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465"
WEBTEXT = "9e32dbae4879464b8f420a0dc721855bb26167b720d7695588d2ca2aeadf501a"

# Multi-line contact blocks: phones on several lines, one per line edge, with extensions and context.
CONTACTS = [
    "Sales: +1 212 555 0187\nSupport: 212-555-0199 ext. 12\nFax (020) 7946 0958\n0161 496 0000",
    "Call 212 555 0187\n\n(212) 555-0188 x3\n+44 20 7946 0958 or 07700 900123\n",
    "Telefon: 030 1234567\nTel. 0393 1144137\nmobile 07700 900 123 / office 020 7946 0000",
]


@pytest.fixture(scope="module")
def real_docs() -> list[str]:
    labelled = [row["full_text"] for row in json.loads(mirror_sha(GENERATED_SMALL).read_text())]
    enterprise = [json.loads(line)["query"] for line in mirror_sha(ENTERPRISE_PII).read_text().splitlines() if line]
    enterprise = [d for d in enterprise if "@" in d or re.search(r"\d{3}", d)][:150]
    gsm = [json.loads(line) for line in mirror_sha(GSM8K_TRAIN).read_text().splitlines()[:400] if line]
    gsm = [r["question"] + "\n" + r["answer"] for r in gsm]
    with zipfile.ZipFile(mirror_sha(WEBTEXT)) as z:
        firefox = io.TextIOWrapper(z.open("webtext/firefox.txt"), encoding="latin-1").read().splitlines()
    code = [line for line in firefox if re.search(r"[=;{}]|://|\w\(", line)][:300]
    stories = [s for s in tinystories() if re.search(r"\d", s)]
    return labelled + enterprise + gsm + code + stories + CONTACTS


@pytest.mark.slow  # ~1.6 s
def test_direct_path_equals_analyzer_engine(real_docs: list[str]) -> None:
    """No spaCy pass and no context scoring at threshold 0.4: the same spans as AnalyzerEngine."""
    assert PARAMS.score_threshold <= DIRECT_MAX_THRESHOLD
    direct = [find_spans(d, PARAMS) for d in real_docs]
    engine = [find_spans_with_engine(d, PARAMS) for d in real_docs]
    assert direct == engine
    assert sum(map(bool, direct)) >= 20  # there was PII to find


def test_line_windows_equal_whole_text_matching(real_docs: list[str]) -> None:
    regions = PARAMS.phone_regions
    windowed = LineWindowPhoneRecognizer(supported_regions=regions, leniency=PHONE_LENIENCY)
    whole = PhoneRecognizer(supported_regions=regions, leniency=PHONE_LENIENCY)
    found = 0
    for doc in real_docs:
        a = sorted((r.start, r.end) for r in windowed.analyze(doc, ["PHONE_NUMBER"]))
        b = sorted((r.start, r.end) for r in whole.analyze(doc, ["PHONE_NUMBER"]))
        assert a == b, doc
        found += len(a)
    assert found >= 10


def test_above_the_direct_threshold_the_engine_decides() -> None:
    # presidio's phone score is 0.4; its context enhancer lifts "phone ... 212-555-0187" above 0.5
    params = replace(PARAMS, score_threshold=0.5)
    with_word, without = "my phone number is 212-555-0187", "see 212-555-0187"
    assert find_spans(with_word, params) == find_spans_with_engine(with_word, params) != []
    assert [t for *_, t in find_spans(without, params)] == []
    assert [t for *_, t in find_spans(without, PARAMS)] == ["PHONE"]


@pytest.mark.parametrize("text,placeholder", [
    ("メールはeabe@gmail.comまでお送りください。", "メールは<EMAIL>までお送りください。"),
    ("サーバー172.16.9.143が応答しません。", "サーバー<IP>が応答しません。"),
    ("服务器4c14:37c0:fa5a:35f8:4726:7c88:e73b:4022没有响应。", "服务器<IP>没有响应。"),
])
def test_pii_glued_to_cjk_letters(text: str, placeholder: str) -> None:
    assert scrub(text, PARAMS)[0] == placeholder


@pytest.mark.slow  # ~3.5 s
def test_importing_the_scrub_loads_neither_torch_nor_transformers() -> None:
    code = ("import sys; import corpus.pii.scrub as s; s.scrub('a@b.co', s.PiiParams()); "
            "print('torch' in sys.modules, 'transformers' in sys.modules); import torch; print(torch.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"})
    assert out.stdout.split() == ["False", "False", "torch"]  # and torch still imports afterwards


@pytest.fixture
def restored_logging():
    """The root logger's handlers and level and the chatty loggers' levels, put back after the test."""
    from corpus.commands.cli import CHATTY_LOGGERS

    root, chatty = logging.getLogger(), [logging.getLogger(n) for n in CHATTY_LOGGERS]
    handlers, level, levels = root.handlers[:], root.level, [c.level for c in chatty]
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for c, lvl in zip(chatty, levels):
        c.setLevel(lvl)


def test_the_cli_log_holds_no_presidio_chatter(caplog, restored_logging):
    """Issue 47, item 6: presidio's INFO lines ("Loaded recognizer: …" per recognizer, "Using device of
    type: cpu") filled a run's log; -vv shows them."""
    from presidio_analyzer.nlp_engine.device_detector import DeviceDetector

    from corpus.commands.cli import _setup_logging

    def logged(verbose: int) -> list[str]:
        caplog.clear()
        _setup_logging(verbose, False)
        logging.getLogger().addHandler(caplog.handler)  # the setup replaced the root's handlers
        LineWindowPhoneRecognizer()
        DeviceDetector()
        logging.getLogger("corpus").info("pii: 40/40 parts done")
        return [r.getMessage() for r in caplog.records]

    assert logged(0) == logged(1) == ["pii: 40/40 parts done"]
    shown = logged(2)
    assert shown[0] == "Loaded recognizer: LineWindowPhoneRecognizer" and shown[1].startswith("Using device of type: ")
