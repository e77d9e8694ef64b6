"""The documentation stays true to the tree: docs/configuration.md is exactly what the schema generates,
and every relative link in README.md, docs/*.md and the bench READMEs reaches a file (and, into a Markdown
page, a heading)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from corpus.commands.docs import PAGE, render

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [REPO / "README.md", *DOCS, REPO / "bench" / "README.md", REPO / "bench" / "results" / "README.md"]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """The text without fenced blocks and code spans: a link written inside code is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchors(text: str) -> set[str]:
    """The anchors a renderer gives the headings (GitHub's rule: lower case, punctuation dropped, spaces
    to hyphens, a repeated heading numbered -1, -2, ...), plus explicit <a name|id="..."> anchors."""
    out: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", text)):
        plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", plain.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    out.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return out


def links(page: Path) -> list[str]:
    return LINK.findall(_prose(page.read_text(encoding="utf-8")))


def test_configuration_page_is_generated_from_the_schema():
    assert PAGE.read_text(encoding="utf-8") == render(), \
        "docs/configuration.md differs from schemas/corpus-config.schema.json: run `make docs`"


def test_every_relative_link_points_at_an_existing_file_and_heading():
    broken = []
    for page in PAGES:
        for target in links(page):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...: not ours to check
                continue
            path, _, anchor = unquote(target).partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(REPO)}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(REPO)}: {target}: no heading #{anchor} in {dest.relative_to(REPO)}")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(REPO / unquote(t).partition("#")[0]).resolve() for t in links(REPO / "README.md")}
    orphans = [p.relative_to(REPO) for p in DOCS if p.resolve() not in linked]
    assert not orphans, f"README.md links no docs page {orphans}"


def test_the_link_checker_sees_links_and_anchors():
    text = "# A title: `x` (s3://)\n\n## A title: x (s3://)\n\n[a](b.md#c) `[not](a-link.md)`\n"
    assert anchors(text) == {"a-title-x-s3", "a-title-x-s3-1"}
    assert LINK.findall(_prose(text)) == ["b.md#c"]
