"""Obfuscated e-mail addresses: ``name(at)domain.com``, ``name [at] domain [dot] com``,
``name at domain dot com``, ``NAME AT DOMAIN DOT COM``.

presidio's pattern needs an ``@``. People who do not want their address harvested write the ``@`` (and
the dots) as words; the address is just as personal. Two forms, with different strictness:

* **bracketed** (``email.obfuscated``): ``at`` in brackets -- ``(at)``, ``[at]``, ``{at}``, ``<at>``, with
  or without spaces around -- and dots written as ``.``, ``(dot)``, ``[dot]`` or `` dot ``. Brackets
  around "at" do not occur in prose, so the test is only that the address is plausible: a mailbox-like
  local part (letters, digits, ``. _ % + -``, starting with a letter or digit) and a domain whose suffix
  is a real public suffix (tldextract's bundled list, offline).
* **spaced** (``email.spelled``): `` at `` and `` dot `` as bare words ("john at example dot com").
  Prose is full of "at", so this form is strict: the words "at" and "dot" in the same case (both lower or
  both upper), no other word between, a domain label and a last label that is one of :data:`SPELLED_TLDS`
  (common generic and country suffixes), neither local part nor domain a common English word
  (:data:`PROSE_WORDS`: "look at this dot com", "meet at noon dot com" stay), and either a local part
  that only an address has (a digit, ``.``, ``_`` or ``-`` in it), a well-known mail provider as the
  domain, or an e-mail word ("e-mail", "mail", "contact", "write", "courriel", "correo", ...) at most 40
  characters before it.

Every result's recognition_metadata names its rule (``email.obfuscated`` / ``email.spelled``) and, for the
spelled form, what made it plausible.
"""

from __future__ import annotations

import re

import tldextract
import corpus.pii._presidio  # noqa: F401  # presidio imported without torch/transformers
from presidio_analyzer import LocalRecognizer, RecognizerResult

from corpus.pii.phones import decided_result

__all__ = ["MAIL_PROVIDERS", "PROSE_WORDS", "SPELLED_TLDS", "ObfuscatedEmailRecognizer", "may_hold_obfuscated_email"]

_LOCAL = r"[A-Za-z0-9](?:[A-Za-z0-9._%+\-]{0,62}[A-Za-z0-9])?"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
_AT_BRACKETED = r"\s?(?:\(\s?at\s?\)|\[\s?at\s?\]|\{\s?at\s?\}|<\s?at\s?>)\s?"
_DOT_ANY = r"(?:\.|\s?(?:\(\s?dot\s?\)|\[\s?dot\s?\]|\{\s?dot\s?\}|<\s?dot\s?>)\s?|\s(?:dot|DOT)\s)"
BRACKETED = re.compile(
    rf"(?<![\w.%+\-])(?P<local>{_LOCAL}){_AT_BRACKETED}(?P<domain>{_LABEL}(?:{_DOT_ANY}{_LABEL})+)(?![\w\-]|\.[A-Za-z0-9])",
    re.IGNORECASE)
# spaced: "at" and "dot" both lower case or both upper case (no IGNORECASE)
SPELLED = re.compile(
    rf"(?<![\w.%+\-@])(?P<local>{_LOCAL})(?: (?P<at>at|AT) )(?P<domain>{_LABEL}(?: (?P<dot>dot|DOT) {_LABEL})+)"
    r"(?![\w\-@]|\.[A-Za-z0-9])")
_BRACKETED_AT = re.compile(r"[(\[{<]\s?at\s?[)\]}>]", re.IGNORECASE)
_DOTS = re.compile(r"\s?(?:\(\s?dot\s?\)|\[\s?dot\s?\]|\{\s?dot\s?\}|<\s?dot\s?>)\s?|\s(?:dot|DOT)\s", re.IGNORECASE)

SPELLED_TLDS = frozenset((
    "com net org edu gov mil int info biz io co me tv app dev ai eu uk us ca au nz ie de at ch fr be nl lu es pt it "
    "se no dk fi is pl cz sk hu ro bg gr ru ua tr il in jp cn kr tw hk sg my id ph th vn br ar mx cl pe za ng ke "
    "email online site tech shop store xyz club cloud kiwi nyc london berlin paris"
).split())
MAIL_PROVIDERS = frozenset((
    "gmail googlemail yahoo ymail hotmail outlook live msn aol icloud me mac protonmail proton gmx web freenet "
    "t-online orange free laposte wanadoo sfr libero virgilio tiscali alice bluewin hispeed telenet skynet "
    "ziggo kpnmail xs4all planet hetnet home zoho yandex mail rambler seznam wp onet interia o2 naver qq 163 "
    "126 sina fastmail tutanota hushmail comcast verizon att sbcglobal btinternet sky talktalk virginmedia "
    "bigpond optusnet shaw rogers sympatico terra uol bol ig sapo"
).split())
# Words that make "<word> at <word> dot <tld>" prose rather than an address.
PROSE_WORDS = frozenset((
    "a an the this that these those it its he she we they you i me him her us them his their our your my "
    "look looked looking looks stare stared staring glance glanced point pointed pointing aim aimed arrive "
    "arrived arriving meet meeting met be is are was were been am not no yes and or but if then so as at by "
    "for from in into of on onto to up with all any some each every one two three four five six seven "
    "eight nine ten home work school noon night midnight dawn dusk least last first once times time end "
    "start sea home college university office church war peace night morning evening afternoon length "
    "random hand risk best worst most large ease rest heart sight first what where when who how why which "
    "there here now just only even still also very much more less dot dots"
).split())
_MAIL_WORDS = re.compile(
    r"(?<!\w)(?:e-?mail\w*|mail\w*|contact\w*|write|writing|wrote|send|reach|address\w*|courriel\w*|correo\w*|"
    r"adresse\w*|écri\w*|ecri\w*|envoy\w*|schreib\w*|senden|scriv\w*|invia\w*|escrib\w*|envi\w*|enví\w*|"
    r"escrev\w*|enquir\w*|inquir\w*|question\w*|consulta\w*|domande|perguntas|vragen|rückfragen|mél|adres|direcci[oó]n|repl\w*|respond\w*|répon\w*|respuest\w*|respond\w*|rispost\w*|rispond\w*|respost\w*|antwo\w*|drop\s+(?:me\s+|us\s+)?a\s+line(?:\s+to)?|indirizzo|endereço|posta|kontakt\w*|contatt\w*|contato|stuur\w*|schrijf\w*)(?!\w)", re.IGNORECASE)
MAIL_WORD_WINDOW = 40
# "to", "at", "à", "a", "an", "naar", "para", "per": an address is written to or at someone
_ADDRESS_PREPOSITION = re.compile(r"(?<!\w)(?:to|at|à|a|an|aan|naar|para|per|pelo|al|au)\s$", re.IGNORECASE)


_WEB_AFTER = re.compile(r"^\s*[·•|/–—-]\s*(?:https?://|www\.)\S+\s*$")
# A signature's one-letter field name: "E jroe at example dot com", "e. ...", "M: ..."
_FIELD_LETTER = re.compile(r"[A-Za-z]\.?")
# [aA][tT]\s?[)\]}>], written closing bracket first (re then scans for one character, ~1.5x faster)
_GATE_AT = re.compile(r"[)\]}>](?:(?<=[aA][tT].)|(?<=[aA][tT]\s.))")


def may_hold_obfuscated_email(text: str) -> bool:
    """A cheap necessary condition of ObfuscatedEmailRecognizer reporting anything: a bracketed "at"
    (``at)``, ``at ]``, ... in any case: the bracketed pattern holds one) or "dot"/"DOT" (the spelled
    pattern's word)."""
    return " dot " in text or " DOT " in text or _GATE_AT.search(text) is not None


class ObfuscatedEmailRecognizer(LocalRecognizer):
    ENTITY = "EMAIL_ADDRESS"
    SCORE = 0.5

    def __init__(self, tld_extractor: tldextract.TLDExtract) -> None:
        super().__init__(supported_entities=[self.ENTITY], name="ObfuscatedEmailRecognizer", supported_language="en")
        self._tld_extractor = tld_extractor

    def load(self) -> None:
        pass

    def _domain_ok(self, labels: list[str]) -> bool:
        return self._tld_extractor(".".join(labels)).fqdn != ""

    def decide_bracketed(self, match: re.Match) -> tuple[str, str] | None:
        labels = _DOTS.sub(".", match["domain"]).split(".")
        if not self._domain_ok(labels):
            return None
        return "email.obfuscated", ""

    def decide_spelled(self, text: str, match: re.Match) -> tuple[str, str] | None:
        at, local = match["at"], match["local"]
        dots = re.findall(r" (dot|DOT) ", match["domain"])
        if any(d != ("DOT" if at == "AT" else "dot") for d in dots):
            return None
        labels = re.split(r" (?:dot|DOT) ", match["domain"])
        tld = labels[-1].lower()
        if tld not in SPELLED_TLDS or len(labels) > 4:
            return None
        if local.lower() in PROSE_WORDS or any(label.lower() in PROSE_WORDS for label in labels[:-1]):
            return None
        if not self._domain_ok(labels):
            return None
        if any(c in local for c in "0123456789._-"):
            return "email.spelled", "mailbox-like local part"
        provider = next((label.lower() for label in labels[:-1] if label.lower() in MAIL_PROVIDERS), None)
        if provider is not None:  # "jdoe at yahoo dot com dot au"
            return "email.spelled", f"mail provider {provider}"
        if _ADDRESS_PREPOSITION.search(text, max(0, match.start() - 8), match.start()):
            return "email.spelled", "after a preposition"  # "Feedback welcome at jdoe at example dot org"
        words = list(_MAIL_WORDS.finditer(text, max(0, match.start() - MAIL_WORD_WINDOW), match.start()))
        if words:
            return "email.spelled", f"word {words[-1].group()!r}"
        if text[match.start() - 1:match.start()] in ("<", "(") and text[match.end():match.end() + 1] in (">", ")"):
            return "email.spelled", "in brackets after a name"  # "Jane Roe <jroe at example dot com>"
        if re.search(r"[·•|:,–—→⇒]\s*$|\s-\s$|->\s*$", text[max(0, match.start() - 3):match.start()]):
            return "email.spelled", "a contact field"  # "Roe Ltd · jroe at example dot com", "Office: jroe at ...", "→ jroe ..."
        if re.search(r"[✉📧📨📩]\ufe0f?\s*$", text[max(0, match.start() - 4):match.start()]):
            return "email.spelled", "an envelope sign"  # "✉ jroe at example dot com"
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        head = text[line_start:match.start()].strip(" \t:-|>*")
        tail = _WEB_AFTER.sub("", text[match.end():line_end])  # "· www.example.dev" closing a signature line
        if (not head or _FIELD_LETTER.fullmatch(head)) and not tail.strip(" \t.;,|"):
            return "email.spelled", "a line of its own"  # a contact block's line ("E jroe at ..."), not prose
        return None

    def analyze(self, text, entities, nlp_artifacts=None) -> list[RecognizerResult]:
        found = []
        if _BRACKETED_AT.search(text):
            found += [(m, self.decide_bracketed(m)) for m in BRACKETED.finditer(text)]
        if " dot " in text or " DOT " in text:
            found += [(m, self.decide_spelled(text, m)) for m in SPELLED.finditer(text)]
        return [decided_result(self, match, decision) for match, decision in found if decision is not None]
