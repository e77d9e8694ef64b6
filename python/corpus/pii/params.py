"""The [pii] table's settings as the scrub uses them, without presidio: a stage plans its units, checks
the settings and unpickles them in a worker at the cost of this module (phonenumbers' region list), so a run
whose documents are all in the scrub cache never imports presidio (~2.5 s a process)."""

from __future__ import annotations

from dataclasses import dataclass

import phonenumbers

PII_TYPES = ("EMAIL", "PHONE", "CARD", "IP", "KEY")


# Context words per language, as the [pii] phone_context_words config writes them: a trailing "*" matches
# any ending ("telefon*": Telefon, Telefonnummer, telefonisch), otherwise the whole word (any case).
DEFAULT_CONTEXT_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("phone*", "telephone*", "tel", "tel.", "ph", "mobile*", "cell", "cellphone*", "cell-phone", "fax*",
           "contact*", "call", "calls", "calling", "ring", "dial", "whatsapp", "hotline*", "landline*", "office",
           "helpline*", "sms", "text", "mob", "mob.", "reception", "switchboard", "direct", "extension", "home", "work",
           "landline", "daytime", "evening*", "t:", "p:", "m:", "customer service", "helpdesk", "help desk",
           "texts", "texting", "freephone", "toll-free", "voicemail", "private", "reachable", "message", "ask for",
           "my number", "personal number", "our number", "answerphone", "answering machine", "main line", "get through",
           "out of hours", "emergency line", "ext", "ext.", "threema", "telegram", "viber", "wechat"),
    "de": ("telefon*", "tel", "tel.", "handy*", "mobil*", "fax*", "anruf*", "rufnummer*", "erreichbar*", "kontakt*",
           "durchwahl*", "zentrale", "büro", "sekretariat", "festnetz*", "privat", "dienstlich", "geschäftlich", "kundenservice", "kundendienst",
           "sms", "whatsapp", "rückruf*", "anrufbeantworter", "telefonisch*", "notruf*", "wählen sie", "meine nummer",
           "private nummer", "nachricht", "natel", "durchklingeln", "notdienst", "fragen sie nach", "dw", "rund um die uhr",
           "geschäftsstelle"),
    "fr": ("téléphone*", "telephone*", "tél", "tél.", "portable*", "mobile*", "fax*", "appel*", "appelez*",
           "joindre", "contact*", "numéro", "standard", "bureau", "domicile", "fixe", "travail", "service client",
           "sms", "texto*", "whatsapp", "joignable*", "rappel*", "composez", "gsm", "ligne directe", "privé", "message",
           "mon numéro", "numéro perso*", "répondeur", "sans frais", "texter", "cellulaire", "accueil",
           "secrétariat", "demandez", "poste", "permanence"),
    "es": ("teléfono*", "telefono*", "tel", "tel.", "tlf", "tfno", "móvil*", "movil*", "celular*", "fax*", "llam*",
           "contacto*", "whatsapp", "oficina", "centralita", "fijo", "casa", "trabajo", "atención al cliente",
           "sms", "mensaje*", "particular", "localizar*", "localizable", "marque", "marcar", "extensión", "cel", "cel.",
           "mi número", "número personal", "contestador*", "wasap", "whats", "celu", "servicio al cliente",
           "urgencias", "secretaría", "preguntar por", "comunicarse", "ext.", "marca el",
           "línea de atención"),
    "it": ("telefono*", "tel", "tel.", "cellulare*", "cell", "fax*", "chiam*", "contatt*", "ufficio", "centralino",
           "recapito*", "fisso", "casa", "lavoro", "servizio clienti",
           "sms", "messaggio", "whatsapp", "abitazione", "reperibil*", "raggiungibil*", "rintracciabil*", "numero verde",
           "privato", "cell.", "componete", "componi", "comporre", "digitare", "digita", "mio numero", "numero personale", "segreteria telefonica", "ore pasti", "prenota*", "urgenze", "segreteria", "chiedere di", "interno", "int."),
    "pt": ("telefone*", "tel", "tel.", "telemóvel*", "telemovel*", "celular*", "fax*", "ligue", "ligar", "contato*",
           "contacto*", "escritório", "whatsapp", "fixo", "casa", "trabalho", "atendimento",
           "sms", "mensagem", "fone*", "residencial", "residência", "ramal", "disque", "zap", "contacte", "contate",
           "meu número", "número pessoal", "a central", "secretária eletrônica",
           "secretária electrónica", "tlm", "telef.", "chamada*", "peça para falar", "secretaria"),
    "nl": ("telefoon*", "tel", "tel.", "mobiel*", "fax*", "bel", "bellen", "gsm", "kantoor", "contact*",
           "bereikbaar*", "thuis", "werk", "privé", "klantenservice",
           "sms", "whatsapp", "vaste lijn", "vast nummer", "doorkies*", "telefonisch*", "sms'en", "appen", "belt u",
           "bel ons", "centrale", "mijn nummer", "privénummer", "bericht", "antwoordapparaat", "voicemail", "gsm-nr", "gsm-nr.", "onthaal", "vraag naar",
           "secretariaat", "toestel"),
}
DEFAULT_CONTEXT_WINDOW = 40


@dataclass(frozen=True)
class PhoneContext:
    """What LocalPhoneRecognizer looks for (the [pii] table's phone_context_words, phone_context_window
    phone_address_blocks and phone_layout). ``words`` is a sorted tuple of (language, words) pairs: hashable, so it
    can key the per-process engine caches."""

    words: tuple[tuple[str, tuple[str, ...]], ...] = tuple(sorted(DEFAULT_CONTEXT_WORDS.items()))
    window: int = DEFAULT_CONTEXT_WINDOW
    address_blocks: bool = True
    layout: bool = True

    @classmethod
    def from_config(cls, words: dict[str, list[str]] | None = None, window: int = DEFAULT_CONTEXT_WINDOW,
                    address_blocks: bool = True, layout: bool = True) -> "PhoneContext":
        words = DEFAULT_CONTEXT_WORDS if words is None else words
        return cls(tuple(sorted((lang, tuple(ws)) for lang, ws in words.items())), int(window), bool(address_blocks),
                   bool(layout))

    def __post_init__(self) -> None:
        if not 1 <= self.window <= 200:
            raise ValueError(f"phone_context_window must be 1..200 characters, got {self.window}")
        for lang, ws in self.words:
            for w in ws:
                if not w.strip("*").strip() or "*" in w.rstrip("*"):
                    raise ValueError(f"phone_context_words.{lang}: {w!r} is not a word (a '*' only at its end)")


DEFAULT_PHONE_CONTEXT = PhoneContext()


# Default regions for numbers written without a country code; a number written with +cc / 00cc
# is found whatever the regions, FormattedPhoneRecognizer finds grouped national numbers
# ("01 23 45 67 89", "030 1234 5678") by shape, and ContextPhoneRecognizer any national number
# right after a phone word. So the regions only matter for bare digit runs without context, and
# each one adds false positives on numeric text and one phonenumbers pass per candidate document.
# Chosen for English-language text: US (all of NANP, CA included: validity is checked across every
# region sharing +1) and GB. Left out: IN and AU, whose national formats turn GSM8K arithmetic
# ("60000-10800") into valid numbers (15 false phones in 1,500 GSM8K documents, none with US+GB, at
# the same recall on the labelled sentences); DE, whose valid national numbers can be 4 digits long
# (years, house numbers -- "16 48 rue Descartes" -- become phones, and the pre-check must fire on
# any 4-digit run); and FR/ES/IE, which matched arithmetic ("960-480-120 = ...") and version
# strings in GSM8K and bug reports.
DEFAULT_PHONE_REGIONS = ("US", "GB")


def validate_regions(regions: tuple[str, ...]) -> None:
    unknown = [r for r in regions if r not in phonenumbers.SUPPORTED_REGIONS]
    if not regions or unknown:
        raise ValueError(f"phone_regions must be non-empty phonenumbers regions; unknown: {unknown}")


@dataclass(frozen=True)
class PiiParams:
    """What to scrub.

    ``entities``: subset of EMAIL, PHONE, CARD, IP, KEY. ``phone_regions``: phonenumbers regions
    tried for numbers without a country code. ``score_threshold``: presidio scores below it are
    dropped -- 0.4 keeps presidio's phone score (0.4) and everything validated (e-mail, card, keys:
    0.8-1.0; IP 0.6). ``precheck``: skip presidio on texts the pre-check rules out (same output).
    ``phone_context``: the context words, window and address-block switch of
    :class:`corpus.pii.phones.LocalPhoneRecognizer` (None: no such recognizer). ``obfuscated_email``:
    also find ``name(at)domain.com`` and ``name at domain dot com`` (corpus.pii.emails).
    """

    entities: tuple[str, ...] = PII_TYPES
    phone_regions: tuple[str, ...] = DEFAULT_PHONE_REGIONS
    score_threshold: float = 0.4
    precheck: bool = True
    phone_context: PhoneContext | None = DEFAULT_PHONE_CONTEXT
    obfuscated_email: bool = True

    def __post_init__(self) -> None:
        unknown = set(self.entities) - set(PII_TYPES)
        if not self.entities or unknown:
            raise ValueError(f"entities must be a non-empty subset of {PII_TYPES}; unknown: {sorted(unknown)}")
        validate_regions(self.phone_regions)
        if not 0.0 <= self.score_threshold <= 1.0:
            raise ValueError(f"score_threshold must be in [0, 1], got {self.score_threshold}")

    @property
    def engine_key(self) -> tuple:
        """Parameters that change the engine (order-insensitive), for the per-process caches:
        (entities, regions, phone_context, obfuscated_email)."""
        return (tuple(sorted(set(self.entities))), tuple(sorted(set(self.phone_regions))), self.phone_context,
                self.obfuscated_email)


def params_from_config(cfg: dict) -> PiiParams:
    """The scrub's parameters from a [pii] table (defaults filled in); keys an older manifest's table lacks
    take their defaults."""
    context = PhoneContext.from_config(cfg.get("phone_context_words"), cfg.get("phone_context_window", 40),
                                       cfg.get("phone_address_blocks", True), cfg.get("phone_layout", True))
    return PiiParams(entities=tuple(cfg["entities"]), phone_regions=tuple(cfg["phone_regions"]),
                     score_threshold=float(cfg["score_threshold"]), precheck=bool(cfg["precheck"]),
                     phone_context=context, obfuscated_email=bool(cfg.get("obfuscated_email", True)))
