"""HTML to text with a pinned engine: every option is passed explicitly from the config's `[extract]` table
(the libraries' defaults differ from their own docs and move between releases), and nothing is cached
across pages (trafilatura's `deduplicate` keeps a process-global cache: its output would depend on document
order; it is always off). These functions run inside the sandbox child (corpus.web.sandbox)."""

from __future__ import annotations

from importlib import metadata

ENGINES = ("trafilatura", "resiliparse")
PACKAGES = {"trafilatura": ("trafilatura", "lxml", "justext", "htmldate"), "resiliparse": ("resiliparse",)}
# [extract] prefilter_lang's fast pass (corpus.filters.prefilter): resiliparse's main-content plain text, every
# option pinned, so that the language model reads roughly what the extractor would keep
FAST_PASS = {"preserve_formatting": False, "main_content": True, "list_bullets": False, "alt_texts": False,
             "links": False, "form_fields": False, "noscript": False, "comments": False, "skip_elements": []}


def versions(engine: str) -> dict[str, str]:
    """The versions of the libraries that decide an engine's output (recorded in the fetch manifest)."""
    out = {}
    for name in PACKAGES[engine]:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


class ParserFailure(ValueError):
    """The extractor could not parse the page (an extractor_error reject, not an empty page)."""


def trafilatura_extractor(options: dict):
    """A function html, url -> text with trafilatura 2.x and these options (config `[extract.trafilatura]`)."""
    import trafilatura
    from trafilatura.settings import use_config
    from trafilatura.utils import load_html

    config = use_config()
    for key in ("min_extracted_size", "min_output_size", "min_output_comm_size", "min_duplcheck_size",
                "max_repetitions"):
        config.set("DEFAULT", key.upper(), str(options[key]))
    # pages are bounded before they get here ([extract] max_html_bytes, rejected with a reason): trafilatura's
    # own size cap would drop a page without one
    config.set("DEFAULT", "MAX_FILE_SIZE", str(1 << 40))
    config.set("DEFAULT", "EXTRACTION_TIMEOUT", "0")  # the sandbox times pages out; no signal.alarm inside
    kwargs = {k: options[k] for k in ("fast", "favor_precision", "favor_recall", "include_comments",
                                      "include_tables", "include_formatting", "include_links", "include_images")}
    max_tree = options["max_tree_size"] or None

    def extract(html: str, url: str | None) -> str:
        text = trafilatura.extract(html, url=url, output_format="txt", deduplicate=False, with_metadata=False,
                                   target_language=None, max_tree_size=max_tree, config=config, **kwargs)
        if text is None and load_html(html) is None:  # trafilatura says None for both: no text, no tree
            raise ParserFailure("trafilatura could not parse the page into an HTML tree")
        return text or ""
    return extract


def resiliparse_extractor(options: dict):
    """A function html, url -> text with resiliparse's extract_plain_text and these options."""
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    kwargs = {k: options[k] for k in ("preserve_formatting", "main_content", "list_bullets", "alt_texts", "links",
                                      "form_fields", "noscript", "comments")}
    skip = list(options["skip_elements"]) or None

    def extract(html: str, url: str | None) -> str:
        return extract_plain_text(HTMLTree.parse(html), skip_elements=skip, **kwargs)
    return extract


def extractor(engine: str, options: dict):
    if engine == "trafilatura":
        return trafilatura_extractor(options)
    if engine == "resiliparse":
        return resiliparse_extractor(options)
    raise ValueError(f"unknown extraction engine {engine!r} (one of {', '.join(ENGINES)})")
