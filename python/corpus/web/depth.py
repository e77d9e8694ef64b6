"""How deeply a page's elements nest, estimated from its tags before any extractor sees it.

resiliparse's extract_plain_text is worse than quadratic in nesting depth: 5,000 nested divs took 3.6 s,
10,000 25 s, 20,000 125 s (issue 53), all inside max_html_bytes and max_html_elements. A page nested deeper
than [extract] max_html_depth is rejected (`too_deep`) before extraction, a deterministic bound like
max_html_elements (browsers stop nesting at 512: Blink's parser).

The estimate follows the tree a parser builds closely enough to bound it: a start tag opens an element
unless it is void (`<br>`), has an optional end tag (`<p>`, `<li>`, `<td>`: the parser closes those
itself) or ends in `/>` outside HTML's container elements (SVG's `<path/>`; `<div/>` opens a div, as in
HTML); an end tag closes the innermost open element of its name and everything inside it, and is ignored
when none is open (as the parser ignores a stray `</span>`, so stray end tags cannot hide depth). Tags in
comments and scripts count too (skipping them tripled the cost): they can only add depth, and real pages
nest about 30 deep (at most 26 of the 55 pages of web_extraction_eval). Linear in the page, ~10 ms per MB;
`depth_over` skips the scan where the page has too few start tags to nest past the limit (42 of those 55).
"""

from __future__ import annotations

import re

VOID = frozenset("area base basefont bgsound br col embed frame hr image img input keygen link meta param source "
                 "track wbr".split())
OPTIONAL_END = frozenset("body caption colgroup dd dt head html li optgroup option p rb rp rt rtc tbody td tfoot th "
                         "thead tr".split())
# elements whose `<x/>` HTML parses as a start tag (an open element), not as an empty element
CONTAINERS = frozenset("a abbr address article aside audio b bdi bdo big blockquote button canvas center cite code "
                       "data datalist del details dfn dialog div dl em fieldset figcaption figure font footer form "
                       "h1 h2 h3 h4 h5 h6 header hgroup i iframe ins kbd label legend main map mark menu meter nav "
                       "nobr noscript object ol output picture pre progress q s samp section select small span "
                       "strike strong sub summary sup table template time tt u ul var video".split())

# a start or end tag's name and whether it ends in "/>" (attributes are skipped without a lazy scan: 2x faster)
_TAG = re.compile(r"<(/?[A-Za-z][\w:-]*)(?:[^<>]*[^<>/])?(/?)>")


def nesting_depth(html: str) -> int:
    """The deepest nesting of open elements the page's tags make (the estimate of the module docstring)."""
    stack: list[str] = []
    open_count: dict[str, int] = {}
    deepest = 0
    for tag, self_closed in _TAG.findall(html):
        name = tag.lower()
        if name[0] == "/":  # an end tag
            name = name[1:]
            if open_count.get(name):
                while True:
                    top = stack.pop()
                    open_count[top] -= 1
                    if top == name:
                        break
            continue
        if name in VOID or name in OPTIONAL_END or (self_closed and name not in CONTAINERS):
            continue
        stack.append(name)
        open_count[name] = open_count.get(name, 0) + 1
        if len(stack) > deepest:
            deepest = len(stack)
    return deepest


def depth_over(html: str, limit: int) -> int | None:
    """The page's nesting depth if it is over `limit`, else None. Every open element has a start tag, a `<`
    not followed by `/`: a page with at most `limit` of those cannot nest deeper, and is not scanned (the
    scan is ~2 ms of a 135 KB page; counting is 0.1)."""
    if html.count("<") - html.count("</") <= limit:
        return None
    depth = nesting_depth(html)
    return depth if depth > limit else None
