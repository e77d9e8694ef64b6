"""Gopher quality rules on real text from the mirror, at and around every threshold.

Each rule gets a real passage edited so its measured value sits exactly AT the threshold (it
passes: comparisons are strict) or one step beyond it (it fails with that exact value). The
expected values are counted here with plain str.split/isalnum code, independently of the regexes
in corpus.filters.gopher. Texts come from the mirror (CORPUS_MIRROR, see conftest.py); the
tests skip when the mirror is absent.
"""

from __future__ import annotations

import re
import string
import zipfile
from dataclasses import replace
from functools import lru_cache

import pytest

from conftest import mirror_sha as mirror_file, tinystories
from corpus.filters.gopher import ELLIPSIS_DETAIL, HASH_DETAIL, GopherParams, gopher_quality
from corpus.filters.repetition import gopher_repetition

TINYSTORIES = "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5"
WIKITEXT_TEST = "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c"
WEBTEXT_ZIP = "9e32dbae4879464b8f420a0dc721855bb26167b720d7695588d2ca2aeadf501a"
STATE_UNION_ZIP = "366c1dc82b2abf896f42b2ec50ba802a0141a29f75d29ca48a7a243ce5bfbe8d"

DEFAULT = GopherParams()
STOP_WORDS = set(DEFAULT.stop_words)


# --- real text from the mirror ------------------------------------------------------------------




@lru_cache(maxsize=None)
def wikitext() -> str:
    return mirror_file(WIKITEXT_TEST).read_bytes().decode("utf-8")


@lru_cache(maxsize=None)
def wikitext_words() -> tuple[str, ...]:
    return tuple(ref_words(wikitext()))


@lru_cache(maxsize=None)
def zip_member(sha256: str, member: str) -> str:
    with zipfile.ZipFile(mirror_file(sha256)) as archive:
        return archive.read(member).decode("latin-1")


def story() -> str:
    """The first TinyStories story (Lily and the needle, 134 words)."""
    return tinystories()[0]


def truman_lines() -> list[str]:
    """Non-blank lines of Truman's 1945 address, after its title and date lines."""
    text = zip_member(STATE_UNION_ZIP, "state_union/1945-Truman.txt")
    return [line.strip() for line in text.splitlines() if line.strip()][2:]


def wikitext_paragraph(min_words: int) -> str:
    """The first WikiText paragraph (one line) with at least ``min_words`` words."""
    return next(line.strip() for line in wikitext().splitlines() if len(ref_words(line)) >= min_words)


# --- reference counting, independent of the module's regexes ------------------------------------


def is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def ref_words(text: str) -> list[str]:
    return [token for token in text.split() if is_word(token)]


def ref_mean_length(text: str) -> float:
    words = ref_words(text)
    return sum(map(len, words)) / len(words)


def is_stop_word(token: str) -> bool:
    return token.strip(string.punctuation + "“”‘’").lower() in STOP_WORDS


def first_words(text: str, n: int) -> str:
    """The prefix of ``text`` that ends with its n-th word, original spacing kept."""
    count = 0
    for token in re.finditer(r"\S+", text):
        count += is_word(token.group())
        if count == n:
            return text[: token.end()]
    raise ValueError(f"text has fewer than {n} words")


def edit_words(text: str, k: int, edit, every: int = 9) -> str:
    """Apply ``edit`` to k words spread through the text (every 9th word, skipping line-final ones)."""
    pieces, last, index, done = [], 0, 0, 0
    for token in re.finditer(r"\S+", text):
        if not is_word(token.group()):
            continue
        line_final = token.end() == len(text) or text[token.end()] in "\r\n"
        if done < k and index % every == 3 and not line_final:
            pieces += [text[last : token.start()], edit(token.group(), done)]
            last, done = token.end(), done + 1
        index += 1
    assert done == k, f"only {done} of {k} words could be edited"
    return "".join(pieces) + text[last:]


def nudged(params: GopherParams, field: str, value: float) -> GopherParams:
    return replace(params, **{field: value})


# --- whole-text checks --------------------------------------------------------------------------


def test_tinystories_story_passes_both_rule_sets():
    assert len(ref_words(story())) == 134
    assert gopher_quality(story()) is None
    assert gopher_repetition(story()) is None


def test_most_long_enough_tinystories_pass_both():
    long_enough = [s for s in tinystories() if len(ref_words(s)) >= DEFAULT.min_words]
    assert len(long_enough) > 900
    passing = [s for s in long_enough if gopher_quality(s) is None and gopher_repetition(s) is None]
    assert len(passing) / len(long_enough) > 0.95


def test_short_webtext_line_fails_min_words():
    line = zip_member(WEBTEXT_ZIP, "webtext/overheard.txt").splitlines()[0]
    assert line == "White guy: So, do you have any plans for this evening?"
    assert gopher_quality(line) == ("min_words", 11.0)


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t \r\n"])
def test_empty_text_fails_min_words(text: str):
    assert gopher_quality(text) == ("min_words", 0.0)


def test_punctuation_only_tokens_are_not_words():
    text = first_words(story(), 50)
    # Dashes, ellipses and bullets between the words add tokens but no words.
    padded = text.replace(" ", " - ", 5).replace(" ", " … ", 1) + " •"
    assert len(padded.split()) == 57 and len(ref_words(padded)) == 50
    assert gopher_quality(padded) is None
    assert gopher_quality(padded, nudged(DEFAULT, "min_words", 51)) == ("min_words", 50.0)


# --- one test per rule, at and around its threshold ----------------------------------------------


def test_min_words():
    at_threshold, one_short = first_words(story(), 50), first_words(story(), 49)
    assert gopher_quality(at_threshold) is None
    assert gopher_quality(one_short) == ("min_words", 49.0)
    assert gopher_quality(at_threshold, nudged(DEFAULT, "min_words", 51)) == ("min_words", 50.0)


def test_max_words():
    all_stories = "\n".join(tinystories())
    at_threshold = first_words(all_stories, 100_000)
    one_over = first_words(all_stories, 100_001)
    assert gopher_quality(at_threshold) is None
    assert gopher_quality(one_over) == ("max_words", 100_001.0)
    tighter = nudged(DEFAULT, "max_words", 99_999)
    assert gopher_quality(at_threshold, tighter) == ("max_words", 100_000.0)


def test_min_mean_word_length():
    # Pad the story with its own short words until the mean is exactly 3.0 characters.
    words = ref_words(story())
    one_letter, two_letters, four_letters = (next(w for w in words if len(w) == n) for n in (1, 2, 4))
    excess = sum(map(len, words)) - 3 * len(words)
    assert excess > 0
    at_threshold = story() + " " + " ".join([one_letter] * (excess // 2) + [two_letters] * (excess % 2))
    assert ref_mean_length(at_threshold) == 3.0
    just_above = at_threshold + " " + four_letters  # mean 3 + 1/n
    just_below = at_threshold + " " + two_letters  # mean 3 - 1/n
    assert gopher_quality(at_threshold) is None
    assert gopher_quality(just_above) is None and ref_mean_length(just_above) > 3.0
    expected = ref_mean_length(just_below)
    assert 2.99 < expected < 3.0
    assert gopher_quality(just_below) == ("min_mean_word_length", expected)


def test_max_mean_word_length():
    # A real WikiText sentence, then real 11- and 12-letter WikiText words up to a mean of exactly 10.
    base = first_words(wikitext_paragraph(40), 20)
    long_words = sorted({w for w in wikitext_words() if w.isalpha() and len(w) in (11, 12)})
    eleven = [w for w in long_words if len(w) == 11]
    twelve = [w for w in long_words if len(w) == 12]
    nine = next(w for w in wikitext_words() if w.isalpha() and len(w) == 9)
    deficit = 10 * len(ref_words(base)) - sum(map(len, ref_words(base)))
    assert deficit > 0 and len(twelve) > deficit // 2
    at_threshold = " ".join([base, *twelve[: deficit // 2], *eleven[: deficit % 2]])
    assert ref_mean_length(at_threshold) == 10.0 and len(ref_words(at_threshold)) >= 50
    just_below = at_threshold + " " + nine  # mean 10 - 1/n
    just_above = at_threshold + " " + eleven[-1]  # mean 10 + 1/n
    assert gopher_quality(at_threshold) is None
    assert ref_mean_length(just_below) < 10.0 and gopher_quality(just_below) is None
    expected = ref_mean_length(just_above)
    assert 10.0 < expected < 10.02
    assert gopher_quality(just_above) == ("max_mean_word_length", expected)


def test_hash_word_ratio():
    text = first_words(story(), 100)

    def hashtagged(k: int) -> str:
        return edit_words(text, k, lambda word, i: "#" + word)

    assert gopher_quality(hashtagged(9)) is None
    assert gopher_quality(hashtagged(10)) is None  # 10 / 100 = 0.1: at the threshold
    assert gopher_quality(hashtagged(11)) == ("max_symbol_word_ratio", 0.11, HASH_DETAIL)
    tighter = nudged(DEFAULT, "max_symbol_word_ratio", 0.099)
    assert gopher_quality(hashtagged(10), tighter) == ("max_symbol_word_ratio", 0.1, HASH_DETAIL)


def test_ellipsis_word_ratio():
    text = first_words(story(), 100)

    def trailing_off(k: int) -> str:  # both spellings count: "..." and "…"
        return edit_words(text, k, lambda word, i: word + ("..." if i % 2 else "…"))

    assert gopher_quality(trailing_off(10)) is None  # 10 / 100 = 0.1: at the threshold
    assert gopher_quality(trailing_off(11)) == ("max_symbol_word_ratio", 0.11, ELLIPSIS_DETAIL)
    tighter = nudged(DEFAULT, "max_symbol_word_ratio", 0.099)
    assert gopher_quality(trailing_off(10), tighter) == ("max_symbol_word_ratio", 0.1, ELLIPSIS_DETAIL)


def test_bullet_lines_ratio():
    lines = truman_lines()[:20]
    bullets = ("• ", "- ", "* ")

    def bulleted(k: int, separator: str = "\n") -> str:
        return separator.join(bullets[i % 3] + line if i < k else line for i, line in enumerate(lines))

    assert gopher_quality(bulleted(18)) is None  # 18 / 20 = 0.9: at the threshold
    assert gopher_quality(bulleted(19)) == ("max_bullet_lines_ratio", 0.95)
    # Blank lines are not lines: the ratio is the same with blank lines in between.
    assert gopher_quality(bulleted(19, "\n\n")) == ("max_bullet_lines_ratio", 0.95)
    # Indented bullets are bullets: lines are stripped before the check.
    assert gopher_quality(bulleted(19, "\n   ")) == ("max_bullet_lines_ratio", 0.95)
    tighter = nudged(DEFAULT, "max_bullet_lines_ratio", 0.89)
    assert gopher_quality(bulleted(18), tighter) == ("max_bullet_lines_ratio", 0.9)


def test_ellipsis_lines_ratio():
    lines = truman_lines()[:20]
    assert all(line.endswith((".", ":", "!")) for line in lines)

    def trailing_off(k: int) -> str:
        ending = ("...", "…")
        return "\n".join(line[:-1] + ending[i % 2] if i < k else line for i, line in enumerate(lines))

    assert gopher_quality(trailing_off(6)) is None  # 6 / 20 = 0.3: at the threshold
    assert gopher_quality(trailing_off(7)) == ("max_ellipsis_lines_ratio", 0.35)
    tighter = nudged(DEFAULT, "max_ellipsis_lines_ratio", 0.29)
    assert gopher_quality(trailing_off(6), tighter) == ("max_ellipsis_lines_ratio", 0.3)


def test_alpha_words_ratio():
    # A WikiText passage whose alphabetic words are a multiple of 4, then real WikiText numbers
    # until exactly 80 % of the words contain a letter.
    paragraph = wikitext_paragraph(120)
    for n in range(60, 120):
        prefix = first_words(paragraph, n)
        words = ref_words(prefix)
        alpha = sum(any(c.isalpha() for c in w) for w in words)
        if alpha % 4 == 0:
            break
    assert alpha % 4 == 0 and alpha < len(words)  # the passage has numbers of its own
    numbers = [w for w in wikitext().split() if w.isdigit()][:40]
    missing = alpha * 5 // 4 - len(words)  # numbers to add so that alpha / total == 0.8
    assert 0 < missing < 39
    at_threshold = prefix + " " + " ".join(numbers[:missing])
    one_more = prefix + " " + " ".join(numbers[: missing + 1])
    assert gopher_quality(at_threshold) is None
    expected = alpha / (len(words) + missing + 1)
    assert 0.78 < expected < 0.8
    assert gopher_quality(one_more) == ("min_alpha_words_ratio", expected)
    looser = nudged(DEFAULT, "min_alpha_words_ratio", 0.81)
    assert gopher_quality(at_threshold, looser) == ("min_alpha_words_ratio", 0.8)


def test_stop_words():
    pieces = re.split(r"(\s+)", story())  # words at even indices, whitespace kept between them
    tokens = pieces[::2]

    def keeping(k: int, capitalise_first: bool = False) -> str:
        kept, out = 0, []
        for i, piece in enumerate(pieces):
            if i % 2 == 0 and is_stop_word(piece):
                if kept == k:
                    continue  # drop every stop word after the first k
                if capitalise_first and kept == 0:
                    piece = piece[0].upper() + piece[1:]
                kept += 1
            out.append(piece)
        return "".join(out)

    assert sum(map(is_stop_word, tokens)) > 10
    assert len(ref_words(keeping(0))) >= 50
    assert gopher_quality(keeping(2)) is None  # at the threshold
    assert gopher_quality(keeping(2, capitalise_first=True)) is None  # case-insensitive
    assert gopher_quality(keeping(1)) == ("min_stop_words", 1.0)
    assert gopher_quality(keeping(0)) == ("min_stop_words", 0.0)
    assert gopher_quality(keeping(2), nudged(DEFAULT, "min_stop_words", 3)) == ("min_stop_words", 2.0)


# --- order and parameters -----------------------------------------------------------------------


def test_first_failing_rule_is_reported():
    lines = truman_lines()[:20]
    bulleted_and_trailing = "\n".join("• " + line[:-1] + "..." for line in lines)
    # Fails bullet_lines_ratio (1.0) and ellipsis_lines_ratio (1.0): the earlier rule is reported.
    assert gopher_quality(bulleted_and_trailing) == ("max_bullet_lines_ratio", 1.0)
    # Fewer than 50 words also: min_words comes first of all.
    assert gopher_quality("\n".join("• " + line + "..." for line in lines[:2])) == (
        "min_words",
        float(len(ref_words(" ".join(lines[:2])))),
    )


def test_custom_stop_words():
    text = first_words(story(), 60)

    def occurrences(word: str) -> int:
        return sum(token.strip(string.punctuation).lower() == word for token in text.split())

    assert occurrences("sew") == 1 and occurrences("lily") == 3
    assert gopher_quality(text, replace(DEFAULT, stop_words=("sew",))) == ("min_stop_words", 1.0)
    assert gopher_quality(text, replace(DEFAULT, stop_words=("lily",))) is None
    assert gopher_quality(text, replace(DEFAULT, stop_words=())) == ("min_stop_words", 0.0)
