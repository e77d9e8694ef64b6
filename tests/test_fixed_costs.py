"""What a run pays before any work: a current stage loads none of its heavy libraries, and the ledger's
rows are schema-checked once per process, not once per stage (issue 49, fixed costs)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from corpus.config.ledger import load_ledger
from corpus.errors import CorpusError


def test_planning_the_pii_stage_imports_no_presidio():
    code = ("import sys, corpus.stages.pii, corpus.commands.cli; "
            "print(sorted(m for m in ('presidio_analyzer', 'spacy', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_ledger_line_checked_once_is_not_checked_again_but_an_edited_one_is(tmp_path):
    row = {"source_id": "s", "role": "corpus", "url": "file:///x.txt", "sha256": "0" * 64, "bytes": 1,
           "license_spdx": "CC0-1.0", "format": "text"}
    path = tmp_path / "ledger.jsonl"
    path.write_text(json.dumps(row) + "\n")
    first = load_ledger(path)
    first["s"]["bytes"] = 99                       # a caller's edit does not leak into the next load
    assert load_ledger(path)["s"]["bytes"] == 1
    path.write_text(json.dumps({**row, "bytes": -1}) + "\n")
    with pytest.raises(CorpusError, match="ledger.jsonl:1"):
        load_ledger(path)
