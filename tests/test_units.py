"""corpus.dedup.units and the bucket rule of corpus.dedup.lines, on small texts: segments cover the
text, sentence ends follow spaCy's sentencizer (the expected splits below are spaCy 3.8's blank English
pipeline with its sentencizer, what datatrove's SentenceDedup uses), simplification, edits, keepers."""

from __future__ import annotations

import numpy as np

from corpus.dedup.lines import UNIT_REC, UnitSpec, first_occurrences
from corpus.dedup.units import (edited, line_segments, paragraph_segments, removed_segments, segments,
                                sentence_segments, simplify, simplify_all, unit_keys)

SPACY_SPLITS = {  # text: its sentences as spaCy cuts them (Span.text)
    'Hello there. Mr. Smith went to Washington. He said "hi." Then left!! Really?! Yes... no. 3.5 kg. '
    'The U.S. is big. etc. and so on. e.g. this. A. B. Smith. end.Next one. Go (now.) Then.':
        ["Hello there.", "Mr. Smith went to Washington.", 'He said "hi."', "Then left!!", "Really?!",
         "Yes... no.", "3.5 kg.", "The U.S. is big.", "etc.", "and so on.", "e.g. this.", "A. B. Smith.",
         "end.", "Next one.", "Go (now.)", "Then."],
    "It costs $5. Then No. 5 is here. Jan. 5 was cold. He works at IBM. Then x. NASA. Then I. Then.":
        ["It costs $5.", "Then No.", "5 is here.", "Jan. 5 was cold.", "He works at IBM.", "Then x. NASA.",
         "Then I. Then."],
    'Menu | Login. Foo.— bar. He said: "Go." (See above.) Then. **Bold.** Next. All rights. • Home':
        ["Menu | Login.", "Foo.—", "bar.", 'He said: "Go." (', "See above.)", "Then. **", "Bold.**", "Next.",
         "All rights. •", "Home"],
    "Zulassung (z.B. alle Kindersitze) werden. Line two.\nLine three\n\nPara two. Sentence.  Two spaces.":
        ["Zulassung (z.B. alle Kindersitze) werden.", "Line two.", "Line three\n\nPara two.", "Sentence.",
         "Two spaces."],
}


def test_sentences_split_where_spacy_splits():
    for text, expected in SPACY_SPLITS.items():
        assert [text[a:b].strip() for a, b in sentence_segments(text)] == expected


def test_segments_cover_the_text_end_to_end():
    text = "a line\n\nsecond para line\nstill second\n\n\nthird. Two! Three?\n"
    for unit in ("line", "paragraph", "span"):
        segs = segments(text, unit)
        assert "".join(text[a:b] for a, b in segs) == text and all(a < b for a, b in segs)
    assert [text[a:b] for a, b in paragraph_segments(text)] == [
        "a line\n\n", "second para line\nstill second\n\n\n", "third. Two! Three?\n"]
    assert len(line_segments(text)) == 7


def test_simplify_is_datatroves_normalisation():
    assert simplify("  Café   costs 3,50 €!! On MONDAY…  ") == "cafe costs 0 € on monday"
    assert simplify("The 2nd—and 1.5 “quoted” words.") == "the 0nd and 0 quoted words"
    pieces = ["Hello, World.", " Número 12.", "\n\n", "Ünïcödé "]
    assert simplify_all(pieces) == [simplify(p) for p in pieces]


def test_edits_remove_a_span_with_its_sentences_and_lines_with_their_newline():
    text = "One. Two. Three. Four. Five."
    segs = segments(text, "span")
    gone = removed_segments(len(segs), [1], "span", 3)
    assert gone == [False, True, True, True, False]
    assert edited(text, segs, gone, "span") == "One. Five."
    lines = "keep me\ndrop me\nkeep too\ndrop last"
    segs = segments(lines, "line")
    assert edited(lines, segs, [False, True, False, True], "line") == "keep me\nkeep too"


def test_unit_keys_skip_short_lines_and_blank_spans():
    keys = unit_keys("tiny\na line long enough to count\n\n", "line", min_chars=10)
    assert [p for p, _ in keys] == [1]
    assert unit_keys("... !!! ??? Real words here. More.", "span", n_sentences=3) != []
    assert all(len(k) == 16 for _, k in unit_keys("A. b c. d e f. g.", "span"))


def test_the_earliest_row_and_position_keeps_a_unit():
    rec = np.zeros(5, UNIT_REC)
    rec["hi"] = [7, 7, 3, 7, 3]
    rec["row"] = [5, 2, 9, 2, 1]
    rec["pos"] = [0, 4, 0, 1, 8]
    order, keeper = first_occurrences(rec)
    got = {(int(rec["row"][o]), int(rec["pos"][o])): int(k) for o, k in zip(order, keeper)}
    assert got == {(1, 8): -1, (9, 0): 1, (2, 1): -1, (2, 4): 2, (5, 0): 2}


def test_unit_spec_from_the_dedup_table():
    assert UnitSpec.of({"lines": {"enabled": False}, "spans": {"enabled": False}}) is None
    spec = UnitSpec.of({"lines": {"enabled": True, "unit": "paragraph", "min_chars": 5, "min_doc_chars": 9},
                        "spans": {"enabled": False}})
    assert (spec.kind, spec.unit, spec.min_chars, spec.min_doc_chars) == ("lines", "paragraph", 5, 9)


def test_the_accent_table_is_built_on_first_use_not_at_import():
    import subprocess
    import sys

    code = ("import corpus.dedup.units as u; assert u.accent_marks.cache_info().currsize == 0; "
            "assert u.simplify('Crème brûlée') == 'creme brulee'; assert u.accent_marks.cache_info().currsize == 1")
    subprocess.run([sys.executable, "-c", code], check=True)
