"""The units of dedup inside documents: lines, paragraphs and C4-style sentence spans, their keys and the
text left once some are removed. Plain functions of one document's text (no I/O).

A document is cut into *segments* that cover its text end to end, so removing segments and joining the
rest is the whole edit:

- line: each line with its newline; paragraph: each run of non-blank lines with the blank lines after it.
  A unit's key is the 16-byte BLAKE2b of the segment stripped of surrounding whitespace (the text is
  stage 02's normalised text, as exact dedup hashes it); a unit shorter than `min_chars` has no key and
  is never removed.
- span: sentences as spaCy's blank English pipeline with its `sentencizer` cuts them (what datatrove's
  SentenceDedup uses), reimplemented with a few rules (`sentence_ends`); segment i runs from the end of
  sentence i-1 to the end of sentence i, as datatrove's filter cuts it. A span is `n` consecutive
  sentences; its key hashes the sentences simplified as datatrove's `simplify_text` does (lower case,
  numbers to 0, punctuation to spaces, whitespace squeezed, accents removed), joined by a space. A copy
  of span i removes sentences i .. i+n-1.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

import numpy as np

KEY = np.dtype([("pos", "<i4"), ("hi", "<u8"), ("lo", "<u8")])  # a unit's position in its document, its key

# ---------------------------------------------------------------- lines and paragraphs

_PARAGRAPH_END = re.compile(r"\n(?:[^\S\n]*\n)+")  # the blank lines that end a paragraph


def line_segments(text: str) -> list[tuple[int, int]]:
    """Each line with its newline: (start, end)."""
    out, start = [], 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        out.append((start, end))
        start = end
    return out


def paragraph_segments(text: str) -> list[tuple[int, int]]:
    """Each paragraph with the blank lines after it (leading blank lines belong to the first)."""
    out, start = [], 0
    for m in _PARAGRAPH_END.finditer(text):
        if text[start:m.start()].strip():
            out.append((start, m.end()))
            start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


# ---------------------------------------------------------------- sentences (spaCy's sentencizer, by rules)

# spaCy's Sentencizer.default_punct_chars that occur in practice: a token made of one of them ends a sentence
TERMINALS = frozenset("!.?։؟۔܀܁܂߹।॥၊။።፧፨᙮᜵᜶᠃᠉᥄᥅᪨᪩᪪᪫᭚᭛᭞᭟᰻᰼᱾᱿‼‽⁇⁈⁉⸮⸼。꓿꘎꘏꛳꛷꡶꡷꣎꣏꤯꧈꧉꩝꩞꩟꫰꫱꯫﹒﹖﹗！．？｡")
_TERMINAL_RE = re.compile("[" + re.escape("".join(sorted(TERMINALS))) + "]")
# words spaCy's English tokenizer keeps whole with their final period (its exceptions): no sentence ends there
ABBREVIATIONS = frozenset("""Adm. Ak. Ala. Apr. Ariz. Ark. Aug. Bros. Calif. Co. Colo. Conn. Corp. D.C. Dec. Del.
Dr. E.G. E.g. Feb. Fla. Ga. Gen. Gov. I.E. I.e. Ia. Id. Ill. Inc. Ind. Jan. Jr. Jul. Jun. Kan. Kans. Ky. La. Ltd.
Mar. Mass. Md. Messrs. Mich. Minn. Miss. Mo. Mont. Mr. Mrs. Ms. Mt. N.C. N.D. N.H. N.J. N.M. N.Y. Neb. Nebr. Nev.
Nov. Oct. Okla. Ore. Pa. Ph.D. Prof. Rep. Rev. S.C. Sen. Sep. Sept. St. Tenn. Va. Wash. Wis. a.m. co. e.g. i.e.
p.m. v.s. vs. °C. °F. °K. °c. °f. °k. ä. ö. ü. U.S. U.K.""".split())


_QUOTES = frozenset("'\"”“`‘´’‚,„»«「」『』（）〔〕【】《》〈〉⟦⟧")
_PUNCT = frozenset("…,:;!?¿؟¡()[]{}<>_#*&。？！，、；：～·।،۔؛٪")
_SUFFIXES = _PUNCT | _QUOTES | TERMINALS | frozenset("—–")   # split off a word's end, one by one
_BEFORE_PERIOD = _PUNCT | _QUOTES | frozenset("%²-+")           # a period after these is split off


def _is_punct(c: str) -> bool:
    return unicodedata.category(c)[0] == "P"


def _word_before(text: str, i: int) -> str:
    """The word that the '.' at i ends, as spaCy's tokenizer sees it: opening punctuation split off,
    and the part after a hyphen."""
    start = i
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while start < i and text[start] in _SUFFIXES:  # opening quotes and brackets are split off first
        start += 1
    word = text[start:i + 1]
    if "-" in word[1:]:  # "Lakes-St.": a hyphen between letters is split off too
        word = word[word.rindex("-") + 1:]
    return word


def _exception(word: str) -> bool:
    """An abbreviation spaCy keeps whole with its period ("Mr.", "e.g.", "z.")."""
    return word in ABBREVIATIONS or (len(word) == 2 and "a" <= word[0] <= "z")


def _period_ends_token(text: str, i: int) -> bool:
    """Whether the '.' at i, ending a word, is a token of its own (spaCy's suffix rules and exceptions)."""
    word = _word_before(text, i)
    if word == ".":
        return True
    if _exception(word):
        return False
    prev = text[i - 1]
    if prev.isdigit() or prev.islower() or prev in _BEFORE_PERIOD or (prev.isalpha() and not prev.isupper()):
        return True
    return i >= 2 and prev.isupper() and text[i - 2].isupper()  # "IBM." splits, "McD." does not


def _terminal(text: str, i: int) -> bool:
    """Whether the terminal character at i ends a sentence."""
    n = len(text)
    j = i + 1
    while j < n and text[j] in _SUFFIXES:  # closing quotes, brackets, more terminals
        j += 1
    inside = j < n and not text[j].isspace()
    if text[i] != ".":  # "!", "?", "。" are split off a word; the rarer ones end a sentence standing alone
        return not inside and (text[i] in _PUNCT or i == 0 or text[i - 1].isspace())
    if (i > 0 and text[i - 1] == ".") or (i + 1 < n and text[i + 1] == "."):
        return False  # an ellipsis is one token, not a period
    if inside:  # "end.Next": spaCy's infix rule, a lower-case letter, a period, an upper-case letter ("z.B.": no)
        return i > 0 and text[i - 1].islower() and j == i + 1 and text[j].isupper() and not _exception(
            _word_before(text, i))
    return i > 0 and _period_ends_token(text, i)


def _punct_after(text: str, end: int) -> int:
    """The end of the punctuation tokens that follow a terminal one: the word's remaining suffixes, then
    across one space a word made of punctuation only, or a word's opening quotes and brackets."""
    n = len(text)
    while end < n and text[end] in _SUFFIXES and _is_punct(text[end]):
        end += 1
    while end + 1 < n and text[end] == " " and not text[end + 1].isspace():
        k = end + 1
        while k < n and not text[k].isspace() and _is_punct(text[k]):
            k += 1
        if k < n and not text[k].isspace():  # a word: only its split-off opening punctuation
            k = end + 1
            while k < n and text[k] in _SUFFIXES and _is_punct(text[k]):  # "``" is a symbol, not punctuation
                k += 1
            return k if k > end + 1 else end
        end = k
    return end


def sentence_ends(text: str) -> list[int]:
    """Where each sentence ends (the last one at len(text)): after a terminal token and the punctuation
    tokens that follow it, as spaCy's sentencizer attaches them; the next sentence starts at the next
    token that is not punctuation (a word, or whitespace other than one space)."""
    ends: list[int] = []
    n = len(text)
    skip_to = 0
    for m in _TERMINAL_RE.finditer(text):
        i = m.start()
        if i < skip_to or not _terminal(text, i):
            continue
        end = _punct_after(text, i + 1)
        skip_to = end
        if end < n and (not ends or end > ends[-1]):
            ends.append(end)
    ends.append(n)
    return ends


def sentence_segments(text: str) -> list[tuple[int, int]]:
    """Sentence i from the end of sentence i-1 to its own end (datatrove's filter keeps the whitespace
    between two sentences with the second)."""
    ends = sentence_ends(text) if text else []
    return list(zip([0] + ends[:-1], ends))


# ---------------------------------------------------------------- simplification (datatrove's simplify_text)

# punctuation and symbols that become spaces: ASCII's, the common typographic ones and C0/C1 controls
_PUNCTUATION = ("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~—”％１〈、━【「」，】；“《„’∶´．（–？！：～«〉》）。…►»"
                + "".join(map(chr, [*range(0, 9), 11, 12, *range(14, 32), *range(127, 160)])))
_PUNCT_RE = re.compile("[" + re.escape(_PUNCTUATION) + "]")  # a regex: faster than str.translate here
_NUMBER = re.compile(r"\d+(?:[.,،٫⎖⎗⎘]\d+)?")
_JOIN = "\ue000"  # a private-use character: simplify() leaves it alone, so it separates sentences simplified at once




def _coarse(codes: list[int], gap: int = 64) -> re.Pattern:
    """A character class of a few ranges holding every code (and some others): a quick first test."""
    ranges: list[list[int]] = []
    for c in codes:
        if ranges and c - ranges[-1][1] <= gap:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]")


@functools.cache
def accent_marks() -> tuple[dict[int, None], re.Pattern]:
    """The combining marks (category Mn) that _unaccented deletes, as a str.translate table, and a quick
    first test for them. Built on first use, not at import: scanning the code points takes ~0.1 s, which
    a command that never simplifies a non-ASCII sentence (a no-op `corpus run`) need not pay. The pool's
    forkserver builds it once before forking (corpus.commands.worker_preload)."""
    marks = {c: None for c in range(0x300, 0x30000) if unicodedata.category(chr(c)) == "Mn"}
    return marks, _coarse(sorted(marks))


def _unaccented(s: str) -> str:
    nfd = unicodedata.normalize("NFD", s)
    marks, maybe_mark = accent_marks()
    return nfd.translate(marks) if maybe_mark.search(nfd) else nfd


def simplify(sentence: str) -> str:
    """Lower case, numbers to "0", punctuation to spaces, whitespace squeezed and stripped, combining
    accents removed (NFD): what makes two copies of a sentence equal."""
    s = " ".join(_PUNCT_RE.sub(" ", _NUMBER.sub("0", sentence.lower())).split())
    return s if s.isascii() else _unaccented(s).strip()


def simplify_all(pieces: list[str]) -> list[str]:
    """simplify() of each piece, done on all of them at once (one pass of each step over the document)."""
    whole = _JOIN.join(pieces)
    if whole.count(_JOIN) != len(pieces) - 1:  # the text holds the separator itself
        return [simplify(p) for p in pieces]
    s = _PUNCT_RE.sub(" ", _NUMBER.sub("0", whole.lower()))
    if not s.isascii():
        s = _unaccented(s)
    return [" ".join(p.split()) for p in s.split(_JOIN)]


# ---------------------------------------------------------------- keys and edits

def digest(unit: str) -> bytes:
    return hashlib.blake2b(unit.encode("utf-8"), digest_size=16).digest()


def segments(text: str, unit: str) -> list[tuple[int, int]]:
    if unit == "line":
        return line_segments(text)
    if unit == "paragraph":
        return paragraph_segments(text)
    return sentence_segments(text)


def unit_keys(text: str, unit: str, min_chars: int = 0, n_sentences: int = 3) -> list[tuple[int, bytes]]:
    """(position, 16-byte key) of every unit that can be removed: a line or paragraph of at least
    `min_chars` characters (stripped), or a span of `n_sentences` sentences that is not blank once simplified."""
    segs = segments(text, unit)
    if unit != "span":
        out = []
        for pos, (a, b) in enumerate(segs):
            u = text[a:b].strip()
            if u and len(u) >= min_chars:
                out.append((pos, digest(u)))
        return out
    simple = simplify_all([text[a:b] for a, b in segs])
    out = []
    for pos in range(len(simple) - n_sentences + 1):
        joined = " ".join(simple[pos:pos + n_sentences])
        if joined.strip():
            out.append((pos, digest(joined)))
    return out


def keys_array(keys: list[tuple[int, bytes]]) -> np.ndarray:
    """unit_keys as a KEY array (the 16 bytes as two big-endian words)."""
    out = np.empty(len(keys), dtype=KEY)
    if keys:
        words = np.frombuffer(b"".join(k for _, k in keys), dtype=">u8").reshape(-1, 2)
        out["pos"] = [p for p, _ in keys]
        out["hi"], out["lo"] = words[:, 0], words[:, 1]
    return out


def removed_segments(n_segments: int, copies: list[int], unit: str, n_sentences: int = 3) -> list[bool]:
    """Which segments go: each copy's own (a span's: its n sentences)."""
    width = n_sentences if unit == "span" else 1
    gone = [False] * n_segments
    for pos in copies:
        for k in range(pos, min(pos + width, n_segments)):
            gone[k] = True
    return gone


def edited(text: str, segs: list[tuple[int, int]], gone: list[bool], unit: str) -> str:
    """The text without the removed segments. Spans: leading whitespace stripped, as datatrove does;
    lines and paragraphs: the separator a removed last unit leaves at the end stripped."""
    out = "".join(text[a:b] for (a, b), g in zip(segs, gone) if not g)
    if unit == "span":
        return out.lstrip()
    return out.rstrip("\n") if gone and gone[-1] else out
