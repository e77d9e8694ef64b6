"""National phone numbers confirmed by a context word or an address block (corpus.pii.phones.
LocalPhoneRecognizer), obfuscated e-mail addresses (corpus.pii.emails), the digit groups next to the same
words that are not phones, the [pii] settings that steer them, and how a redaction is explained
(corpus.pii.scrub.explain, `corpus why`)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from conftest import mirror_sha, tinystories
from corpus.config.schemas import load_schema
from corpus.pii.emails import ObfuscatedEmailRecognizer, may_hold_obfuscated_email
from corpus.pii.phones import DEFAULT_CONTEXT_WORDS, LocalPhoneRecognizer, PhoneContext
from corpus.pii.recognizers import offline_tld_extractor
from corpus.pii.scrub import PiiParams, explain, find_spans, params_from_config, scrub

PARAMS = PiiParams()
GSM8K_TRAIN = "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465"
NEWS_ARTICLES = "b0278e9b85053bcca217ed2469deed97fda19698a3d007d1d13fcce935397579"
WIKITEXT_TEST = "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c"


def rules_of(text: str, params: PiiParams = PARAMS) -> dict[str, set[str]]:
    """span text -> {"rule:trigger", ...} for every redaction scrub makes."""
    return {e["text"]: {f"{r['rule']}:{r['trigger']}" for r in e["rules"]} for e in explain(text, params)}


DEFAULT_CONTEXT = PhoneContext()


def local(text: str, context: PhoneContext = DEFAULT_CONTEXT) -> list[str]:
    return [text[r.start:r.end] for r in LocalPhoneRecognizer(context).analyze(text, ["PHONE_NUMBER"])]


# --------------------------------------------------------------------------- phone.context

# National numbers without a country code, each with the word of its language that says what it is --
# before it, on the line above, or after it -- and the word `corpus why` names.
CONTEXT = [
    ("Phone:\n449 4898", "449 4898", "Phone"),                                      # a label on the line above
    ("Reach the front desk on 449 4898 (office).", "449 4898", "office"),           # the word after it
    ("Zentrale: 0521 998877-Fax", "0521 998877", "Zentrale"),
    ("Bitte 0521 998877-Fax benutzen.", "0521 998877", "Fax"),                       # "-Fax" right after
    ("Sie erreichen mich telefonisch unter 0171 2345678.", "0171 2345678", "telefonisch"),
    ("Vous pouvez me joindre au 06 12 34 56 78 le soir.", "06 12 34 56 78", "joindre"),
    ("Puede llamar al 912 345 678 por la tarde.", "912 345 678", "llamar"),
    ("Chiamate il 347 123 4567 per informazioni.", "347 123 4567", "Chiamate"),
    ("Ligue para 21 3456-7890 à tarde.", "21 3456-7890", "Ligue"),
    ("Bel gerust naar 020 123 4567.", "020 123 4567", "Bel"),
    ("Mobiel nummer\n06-12345678", "06-12345678", "Mobiel"),                          # label line with "nummer"
    ("My registered mobile number is 98765 43210.", "98765 43210", "mobile"),
    ("Contact number ........ (0202) 684669", "(0202) 684669", "Contact"),           # leader dots, area code
    ("Gregory Rowe\nTel. (day)\n851 0938", "851 0938", "Tel."),
    ("Handy\n1266928", "1266928", "Handy"),                                           # 7 bare digits: word right there
    ("5155334 (móvil)", "5155334", "móvil"),
    ("Potete chiamare Sig. Antonino Nicoletti al 034482064 nel pomeriggio.", "034482064", "chiamare"),
    # each language's words for a text message, for being reachable, for a landline, for dialling, for home
    ("Fone: 85 3321-4470", "85 3321-4470", "Fone"),
    ("Vaste lijn: 020 6231144", "020 6231144", "Vaste lijn"),
    ("Si prefiere, mándeme un mensaje al 612 445 903.", "612 445 903", "mensaje"),
    ("Número donde localizarle: 91 402 3377", "91 402 3377", "localizarle"),
    ("Per le urgenze componete il 347 880 1290.", "347 880 1290", "componete"),
    ("Für Notfälle wählen Sie 0171 4455667.", "0171 4455667", "wählen Sie"),
    ("Om af te zeggen belt u 020 5512340.", "020 5512340", "belt u"),
    ("Carlo Neri 0541 882211 (abitazione)", "0541 882211", "abitazione"),
    ("Mi número es 655 321 998.", "655 321 998", "Mi número"),
]


@pytest.mark.parametrize("text,number,word", CONTEXT)
def test_context_word_confirms_a_national_number(text: str, number: str, word: str) -> None:
    assert number in local(text)
    scrubbed, counts = scrub(text, PARAMS)
    assert number not in scrubbed and counts == {"PHONE": 1}, scrubbed
    assert f"phone.context:{word}" in rules_of(text)[number]


# --------------------------------------------------------------------------- phone.address_block

ADDRESS = [
    ("Müller GmbH\nHauptstraße 12\n10115 Berlin\n030 1234567\ninfo@mueller.de", "030 1234567", "postal code 1 line above"),
    ("Jana Nováková, 604 115 244\nKarlova 12\n110 00 Praha 1", "604 115 244", "street 1 line below"),
    ("Kent Manor Inn\n500 Kent Manor Dr.\nStevensville, MD 21666\n\n643 5757", "643 5757", "postal code 2 lines above"),
    ("Studio Verdi\nVia Roma, 3\n25125, Brescia (BS)\n030 2400000 · info@studioverdi.it", "030 2400000",
     "postal code 1 line above"),
    ("Rua Augusta, 274\n1100-053 Lisboa\nMarta Sousa: 213 456 789", "213 456 789", "postal code 1 line above"),
    # the e-mail before the number on the block's last line; the number before a name on its first line
    ("Oak Lane Surgery\n14 Oak Lane\nLeeds LS6 2AB\nlee.hart@oaklane.example | 449 4898", "449 4898",
     "postal code 1 line above"),
    ("449 4898 — Dr. Amira Patel\n14 Oak Lane\nLeeds LS6 2AB", "449 4898", "street 1 line below"),
    ("0541 882211 – Studio van der Berg\nKerkstraat 5a\n1017 GB Amsterdam", "0541 882211", "street 1 line below"),
    ("Hawkins Inc\n9239 Tiffany Valleys\nCaldwellchester, AZ 44504 · 979 5042", "979 5042", "postal code on its line"),
    ("Greenwood and White\nStudio 25\nGibsonmouth\nN5 8XL\n979 5042 lydia.miller@example.com", "979 5042",
     "postal code 1 line above"),
    ("Hernández-Pinzón\t774 9417\nCalle 6 # 9-97\nLocal 71", "774 9417", "street 1 line below"),
    ("Canale Mancini, 415\n20006, Pregnana Milanese (MI)\n744 7364838 • m.tron@example.com • www.example.it",
     "744 7364838", "postal code 1 line above"),
]


@pytest.mark.parametrize("text,number,cue", ADDRESS)
def test_address_block_confirms_a_number_without_a_word(text: str, number: str, cue: str) -> None:
    assert f"phone.address_block:{cue}" in rules_of(text)[number]


def test_address_block_is_conservative() -> None:
    # the same digits in prose, in a block without an address line, or after a blank paragraph
    for text in ["She paid 604 115 244 crowns for it.", "Jana Nováková\n604 115 244 crowns\nsee you soon",
                 "Hauptstraße 12\n10115 Berlin\n\nThe tower is 604 115 244 mm tall."]:
        assert local(text) == [], text
    params = replace(PARAMS, phone_context=PhoneContext(address_blocks=False))
    assert "030 1234567" not in rules_of(ADDRESS[0][0], params)


def test_a_number_word_with_is_and_a_note_after_the_number() -> None:
    assert "phone.word_before:number is" in rules_of("Her new number is 94 22 17.")["94 22 17"]
    assert "phone.word_before:number was" in rules_of("His number was 3595572741.")["3595572741"]
    assert "phone.word_before:Nummer lautet" in rules_of("Die neue Nummer lautet 08997 17017.")["08997 17017"]
    assert rules_of("The number is 1234567.") == {}  # a count: an ungrouped number of 7 digits
    # a bracketed note, then the next sentence; round-the-clock notes
    assert "phone.note:(weekdays)" in rules_of("Questions? 449 4898 (weekdays) We reply within a day.")["449 4898"]
    assert "phone.note:(24h)" in rules_of("Lost keys? 449 4898 (24h)")["449 4898"]
    assert rules_of("Sales rose. 449 4898 (approx.) Costs fell.") == {}
    assert "phone.note:(nur Mo, Di und Do)" in rules_of("Er kommt. 415 3183 (nur Mo, Di und Do)")["415 3183"]
    # an extension is a phone's; "x 2" may be a size
    assert "phone.extension:ext. 3" in rules_of("Questions? (0147) 989860 ext. 3 for admissions")["(0147) 989860 ext. 3"]
    assert rules_of("Panels 2400 1200 x 18 mm, sold in packs.") == {}
    # a preposition right before a number laid out only as phones are
    assert "phone.preposition:au" in rules_of("Le soir, prévenez Chantal Mahe au 0296069692 ou la mairie.")["0296069692"]
    assert "phone.preposition:op" in rules_of("U kunt de leerkracht bereiken op 02/ 910 97 01.")["02/ 910 97 01"]
    assert "phone.preposition:unter" in rules_of("Bestellungen nimmt das Team unter 0357-9831315 entgegen.")["0357-9831315"]
    for text in ["Der Umsatz lag unter 1 250 000 Euro.", "We met at 10 15 20 and left at 11 45 00.",
                 "Die Teilnehmerzahl stieg auf 1234567 und lag damit unter 2345678."]:
        assert rules_of(text) == {}, text
    # "case" is a label of another number, "case." ending a sentence is not
    assert "phone.context:voicemail" in rules_of("In any case. 27 16 28 (voicemail checked daily)")["27 16 28"]


def test_a_label_line_above_a_lone_number_needs_no_known_word() -> None:
    text = "Acme Ltd\nNight desk\n0161 496 0000"
    assert "phone.label_line:Night desk" in rules_of(text)["0161 496 0000"]
    # a label with opening hours in brackets, above a number with a name below it (the block goes on)
    text = "\nNotdienst (Sa–So 8–20 Uhr)\n25 20 96\nBauer GmbH"
    assert rules_of(text)["25 20 96"] & {"phone.label_line:Notdienst (Sa–So 8–20 Uhr)", "phone.context:Notdienst"}
    # any short label line: no block around it is needed, one blank line may stand between, a name's dots
    # are no sentence end
    assert "phone.label_line:Night desk" in rules_of("Night desk\n449 4898")["449 4898"]
    assert "phone.label_line:Jana Nováková" in rules_of("Jana Nováková\n604 115 244\nsee you soon")["604 115 244"]
    assert "phone.label_line:Camping municipal – accueil" in rules_of(
        "Camping municipal – accueil\n\n0449303595\n\nOuvert d'avril à octobre")["0449303595"]
    assert "phone.label_line:Prof. Knut Hövel B.A." in rules_of("Ansprechpartner\nProf. Knut Hövel B.A.\n(02379) 89224")[
        "(02379) 89224"]
    assert "phone.label_line:Devis gratuit sous 48 h" in rules_of("Déménagements Lombard\nDevis gratuit sous 48 h\n0237393232")[
        "0237393232"]
    for other in ["Acme Ltd\nOrder number\n449 4898",     # a label of another kind of number
                  "Library card no.\n\n449 4898",          # also across a blank line
                  "Night desk\n449 4898 crowns",            # a unit after the number
                  "It was late.\nWe waited.\n449 4898"]:    # sentences, not labels
        assert local(other) == [], other


# --------------------------------------------------------------------------- digit groups that are not phones

NOT_PHONES = [
    "Order no. 96-74306 was shipped; call us if it is late.",
    "ISBN 978-3-16-148410-0, call number QA76.",
    "ISBN-13 1-08-012991-X (phone orders welcome)",
    "Price: € 605 197, phone orders welcome.",
    "Invoice 2014-822979 dated 13.10.1990, contact the office.",
    "The match ended 104-102; call it a win.",
    "Office hours 9.00 - 18.30, phone us.",
    "Phone sales in 2019 2020 2021 rose.",
    "The call centre served 120 000 customers.",
    "Customer ID: 913 1785 (phone support)",
    "Reference 80/242176 (office use only)",
    "Call me. 449 4898 is the code.",
    "Tel. 030 123456, then dial 12.5 - 3.75 = 8.75 on the keypad.",
    "Fax: 566-0523 Consignment 32-72716: phone the depot if damaged.",
    "Callejón Nayarit 349 480",
    "The star, called GSC 03549-02811, is in Draco.",
    "Mobile subscriptions rose from 1 234 567 to 2 345 678.",
    "Plate 34/559429, phone the owner.",
    "Meter reading 67/240341, phone it in by 12/03/2021.",
    "Warranty 6846 6387 3939, call the dealer.",
    "Locker 33610853, office key at reception.",
    "Permit 5317 0062 8974 - contact the council.",
    "Our lucky number is 1234567, call it a charm.",
    "Found: a blue bike, frame number 2108 6754 9620. Phone the parish office to claim it.",
    "Vacancy ref. 2013-788472 · call our HR team with questions.",
    "Returns: write RMA 22/248908 on the parcel, or phone us.",
    "449 4898 — 2019 figures\n14 Oak Lane\nLeeds LS6 2AB",
]


@pytest.mark.parametrize("text", NOT_PHONES)
def test_non_phone_digit_groups_next_to_phone_words_stay(text: str) -> None:
    phones = [text[s:e] for s, e, t in find_spans(text, PARAMS) if t == "PHONE"]
    expected = {"Tel. 030": ["030 123456"], "Fax: 566": ["566-0523"]}.get(text[:8], [])  # the real phone only
    assert phones == expected, phones


def _real_sentences(sha: str, words: tuple[str, ...]) -> list[str]:
    text = mirror_sha(sha).read_text(encoding="latin-1")
    return [s for s in text.replace("\n", " ").split(". ") if any(w in s.lower() for w in words)
            and sum(c.isdigit() for c in s) >= 6]


def test_real_numeric_sentences_with_phone_words_gain_no_phones() -> None:
    """GSM8K problems, TinyStories and WikiText sentences that hold both a phone word and 6+ digits
    (prices, counts, years, scores, maths): the context and address rules redact nothing there."""
    rows = [json.loads(line) for line in mirror_sha(GSM8K_TRAIN).read_text().splitlines() if line]
    texts = [r["question"] + "\n" + r["answer"] for r in rows] + list(tinystories())
    texts += _real_sentences(WIKITEXT_TEST, ("call", "phone", "office", "contact", "home", "work", "text"))
    recognizer = LocalPhoneRecognizer()
    hits = [(t[r.start:r.end], t[max(0, r.start - 40):r.end + 20]) for t in texts
            for r in recognizer.analyze(t, ["PHONE_NUMBER"])]
    assert hits == []
    with_words = sum(any(w in t.lower() for w in ("phone", "call", "office", "home", "work")) and
                     sum(c.isdigit() for c in t) >= 6 for t in texts)
    assert with_words > 500  # the words and the digits were there


# --------------------------------------------------------------------------- e-mail

EMAILS = [
    ("Fragen? ✉ jroe at example dot com", "jroe at example dot com", "email.spelled:an envelope sign"),
    ("contact DEBRA WEYDERT at 732-390-4480; fax, 732-390-4697; e-mail, weyded(at)nytimes.com",
     "weyded(at)nytimes.com", "email.obfuscated:"),
    ("mail me: anna [at] uni-bonn [dot] de", "anna [at] uni-bonn [dot] de", "email.obfuscated:"),
    ("Schreiben Sie an k.huber (at) gmx (dot) at", "k.huber (at) gmx (dot) at", "email.obfuscated:"),
    ("Email: john at example dot com", "john at example dot com", "email.spelled:word 'Email'"),
    ("Write to j.doe at example dot co dot uk today.", "j.doe at example dot co dot uk",
     "email.spelled:mailbox-like local part"),
    ("reach me: maria at gmail dot com", "maria at gmail dot com", "email.spelled:mail provider gmail"),
    ("Jane Roe\nJROE AT EXAMPLE DOT ORG", "JROE AT EXAMPLE DOT ORG", "email.spelled:a line of its own"),
    ("Jane Roe <jroe at example dot org>", "jroe at example dot org", "email.spelled:in brackets after a name"),
    ("Thanks,\nJulie Berry\nOffice manager\nE xherrera at example dot net", "xherrera at example dot net",
     "email.spelled:a line of its own"),  # a signature's one-letter field name
    ("Thanks, andrews at yahoo dot com dot au", "andrews at yahoo dot com dot au", "email.spelled:mail provider yahoo"),
    ("Wissels graag doorgeven aan dennis at example dot net.", "dennis at example dot net",
     "email.spelled:after a preposition"),
    ("Cheryl Thomas\nFreelance developer\nkaitlyn AT EXAMPLE DOT ORG · www.example.dev", "kaitlyn AT EXAMPLE DOT ORG",
     "email.spelled:a line of its own"),
    ("Scans of your receipts for the tax return → qkirk AT EXAMPLE DOT NET", "qkirk AT EXAMPLE DOT NET",
     "email.spelled:a contact field"),
]


@pytest.mark.parametrize("text,address,rule", EMAILS)
def test_obfuscated_email(text: str, address: str, rule: str) -> None:
    assert rule in rules_of(text)[address]
    assert address not in scrub(text, PARAMS)[0]


@pytest.mark.parametrize("text", [
    "Look at this dot on the map.", "Meet at noon dot com is not a website.", "He looked at the sea dot com bubble.",
    "They arrived at home dot at nine.", "I was at school dot dot dot", "we met at Rome dot com",
    "She waved at him (dot) and left.", "point at (at) sign", "We are at war dot com era",
    "Aim at the target dot in the centre.",
])
def test_prose_with_at_and_dot_is_left_alone(text: str) -> None:
    assert [t for *_, t in find_spans(text, PARAMS) if t == "EMAIL"] == []


def test_obfuscated_email_finds_nothing_in_real_prose() -> None:
    recognizer = ObfuscatedEmailRecognizer(offline_tld_extractor())
    texts = list(tinystories()) + [json.loads(line)["question"] for line in
                                   mirror_sha(GSM8K_TRAIN).read_text().splitlines() if line]
    texts += mirror_sha(WIKITEXT_TEST).read_text().split("\n")
    gated = [t for t in texts if may_hold_obfuscated_email(t)]
    assert [t for t in gated if recognizer.analyze(t, ["EMAIL_ADDRESS"])] == []
    assert sum(" at " in t for t in texts) > 2000  # "at" was everywhere


def test_obfuscated_email_gate_is_necessary() -> None:
    for text, address, _ in EMAILS:
        assert may_hold_obfuscated_email(text), text
    assert not may_hold_obfuscated_email("I saw her at the market at noon.")


# --------------------------------------------------------------------------- settings


def test_context_words_come_from_the_config() -> None:
    text = "Wenn du ankommst, schreib mir aufs Portabel 079 555 12 34 und warte."
    assert local(text) == []  # "Portabel" (Luxembourgish for mobile) is not a default word
    swiss = PhoneContext.from_config({**DEFAULT_CONTEXT_WORDS, "de": [*DEFAULT_CONTEXT_WORDS["de"], "portabel"]})
    assert local(text, swiss) == ["079 555 12 34"]
    no_english = PhoneContext.from_config({**DEFAULT_CONTEXT_WORDS, "en": []})
    assert local("Just call 449 4898 tonight.", no_english) == []
    assert local("Just call 449 4898 tonight.") == ["449 4898"]
    assert local("Our office is on Main Street, 449 4898 is the number", PhoneContext(window=10)) == []
    with pytest.raises(ValueError):
        PhoneContext.from_config({"en": ["te*l"]})


def test_schema_defaults_are_the_code_defaults() -> None:
    pii = load_schema("corpus-config.schema.json")["properties"]["pii"]["properties"]
    words = {lang: tuple(p["default"]) for lang, p in pii["phone_context_words"]["properties"].items()}
    assert words == DEFAULT_CONTEXT_WORDS
    assert pii["phone_context_window"]["default"] == PhoneContext().window
    from corpus.config.schemas import with_defaults
    cfg = with_defaults({}, load_schema("corpus-config.schema.json"))["pii"]
    assert params_from_config(cfg) == PARAMS  # the config's defaults are the scrub's


# --------------------------------------------------------------------------- explanation


def test_why_names_the_rule_and_the_word_without_showing_the_number() -> None:
    from corpus.commands.why import _pii_redactions, describe

    cfg = {"entities": list(PARAMS.entities), "phone_regions": list(PARAMS.phone_regions), "score_threshold": 0.4,
           "precheck": True}  # a manifest from before these keys: their defaults
    before = "Bitte rufen Sie an.\nTelefon:\n0521 998877\nMail: info(at)firma.de"
    after, counts = scrub(before, PARAMS)
    lines = _pii_redactions(cfg, before, after, sum(counts.values()))
    assert lines == ["PHONE 29-40 '#### ######': phone.context (Telefon)",
                     "EMAIL 47-63 'xxxx(xx)xxxxx.xx': email.obfuscated"]
    text = "\n".join(describe([{"stage": "pii", "status": "kept", "pii_redactions": 2, "redactions": lines}]))
    assert "redacted PHONE 29-40" in text and "0521" not in text
    stale = _pii_redactions(cfg, before, after, 3)
    assert stale[-1].startswith("note:")


# --------------------------------------------------------------------------- layout rules (phone.label, phone.entry,
# phone.person) and context in the sentence (phone.email_beside, phone.sentence, phone signs)

LAYOUT = [
    ("It is open late. Salon: 643 7258", "643 7258", "phone.label:Salon"),
    ("Apotheke, Rezeptvorbestellung: 08-25595068", "08-25595068", "phone.label:Apotheke, Rezeptvorbestellung"),
    ("Het is gratis. Jeugdherberg – balie 05/ 914 92 76", "05/ 914 92 76", "phone.label:Jeugdherberg – balie"),
    ("Va bene così. Radiotaxi 0349 8393", "0349 8393", "phone.label:Radiotaxi"),
    ("Hofladen (Bestellungen) 11 38 46", "11 38 46", "phone.label:Hofladen (Bestellungen)"),
    ("Il est tard. 0249375433 – taxi conventionné, transport de malades", "0249375433", "phone.entry:– t"),
    ("Sein Ruhm ist groß. (04607) 779750 (Salon, Di–Sa)", "(04607) 779750", "phone.entry:(Salon, Di–Sa)"),
    ("Many thanks to Tina Fox (333 313 4251) for the gazebo.", "333 313 4251", "phone.person:Tina Fox"),
    ("Or sort it out with Mr John Thomas, 01-65130133.", "01-65130133", "phone.person:Mr John Thomas"),
    ("Vos coordonnées : Noémi Roy, 0495411839, michelle@sfr.fr", "0495411839", "phone.email_beside:michelle@sfr.fr"),
    ("Phone your order through and our driver brings it round that afternoon (58 79 39).", "58 79 39",
     "phone.sentence:Phone"),
    ("Seit 1990 geöffnet. 📞 30 02 91", "30 02 91", "phone.context:📞"),
    ("Prenotazioni ☎️ 0344030905", "0344030905", "phone.context:☎️"),
    ("Tuviste un choque? Te atendemos en el 68 78 97 y te ayudamos.", "68 78 97", "phone.preposition:en el"),
    ("Babysitterin gesucht – Rückmeldung an 0895282865", "0895282865", "phone.preposition:an"),
    ("Il pleut. Dépannage auto 24/24 — 9550990552", "9550990552", "phone.label:Dépannage auto 24/24"),
    ("Gsm trainer U11: 271 6037", "271 6037", "phone.context:Gsm"),  # a team's "U11" is no number between
    ("Het feest is om acht uur. 0915013519 para confirmar a presença", "0915013519", "phone.entry:para confirmar"),
    ("Sie erreichen sie werktags von 8 bis 16 Uhr auf 51 73 69.", "51 73 69", "phone.preposition:auf"),
    ("Es war so. 04-67106529 ← swarm line, only in season", "04-67106529", "phone.entry:← s"),
    ("Es war so. 07601 98663 712 (Fahrlehrer Violetta Metzler-Lang, bitte nicht während der Fahrstunden anrufen)",
     "07601 98663 712", "phone.entry:(Fahrlehrer Violetta Metzler-Lang, bitte nicht während der Fahrstunden anrufen)"),
    ("Adele Mies 62 322077 (Vertretung Physio, nur dringende Fälle)", "62 322077", "phone.person:Adele Mies"),
    ("Se precisar, é só me chamar no 89 6717-1169.", "89 6717-1169", "phone.preposition:no"),
]


@pytest.mark.parametrize("text,number,rule", LAYOUT)
def test_layout_and_sentence_rules(text: str, number: str, rule: str) -> None:
    assert rule in rules_of(text)[number]


NOT_PHONES_BY_LAYOUT = [
    "Library card no. 375 5031 – you'll need it to renew.",   # an abbreviation's dot, and a card's number
    "IT asset tag 6547 1980 4403, serial no. 66-99272.",      # a tag's
    "Sales rose. 449 4898 (approx.) Costs fell.",              # a quantity's note
    "Sales rose. 449 4898 (approx. twenty units a day) Costs fell.",
    "Call me. 449 4898 is the code.",                          # "is" says nothing
    "Preprocessor visited node count: 2544/1000000",           # a count
    "Erik Satie (1866-1925) wrote it. Carl Heinrich Graun (1704-1759) too.",  # lifespans
    "Environmental Effects Research Laboratory (1999 05)",     # a year and a month
    "Decca Records (4783589) issued the box set.",             # a bare run of digits: a catalogue number
    "They moved to Main Street, 449 4898 is what they paid",   # a street, and the clause goes on
    "BN 445 24 52 Hawes, Annie.",                              # a code, not a label word
    "We met at 10 15 20 and left at 11 45 00.",                # clock times
    "Population: 1 234 567",                                   # thousands
    "Repair ticket 0059 4031 0687, hotline support",           # a 00 prefix under another number's label
    "Hospital number 315 5761, clinic appointment at 10:40",   # a noun before "number" says whose it is
    "Account holder no. 341 1932 — the automated phone line will ask for it.",
    "Gas safety certificate no. 1019 5254 7826, issued 02/28/2002; the engineer will ring.",
    "Flat 122, postcode 99582-2182 – the caretaker will text residents.",
    "Paediatric first-aid certificate 38/996356 – text to ask which evenings are free.",
    "Repair estimate 2023-172406: brake pads and discs, parts and labour; call us.",
    "Tickets sold. 120 345 people came to see it.",           # thousands opening a sentence
    "Apartment swap agreement 2437 1271 5566: the exchange starts soon; call the owners.",
]


def test_a_word_for_number_after_a_phone_word_or_determiner_stays_a_phone_word() -> None:
    for text, number in [("Phone no. 449 4898", "449 4898"), ("Mobile number 0612345678", "0612345678"),
                         ("Home number: 449 4898", "449 4898"), ("Her number is 94 22 17.", "94 22 17"),
                         ("Ligue para Ana Sousa no 16 682361 para marcar.", "16 682361"),
                         ("Adesioni al numero 132 1391 entro fine mese.", "132 1391")]:
        assert number in rules_of(text), text


@pytest.mark.parametrize("text", NOT_PHONES_BY_LAYOUT)
def test_layout_rules_leave_other_numbers(text: str) -> None:
    assert [text[s:e] for s, e, t in find_spans(text, PARAMS) if t == "PHONE"] == []


def test_layout_rules_can_be_switched_off() -> None:
    no_layout = replace(PARAMS, phone_context=PhoneContext(layout=False))
    for text, number, rule in LAYOUT:
        if rule.split(":")[0] in ("phone.label", "phone.entry", "phone.person"):
            assert number not in rules_of(text, no_layout), text
        else:
            assert rule in rules_of(text, no_layout)[number], text


def test_a_number_in_brackets_is_a_candidate() -> None:
    # "(" before a number is no longer a reason to skip it, unless it opens a call: "f(1234567)"
    assert "333 313 4251" in rules_of("Many thanks to Tina Fox (333 313 4251) for the gazebo.")
    assert rules_of("The value f(0612345678) is large, phone home.") == {}


def test_a_one_letter_phone_note_after_the_number() -> None:
    # North American (c)ell, (h)ome, (w)ork, (m)obile after the number
    for text, number, note in [("The coach is Nathan, 0712 175525 (c) after six.", "0712 175525", "(c)"),
                               ("Dana is our vet, 449 4898 (h) at weekends.", "449 4898", "(h)")]:
        assert f"phone.word_before:{note}" in rules_of(text)[number], text
    assert rules_of("Temperature rose. Readings 1 234 567 (c) were noted.") == {}  # thousands are no phone
