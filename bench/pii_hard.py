"""The harder PII set of issue 30: national phone numbers without a country code, obfuscated e-mail
addresses, and real sentences whose digit groups are not phones. Builds it, scores the scrub on it,
writes bench/results/pii-hard-<date>.json.

    python bench/pii_hard.py [--split tune|heldout|heldout2..heldout17|all] [--show-errors] [--json PATH] [--mirror DIR]
    python bench/pii_hard.py --dump DIR       # write tune.jsonl and heldout.jsonl, print their sha256

Documents (``{"id", "split", "locale", "category", "text", "spans": [[start, end, type], ...]}``), each
1-2 real sentences of the locale's language (lingua test sentences) around one item:

phone items (gold PHONE span = the number): a national number without a country code -- half Faker's
``phone_number()`` of the locale with every ``+cc``/``00cc``/extension form refused, half the shapes of
issue 30 with random digits (``ddd dddd``, ``dd dd dd``, ``ddd ddd ddd``, ``dd dddddd``, ``dd-dddddddd``,
``dddd-ddddddd``, ten bare digits, with brackets or dots) -- in one of these categories:

  same_line     a label right before it on its line ("Telefon: ...")
  line_above    a contact block whose label stands on the line above ("Phone:\\n...")
  after         the word after it ("... (office)", "...-Fax", "... is my WhatsApp")
  sentence      a sentence with the word further away ("my registered mobile number is ...")
  form          a form line or table row ("Name: ... | Mobile: ... | E-mail: ...")
  address       a contact block (Faker's address of the locale, a name, an e-mail) with no phone word
  prose_no_cue  a bare number in a sentence with no word at all ("Nina, 612 345 678, ..."): no rule can
                tell it from an order number; reported apart, not part of the targets

e-mail items (gold EMAIL span): a Faker address written plainly, ``name(at)domain.tld``,
``name [at] domain [dot] tld``, ``name (at) domain (dot) tld``, ``name at domain dot tld`` and
``NAME AT DOMAIN DOT TLD``, in a sentence or a contact block.

distractors, added to a third of the documents and alone in others (no gold span): digit groups that
are not phones next to the same words -- ISBNs, order, invoice and customer numbers, prices, dates,
times, years, scores, postcodes, IBANs -- and real sentences holding digit groups of 6+ digits from
GSM8K (train and test), ABC rural and science news, the Lee background news, the 1,000 news articles,
WikiText-2 and the State of the Union addresses (each sentence once; sentences with real contact details
-- a ddd-ddd-dddd number, "fax", "e-mail", "(at)" -- are PII and left out).

Splits by seed, locale, template and real sentence (sha256 of the sentence, first byte mod 4):
``tune`` (seed 1; en_US en_GB de_DE fr_FR es_ES it_IT pt_BR nl_NL; templates A; real sentences 0 and 1)
was looked at while the rules were written. ``heldout`` (seed 2; en_AU en_CA en_NZ de_AT de_CH fr_CH nl_BE
pt_PT es_MX es_CO it_CH; templates B; real sentences 2) was scored once the tune figures were met; it
missed the targets, its errors were then looked at and the rules changed, so it is a second tuning set
from then on. ``heldout2`` (seed 3; en_IN en_IE fr_CA fr_BE es_AR es_CL de_LU de_LI it_IT pt_PT nl_BE;
templates C; real sentences 3) was written before heldout's errors were looked at and scored only with the
final rules; it missed the phone recall target and its errors were looked at. ``heldout3`` (seed 4; en_GB
en_AU en_NZ de_DE de_CH fr_FR fr_CH es_ES es_MX it_IT pt_BR nl_NL; templates D; digit sentences of BoolQ
and LAMBADA, which only the later held-out splits use) was written before heldout2's errors were looked
at, and scored once; heldout4-6 (templates E-G) likewise, each before the previous one's errors changed a
rule (SPLITS). ``heldout7`` (seed 8; en_US en_GB en_IE de_DE de_AT fr_FR fr_BE es_ES es_AR it_IT pt_BR
nl_NL; templates H; digit sentences of BoolQ and LAMBADA) was written after every rule was final and scored
once (phone recall 0.853, docs/pii.md). ``heldout8`` (seed 9; heldout7's locales; templates I, written fresh
after heldout7's score by a writer who had not read the rules; digit sentences of BoolQ and LAMBADA) was scored
once (hard-part phone recall 0.863). ``heldout9`` (seed 10; en_US en_GB en_AU de_DE de_CH fr_FR fr_CA es_ES
es_MX it_IT pt_PT nl_BE; templates J, written fresh after heldout8's score by a writer who had read only this
file, not the rules; digit sentences of BoolQ and LAMBADA) was scored once (hard-part phone recall 0.846).
``heldout10`` (seed 11; en_US en_GB en_NZ de_DE de_AT fr_FR fr_CH es_ES es_CO it_IT pt_BR
nl_NL -- fr_CH for fr_BE, which Faker gives only names; templates K, written fresh after heldout9's score by a
writer who had read only this file, not the rules; digit sentences of BoolQ and LAMBADA) was scored once
(hard-part phone recall 0.750). After each score its errors were read and the rules changed: every split
here is a tuning set now, ``heldout11`` too (seed 12; en_US en_GB en_IE de_DE de_CH fr_FR fr_CA es_ES es_AR
it_IT pt_PT nl_BE; templates L, written fresh after heldout10's score by a writer who had read only this file,
not the rules; digit sentences of BoolQ and LAMBADA), scored once (hard-part phone recall 0.815). ``heldout12``
(seed 13; en_US en_GB en_AU de_DE de_AT fr_FR fr_CH es_ES es_MX it_IT pt_BR nl_NL; templates M, written fresh
after heldout11's score by a writer who had read only this file, not the rules; digit sentences of BoolQ and
LAMBADA) was scored once with the layout rules of 8350e72 (hard-part phone recall 0.973, precision 0.934, e-mail
recall 0.986); its errors were read and the rules changed (749eaf5), so it is a tuning set too. ``heldout13``
(seed 14; heldout11's locales: en_US en_GB en_IE de_DE de_CH fr_FR fr_CA es_ES es_AR it_IT pt_PT nl_BE;
templates N, written fresh after heldout12's score by a writer who had read only this file, not the rules;
digit sentences of BoolQ and LAMBADA) was scored once with the rules of 749eaf5: phone recall 0.983, precision
0.965, e-mail recall 0.991, every target met. ``heldout14`` (seed 15; en_CA en_NZ en_GB de_AT de_DE fr_CH
fr_FR es_CO es_ES it_IT pt_BR nl_NL -- fr_CH for fr_BE and it_IT for it_CH, whose addresses Faker does not know;
templates O, written fresh after heldout13's score by a writer who had read only this file, not the rules; digit
sentences of BoolQ and LAMBADA) was scored once with the rules of 027fdbc (after heldout13's errors): phone recall
0.933, precision 0.986, e-mail recall 0.975. ``heldout15`` (seed 16; en_US en_AU en_IE de_DE de_CH fr_FR fr_CA
es_ES es_MX it_IT pt_PT nl_BE; templates P, written fresh after heldout14's score by a writer who had read only this
file, not the rules; digit sentences of BoolQ and LAMBADA) was scored once with the rules of ed3ae0b: phone recall
0.972, precision 0.982, e-mail recall 0.981. ``heldout16`` (seed 17; en_GB en_CA en_NZ de_AT de_DE fr_FR fr_CH es_ES
es_CO it_IT pt_BR nl_NL; templates Q, written fresh after heldout15's score by a writer who had read only this file,
not the rules; digit sentences of BoolQ and LAMBADA) was scored once with the rules of 5e10656: phone recall 0.946,
precision 0.989, e-mail recall 0.995. ``heldout17`` (seed 18; en_US en_GB en_AU de_DE de_AT fr_FR fr_CA es_ES es_AR
it_IT pt_BR nl_BE; templates R, written fresh after heldout16's score by a writer who had read only this file, not the
rules; digit sentences of BoolQ and LAMBADA) was scored once with the final rules of e728726: phone recall 0.954,
precision 0.960, e-mail recall 1.000, every target met. The targets are judged on each held-out split's hardest part:
every phone category except same_line and prose_no_cue (a label right before the number: the old rules already worked;
no cue at all: nothing can), plus the distractor and real-sentence documents for precision. Targets: phone recall
and precision >= 0.95 there; e-mail recall (all forms) >= 0.99.

Everything is a pure function of the mirror files, Faker 40.54.0 and the seeds.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import io
import json
import random
import re
import sys
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

import pii_labelled as pl
from common import mirror_dir, write_results

SPLITS = {
    "tune": {"seed": 1, "templates": "A", "parity": (0, 1),
             "locales": ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL")},
    "heldout": {"seed": 2, "templates": "B", "parity": 2,
                "locales": ("en_AU", "en_CA", "en_NZ", "de_AT", "de_CH", "fr_CH", "nl_BE", "pt_PT", "es_MX", "es_CO",
                            "it_CH")},
    # written before heldout's errors were looked at, scored once the rules were final
    "heldout2": {"seed": 3, "templates": "C", "parity": 3,
                 "locales": ("en_IN", "en_IE", "fr_CA", "fr_BE", "es_AR", "es_CL", "de_LU", "de_LI", "it_IT", "pt_PT",
                             "nl_BE")},
    # written before heldout2's errors were looked at; real sentences from BoolQ and LAMBADA, sources no
    # other split draws from
    "heldout3": {"seed": 4, "templates": "D", "parity": None,
                 "locales": ("en_GB", "en_AU", "en_NZ", "de_DE", "de_CH", "fr_FR", "fr_CH", "es_ES", "es_MX", "it_IT",
                             "pt_BR", "nl_NL")},
    # written before heldout3's errors were looked at
    "heldout4": {"seed": 5, "templates": "E", "parity": None,
                 "locales": ("en_US", "en_CA", "en_IN", "de_AT", "de_DE", "fr_CA", "fr_FR", "es_CO", "es_ES", "it_CH",
                             "pt_PT", "nl_BE")},
    # written after heldout4's errors were read but before any rule was changed for them
    "heldout5": {"seed": 6, "templates": "F", "parity": None,
                 "locales": ("en_GB", "en_NZ", "en_IE", "de_DE", "de_CH", "fr_FR", "fr_BE", "es_ES", "es_AR", "it_IT",
                             "pt_BR", "nl_NL")},
    # written after heldout5's errors were read, before any rule was changed for them
    "heldout6": {"seed": 7, "templates": "G", "parity": None,
                 "locales": ("en_US", "en_AU", "en_CA", "de_AT", "de_DE", "fr_CH", "fr_FR", "es_MX", "es_ES", "it_IT",
                             "pt_PT", "nl_BE")},
    # written after every rule was final; scored once
    "heldout7": {"seed": 8, "templates": "H", "parity": None,
                 "locales": ("en_US", "en_GB", "en_IE", "de_DE", "de_AT", "fr_FR", "fr_BE", "es_ES", "es_AR", "it_IT",
                             "pt_BR", "nl_NL")},
    # written after heldout7 was scored, without reading the rules; scored once since
    "heldout8": {"seed": 9, "templates": "I", "parity": None,
                 "locales": ("en_US", "en_GB", "en_IE", "de_DE", "de_AT", "fr_FR", "fr_BE", "es_ES", "es_AR", "it_IT",
                             "pt_BR", "nl_NL")},
    # written after heldout8 was scored, without reading the rules; scored once since
    "heldout9": {"seed": 10, "templates": "J", "parity": None,
                 "locales": ("en_US", "en_GB", "en_AU", "de_DE", "de_CH", "fr_FR", "fr_CA", "es_ES", "es_MX", "it_IT",
                             "pt_PT", "nl_BE")},
    # written after heldout9 was scored, without reading the rules; scored once since. fr_CH stands in for fr_BE,
    # which Faker 40.54.0 knows only names of (its numbers and addresses would be en_US ones)
    "heldout10": {"seed": 11, "templates": "K", "parity": None,
                  "locales": ("en_US", "en_GB", "en_NZ", "de_DE", "de_AT", "fr_FR", "fr_CH", "es_ES", "es_CO", "it_IT",
                              "pt_BR", "nl_NL")},
    # written after heldout10 was scored, without reading the rules; scored once since. Faker 40.54.0 has no phone
    # numbers of its own for en_IE and fr_CA (it gives North American ones, as in heldout7-9) nor for es_AR (all
    # refused, so own_national's shapes); their names and addresses are their own
    "heldout11": {"seed": 12, "templates": "L", "parity": None,
                  "locales": ("en_US", "en_GB", "en_IE", "de_DE", "de_CH", "fr_FR", "fr_CA", "es_ES", "es_AR", "it_IT",
                              "pt_PT", "nl_BE")},
    # written after heldout11 was scored, by a writer who had read only this file, not the rules; scored once
    "heldout12": {"seed": 13, "templates": "M", "parity": None,
                  "locales": ("en_US", "en_GB", "en_AU", "de_DE", "de_AT", "fr_FR", "fr_CH", "es_ES", "es_MX", "it_IT",
                              "pt_BR", "nl_NL")},
    # written after heldout12 was scored, by a writer who had read only this file, not the rules; scored once.
    # heldout11's locales again (Faker's own numbers for none of en_IE, fr_CA, es_AR), with templates N
    "heldout13": {"seed": 14, "templates": "N", "parity": None,
                  "locales": ("en_US", "en_GB", "en_IE", "de_DE", "de_CH", "fr_FR", "fr_CA", "es_ES", "es_AR", "it_IT",
                              "pt_PT", "nl_BE")},
    # written after heldout13 was scored, by a writer who had read only this file, not the rules; scored once.
    # Asked for en_CA en_NZ en_GB de_AT de_DE fr_BE fr_FR es_CO es_ES it_CH pt_BR nl_NL; Faker 40.54.0 knows only
    # names of fr_BE (its numbers and addresses would be en_US ones) and has no names or addresses of it_CH (en_US
    # ones), so fr_CH stands in for fr_BE and it_IT for it_CH
    "heldout14": {"seed": 15, "templates": "O", "parity": None,
                  "locales": ("en_CA", "en_NZ", "en_GB", "de_AT", "de_DE", "fr_CH", "fr_FR", "es_CO", "es_ES", "it_IT",
                              "pt_BR", "nl_NL")},
    # written after heldout14 was scored, by a writer who had read only this file, not the rules; scored once.
    # As in heldout11 and heldout13, Faker 40.54.0 has no phone numbers of its own for en_IE and fr_CA (North American
    # ones); their names and addresses are their own
    "heldout15": {"seed": 16, "templates": "P", "parity": None,
                  "locales": ("en_US", "en_AU", "en_IE", "de_DE", "de_CH", "fr_FR", "fr_CA", "es_ES", "es_MX", "it_IT",
                              "pt_PT", "nl_BE")},
    # written after heldout15 was scored, by a writer who had read only this file, not the rules; scored once
    "heldout16": {"seed": 17, "templates": "Q", "parity": None,
                  "locales": ("en_GB", "en_CA", "en_NZ", "de_AT", "de_DE", "fr_FR", "fr_CH", "es_ES", "es_CO", "it_IT",
                              "pt_BR", "nl_NL")},
    # written after heldout16 was scored, by a writer who had read only this file, not the rules; scored once
    "heldout17": {"seed": 18, "templates": "R", "parity": None,
                  "locales": ("en_US", "en_GB", "en_AU", "de_DE", "de_AT", "fr_FR", "fr_CA", "es_ES", "es_AR", "it_IT",
                              "pt_BR", "nl_BE")},
}
PER_LOCALE = 140
# Faker's date() draws between 1970 and its end, "now" by default: a fixed end keeps a split's bytes the same
# from one day to the next
DATES_UNTIL = datetime.datetime(2026, 12, 3, 12, 0, 0)
PHONE_CATEGORIES = ("same_line", "line_above", "after", "sentence", "form", "address", "prose_no_cue")
HARD_CATEGORIES = ("line_above", "after", "sentence", "form", "address")
EMAIL_FORMS = ("plain", "paren", "bracket_dot", "paren_dot", "spelled", "spelled_upper")

ABC = "129bb6001beb828049a90a59b7dd3c2f0594a47012e48fc5177dfae38e658565"
LEE = "5d78d6dafd953bbf65797bef09a9ffb9ec430583381be705f8fd460000f370fb"
ARTICLES = "b0278e9b85053bcca217ed2469deed97fda19698a3d007d1d13fcce935397579"
STATE_UNION = "366c1dc82b2abf896f42b2ec50ba802a0141a29f75d29ca48a7a243ce5bfbe8d"
GSM8K_TEST = "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14"

# Each held-out split's one score before its errors were looked at (hard part: phone recall and precision;
# e-mail recall over every form), with the rules of the commit named. After that score a split is a tuning
# set: its later figures are not held-out figures.
FIRST_SHOTS = {
    "heldout": {"rules_commit": "f01a713", "phone_recall": 0.908, "phone_found": "649/715", "phone_precision": 0.989,
                "phone_true": "649/656", "email_recall": 0.975},
    "heldout2": {"rules_commit": "762ec1c", "phone_recall": 0.938, "phone_found": "671/715", "phone_precision": 0.997,
                 "phone_true": "671/673", "email_recall": 0.992},
    "heldout3": {"rules_commit": "24b4282", "phone_recall": 0.853, "phone_found": "665/780", "phone_precision": 0.981,
                 "phone_true": "665/678", "email_recall": 0.840},
    "heldout4": {"rules_commit": "6cf13fc", "phone_recall": 0.855, "phone_found": "667/780", "phone_precision": 1.000,
                 "phone_true": "667/667", "email_recall": 0.914},
    "heldout5": {"rules_commit": "504d756", "phone_recall": 0.715, "phone_found": "558/780", "phone_precision": 0.919,
                 "phone_true": "558/607", "email_recall": 0.831},
    "heldout6": {"rules_commit": "831be62", "phone_recall": 0.910, "phone_found": "710/780", "phone_precision": 0.974,
                 "phone_true": "710/729", "email_recall": 1.000},
    "heldout7": {"rules_commit": "247fcd3", "phone_recall": 0.853, "phone_found": "665/780", "phone_precision": 0.946,
                 "phone_true": "665/703", "email_recall": 1.000},
    "heldout8": {"rules_commit": "b45d428", "phone_recall": 0.863, "phone_found": "673/780", "phone_precision": 0.999,
                 "phone_true": "673/674", "email_recall": 0.995},
    "heldout9": {"rules_commit": "1b73449", "phone_recall": 0.846, "phone_found": "660/780", "phone_precision": 0.924,
                 "phone_true": "660/714", "email_recall": 0.998},
    "heldout10": {"rules_commit": "588f19b", "phone_recall": 0.750, "phone_found": "585/780", "phone_precision": 0.995,
                  "phone_true": "585/588", "email_recall": 0.984},
    "heldout11": {"rules_commit": "380f262", "phone_recall": 0.815, "phone_found": "636/780", "phone_precision": 0.986,
                  "phone_true": "636/645", "email_recall": 1.000},
    "heldout12": {"rules_commit": "8350e72", "phone_recall": 0.973, "phone_found": "759/780", "phone_precision": 0.934,
                  "phone_true": "759/813", "email_recall": 0.986},
    "heldout13": {"rules_commit": "749eaf5", "phone_recall": 0.983, "phone_found": "767/780", "phone_precision": 0.965,
                  "phone_true": "767/795", "email_recall": 0.991},
    "heldout14": {"rules_commit": "027fdbc", "phone_recall": 0.933, "phone_found": "728/780", "phone_precision": 0.986,
                  "phone_true": "728/738", "email_recall": 0.975},
    "heldout15": {"rules_commit": "ed3ae0b", "phone_recall": 0.972, "phone_found": "758/780", "phone_precision": 0.982,
                  "phone_true": "758/772", "email_recall": 0.981},
    "heldout16": {"rules_commit": "5e10656", "phone_recall": 0.946, "phone_found": "738/780", "phone_precision": 0.989,
                  "phone_true": "738/746", "email_recall": 0.995},
    "heldout17": {"rules_commit": "e728726", "phone_recall": 0.954, "phone_found": "744/780", "phone_precision": 0.960,
                  "phone_true": "744/775", "email_recall": 1.000},
}

# --------------------------------------------------------------------------- templates
# {x} the number, {n} a name, {e} an e-mail address, {a} a postal address (lines), {c} a company.
# Set A (tune) and set B (heldout) share no template.

PHONE_T = {
    "en": {
        "A": {"same_line": ["Phone: {x}", "Tel. {x}", "Mobile: {x}"],
              "line_above": ["{n}\nPhone:\n{x}", "{c}\nTelephone / Fax\n{x}"],
              "after": ["{x} (office)", "{x} -Fax", "{x} is my WhatsApp.", "Reach {n} at {x} on the office line."],
              "sentence": ["You can call me on {x} after six.", "My registered mobile number is {x}.",
                           "If you have questions, contact {n} at {x} or by e-mail."],
              "form": ["Name: {n} | Mobile: {x} | E-mail: {e}", "Contact number ........ {x}"],
              "prose_no_cue": ["{n}, {x}, asked about the order."]},
        "B": {"same_line": ["Ph: {x}", "Cell: {x}", "Telephone {x}"],
              "line_above": ["{n}\nMobile\n{x}", "{c}\nContact:\n{x}"],
              "after": ["{x} (mobile)", "{x} - fax", "{x} (cell)", "Ring {x} for the office."],
              "sentence": ["For bookings please phone the front desk on {x} before noon.",
                           "You can text me at {x} any time.", "The helpline, {x}, is open all week."],
              "form": ["Full name: {n}\nPhone number: {x}\nEmail: {e}", "{n} | {x} (mobile) | {e}"],
              "prose_no_cue": ["It was {x} that {n} wrote on the card."]},
        "C": {"same_line": ["Tel: {x}", "Mob. {x}", "Phone no. {x}"],
              "line_above": ["{n}\nCell phone\n{x}", "{c}\nSwitchboard:\n{x}"],
              "after": ["{x} (home)", "{x} - WhatsApp only", "{x} is the fax line.", "{x} (direct line)"],
              "sentence": ["Please give me a call on {x} when you land.", "Our landline is {x}, the mobile is in the footer.",
                           "Dial {x} and ask for {n}."],
              "form": ["Name ........ {n}\nTelephone ... {x}\nE-mail ...... {e}", "| {n} | Mobile | {x} |"],
              "prose_no_cue": ["{n} wrote {x} on the back of the envelope."]},
        "D": {"same_line": ["Telephone no.: {x}", "Fax: {x}"],
              "line_above": ["{n}\nTel. (day)\n{x}", "{c}\nHotline\n{x}"],
              "after": ["{x} (work)", "{x} - office", "{x} ext. desk, mobile", "{x} (evenings, mobile)"],
              "sentence": ["Questions? Just phone {n} directly on {x}.", "I left my cell number, {x}, with the porter.",
                           "The clinic can be contacted on {x} from Monday."],
              "form": ["Contact: {n} / phone {x} / {e}", "Telephone\t{x}"],
              "prose_no_cue": ["The winning code was {x}, {n} said."]},
        "E": {"same_line": ["Phone (mobile): {x}", "T: {x}"],
              "line_above": ["{n}\nPhone number\n{x}", "{c}\nCustomer service\n{x}"],
              "after": ["{x} (mobile, evenings)", "{x} / fax", "{x} <- my cell", "{x} (reception)"],
              "sentence": ["Anyone interested can phone {x} and leave a message.", "My mobile number has changed to {x}.",
                           "Call the box office on {x} to book."],
              "form": ["Tel.: {x}  Fax: -  Mail: {e}", "Name / Phone / Email\n{n} / {x} / {e}"],
              "prose_no_cue": ["Ticket {x} belongs to {n}."]},
        "F": {"same_line": ["Ph. {x}", "Direct: {x}"],
              "line_above": ["{n}\nOut of hours\n{x}", "{c}\nBookings and enquiries\n{x}"],
              "after": ["{x} (weekdays)", "{x} - ask for {n}", "{x} (24h)", "{x}, leave a voicemail"],
              "sentence": ["Ring us on {x} or pop in.", "Text {n} on {x} to confirm.", "For emergencies dial {x}."],
              "form": ["Phone: {x}; E-mail: {e}; Name: {n}", "Daytime tel ............ {x}"],
              "prose_no_cue": ["{n} picked {x} in the lottery."]},
        "G": {"same_line": ["Mob: {x}", "Telephone (home) {x}"],
              "line_above": ["{n}\nEmergency contact\n{x}", "{c}\nSales line\n{x}"],
              "after": ["{x} (mornings)", "{x} - my personal number", "{x} (after 5pm)", "{x} is the switchboard"],
              "sentence": ["You can always phone me at {x}, day or night.", "Her new number is {x}.",
                           "To cancel, ring {x} before Friday."],
              "form": ["Phone | {x}\nEmail | {e}", "Contact tel.: {x}, {n}"],
              "prose_no_cue": ["The serial on the box read {x}."]},
        "H": {"same_line": ["Call: {x}", "Landline {x}"],
              "line_above": ["{n}\nMy number\n{x}", "{c}\nFreephone\n{x}"],
              "after": ["{x} (landline)", "{x} - texts only, no calls", "{x} (private)", "{x}, the hotline, Mon-Fri"],
              "sentence": ["Reach me on {x} if the parcel doesn't turn up.",
                           "Send a text message to {x} and we will get back to you.",
                           "Tenants can report leaks by calling the caretaker on {x}."],
              "form": ["Applicant: {n} · Landline: {x} · Email: {e}", "Best number to reach you*  {x}"],
              "prose_no_cue": ["{n} scribbled {x} in the margin of the crossword."]},
        "I": {"same_line": ["Office: {x}", "Tel/Text: {x}"],
              "line_above": ["{n}\nWork phone\n{x}", "{c}\nQuestions? Speak to our team\n{x}"],
              "after": ["{x} (call or text)", "{x} (Signal / WhatsApp)", "{x}, extension 214",
                        "{x} is the number to ring for repairs."],
              "sentence": ["If nobody answers at {x}, leave your name and we'll ring you back.",
                           "Interested buyers can give me a bell on {x}, serious offers only.",
                           "Our reception team is available on {x} between 8am and 6pm to book appointments."],
              "form": ["Customer: {n}\nDelivery phone: {x}\nEmail: {e}",
                       "Emergency contact: {n}   Relationship: spouse   Daytime no.: {x}"],
              "prose_no_cue": ["{x} was written in pencil inside the cover of {n}'s old diary."]},
    },
    "de": {
        "A": {"same_line": ["Telefon: {x}", "Tel.: {x}"], "line_above": ["{n}\nTelefon:\n{x}"],
              "after": ["{x} (Büro)", "{x}-Fax"], "sentence": ["Sie erreichen mich telefonisch unter {x}."],
              "form": ["Name: {n} | Handy: {x} | E-Mail: {e}"], "prose_no_cue": ["{n}, {x}, war auch da."]},
        "B": {"same_line": ["Mobil: {x}", "Fax {x}"], "line_above": ["{c}\nTelefon / Fax\n{x}"],
              "after": ["{x} (Handy)", "{x} (Zentrale)"], "sentence": ["Rufen Sie bei Fragen einfach unser Büro an: {x}."],
              "form": ["Ansprechpartner: {n}\nRufnummer: {x}\nE-Mail: {e}"], "prose_no_cue": ["Es war {x}, sagte {n}."]},
        "C": {"same_line": ["Tel {x}", "Handy: {x}"], "line_above": ["{n}\nMobilnummer:\n{x}"],
              "after": ["{x} (Festnetz)", "{x} (Sekretariat)"], "sentence": ["Bitte rufen Sie mich unter {x} zurück."],
              "form": ["Name: {n}\nTelefonnummer: {x}\nE-Mail: {e}"], "prose_no_cue": ["{n} notierte {x} auf dem Zettel."]},
        "D": {"same_line": ["Telefonnummer {x}", "Tel.-Nr.: {x}"], "line_above": ["{c}\nKontakt\n{x}"],
              "after": ["{x} (dienstlich)", "{x} (mobil)"], "sentence": ["Unter {x} ist das Büro von {n} erreichbar."],
              "form": ["Kontakt: {n} / Telefon {x} / {e}"], "prose_no_cue": ["Die Losnummer war {x}."]},
        "E": {"same_line": ["Telefon (mobil): {x}", "T: {x}"], "line_above": ["{n}\nTelefonnummer\n{x}"],
              "after": ["{x} (abends)", "{x} / Fax"], "sentence": ["Wer Interesse hat, kann {n} unter {x} anrufen."],
              "form": ["Tel.: {x}  Fax: -  Mail: {e}"], "prose_no_cue": ["Der Schein {x} gehört {n}."]},
        "F": {"same_line": ["Fon: {x}", "Durchwahl {x}"], "line_above": ["{c}\nTerminvereinbarung\n{x}"],
              "after": ["{x} (werktags)", "{x}, Anrufbeantworter"], "sentence": ["Für Notfälle wählen Sie {x}."],
              "form": ["Telefon: {x}; E-Mail: {e}; Name: {n}"], "prose_no_cue": ["{n} tippte {x} im Lotto."]},
        "G": {"same_line": ["Mobiltelefon: {x}", "Tel. privat {x}"], "line_above": ["{c}\nVertrieb\n{x}"],
              "after": ["{x} (vormittags)", "{x} ist die Zentrale"], "sentence": ["Zum Absagen rufen Sie bis Freitag {x} an."],
              "form": ["Telefon | {x}\nE-Mail | {e}"], "prose_no_cue": ["Auf der Kiste stand {x}."]},
        "H": {"same_line": ["Festnetz: {x}", "Handynr. {x}"], "line_above": ["{n}\nErreichbar unter\n{x}"],
              "after": ["{x} (privat)", "{x} – bitte nur per SMS"],
              "sentence": ["Bei Rückfragen bin ich tagsüber unter der Nummer {x} erreichbar."],
              "form": ["Vor- und Nachname: {n}, Rufnummer (tagsüber): {x}, E-Mail-Adresse: {e}"],
              "prose_no_cue": ["{n} las {x} laut vor."]},
        "I": {"same_line": ["Tel. geschäftlich: {x}", "Telefax {x}"], "line_above": ["{c}\nHotline (Mo–Fr 8–18 Uhr)\n{x}"],
              "after": ["{x} (auch WhatsApp)", "{x} (Anrufe bitte erst ab 17 Uhr)"],
              "sentence": ["Besichtigung nach telefonischer Absprache unter {x} jederzeit möglich."],
              "form": ["Name, Vorname: {n} | Telefon für Rückfragen: {x} | E-Mail: {e}"],
              "prose_no_cue": ["Hinter dem Namen {n} folgte in der Liste {x}."]},
    },
    "fr": {
        "A": {"same_line": ["Téléphone : {x}", "Tél. {x}"], "line_above": ["{n}\nTéléphone :\n{x}"],
              "after": ["{x} (bureau)", "{x} - fax"], "sentence": ["Vous pouvez me joindre au {x} le soir."],
              "form": ["Nom : {n} | Portable : {x} | Courriel : {e}"], "prose_no_cue": ["{n}, {x}, était là."]},
        "B": {"same_line": ["Portable : {x}", "Fax : {x}"], "line_above": ["{c}\nContact\n{x}"],
              "after": ["{x} (portable)", "{x} (standard)"], "sentence": ["Pour toute question, appelez le {x} en semaine."],
              "form": ["Interlocuteur : {n}\nNuméro de téléphone : {x}\nE-mail : {e}"],
              "prose_no_cue": ["C'était le {x}, dit {n}."]},
        "C": {"same_line": ["Tél : {x}", "Mobile : {x}"], "line_above": ["{n}\nTéléphone portable\n{x}"],
              "after": ["{x} (domicile)", "{x} (fax)"], "sentence": ["N'hésitez pas à m'appeler au {x} demain."],
              "form": ["Nom : {n}\nTél. : {x}\nCourriel : {e}"], "prose_no_cue": ["{n} nota {x} sur un papier."]},
        "D": {"same_line": ["N° de téléphone : {x}", "Tél. portable : {x}"], "line_above": ["{c}\nStandard\n{x}"],
              "after": ["{x} (travail)", "{x} (mobile)"], "sentence": ["Appelez {n} au {x} pour prendre rendez-vous."],
              "form": ["Contact : {n} / tél. {x} / {e}"], "prose_no_cue": ["Le code gagnant était {x}."]},
        "E": {"same_line": ["Téléphone (portable) : {x}", "T : {x}"], "line_above": ["{n}\nNuméro de téléphone\n{x}"],
              "after": ["{x} (le soir)", "{x} / fax"], "sentence": ["Les personnes intéressées peuvent téléphoner au {x}."],
              "form": ["Tél. : {x}  Fax : -  Mail : {e}"], "prose_no_cue": ["Le billet {x} appartient à {n}."]},
        "F": {"same_line": ["Ligne directe : {x}", "Tél. fixe : {x}"], "line_above": ["{c}\nRéservations\n{x}"],
              "after": ["{x} (en semaine)", "{x}, laissez un message"], "sentence": ["En cas d'urgence, composez le {x}."],
              "form": ["Téléphone : {x} ; Courriel : {e} ; Nom : {n}"], "prose_no_cue": ["{n} a joué {x} au loto."]},
        "G": {"same_line": ["Portable perso : {x}", "Tél. domicile {x}"], "line_above": ["{c}\nService commercial\n{x}"],
              "after": ["{x} (le matin)", "{x} est le standard"], "sentence": ["Pour annuler, appelez le {x} avant vendredi."],
              "form": ["Téléphone | {x}\nCourriel | {e}"], "prose_no_cue": ["Sur la caisse on lisait {x}."]},
        "H": {"same_line": ["Fixe : {x}", "Tél/Fax {x}"], "line_above": ["{n}\nJoignable au\n{x}"],
              "after": ["{x} (ligne fixe)", "{x}, SMS uniquement"],
              "sentence": ["Un souci avec votre commande ? Notre hotline répond au {x} du lundi au vendredi."],
              "form": ["Nom et prénom : {n} – Numéro où vous joindre : {x} – Adresse mail : {e}"],
              "prose_no_cue": ["Le colis de {n} portait la mention {x}."]},
        "I": {"same_line": ["GSM : {x}", "Tél. pro : {x}"], "line_above": ["{c}\nAccueil téléphonique\n{x}"],
              "after": ["{x} (répondeur)", "{x}, appel non surtaxé"],
              "sentence": ["Pour visiter l'appartement, merci de contacter le propriétaire au {x} en fin de journée."],
              "form": ["Destinataire : {n} – Tél. livraison : {x} – E-mail : {e}"],
              "prose_no_cue": ["{n} a recopié {x} sur un post-it avant de partir."]},
    },
    "es": {
        "A": {"same_line": ["Teléfono: {x}", "Tel. {x}"], "line_above": ["{n}\nTeléfono:\n{x}"],
              "after": ["{x} (oficina)", "{x} - fax"], "sentence": ["Puede llamar a {n} al {x} por la tarde."],
              "form": ["Nombre: {n} | Móvil: {x} | Correo: {e}"], "prose_no_cue": ["{n}, {x}, vino también."]},
        "B": {"same_line": ["Celular: {x}", "Tfno. {x}"], "line_above": ["{c}\nContacto\n{x}"],
              "after": ["{x} (móvil)", "{x} (WhatsApp)"], "sentence": ["Para reservas, llame a la oficina al {x} antes del mediodía."],
              "form": ["Persona de contacto: {n}\nTeléfono móvil: {x}\nCorreo: {e}"], "prose_no_cue": ["Era el {x}, dijo {n}."]},
        "C": {"same_line": ["Tlf. {x}", "Móvil {x}"], "line_above": ["{n}\nTeléfono móvil\n{x}"],
              "after": ["{x} (fijo)", "{x} (centralita)"], "sentence": ["Si tiene dudas, llámenos al {x} cuando quiera."],
              "form": ["Nombre: {n}\nTeléfono: {x}\nCorreo electrónico: {e}"], "prose_no_cue": ["{n} apuntó {x} en la servilleta."]},
        "D": {"same_line": ["Nº de teléfono: {x}", "Teléfono fijo: {x}"], "line_above": ["{c}\nAtención al cliente - teléfono\n{x}"],
              "after": ["{x} (trabajo)", "{x} (celular)"], "sentence": ["Puede contactar a {n} en el {x} de lunes a viernes."],
              "form": ["Contacto: {n} / tel. {x} / {e}"], "prose_no_cue": ["El código ganador fue {x}."]},
        "E": {"same_line": ["Teléfono (móvil): {x}", "T: {x}"], "line_above": ["{n}\nNúmero de teléfono\n{x}"],
              "after": ["{x} (por la tarde)", "{x} / fax"], "sentence": ["Los interesados pueden llamar al {x} y dejar un mensaje."],
              "form": ["Tel.: {x}  Fax: -  Correo: {e}"], "prose_no_cue": ["El boleto {x} es de {n}."]},
        "F": {"same_line": ["Línea directa: {x}", "Teléfono de contacto {x}"], "line_above": ["{c}\nReservas\n{x}"],
              "after": ["{x} (días laborables)", "{x}, deje un mensaje"], "sentence": ["En caso de urgencia marque el {x}."],
              "form": ["Teléfono: {x}; Correo: {e}; Nombre: {n}"], "prose_no_cue": ["{n} jugó el {x} en la lotería."]},
        "G": {"same_line": ["Móvil personal: {x}", "Tel. casa {x}"], "line_above": ["{c}\nDepartamento comercial\n{x}"],
              "after": ["{x} (por la mañana)", "{x} es la centralita"], "sentence": ["Para cancelar, llame al {x} antes del viernes."],
              "form": ["Teléfono | {x}\nCorreo | {e}"], "prose_no_cue": ["En la caja ponía {x}."]},
        "H": {"same_line": ["Llámanos al {x}", "Fijo: {x}"], "line_above": ["{n}\nMi número\n{x}"],
              "after": ["{x} (particular)", "{x}, solo SMS"],
              "sentence": ["Si el pedido no llega, escríbenos un SMS al {x} y te respondemos."],
              "form": ["Nombre y apellidos: {n} / Número donde localizarle: {x} / E-mail: {e}"],
              "prose_no_cue": ["{n} eligió el {x} sin pensarlo."]},
        "I": {"same_line": ["Teléfono oficina: {x}", "Cel.: {x}"],
              "line_above": ["{c}\nAtención telefónica (L a V de 9 a 18 h)\n{x}"],
              "after": ["{x} (llamadas y WhatsApp)", "{x}, contestador 24 h"],
              "sentence": ["Para más información o para concertar una visita, llamar al {x} en horario de tarde."],
              "form": ["Nombre del titular: {n} · Tel. para la entrega: {x} · Correo electrónico: {e}"],
              "prose_no_cue": ["En el ticket de {n} había un {x} escrito a boli."]},
    },
    "it": {
        "A": {"same_line": ["Telefono: {x}", "Tel. {x}"], "line_above": ["{n}\nTelefono:\n{x}"],
              "after": ["{x} (ufficio)", "{x} - fax"], "sentence": ["Potete chiamare {n} al {x} nel pomeriggio."],
              "form": ["Nome: {n} | Cellulare: {x} | Email: {e}"], "prose_no_cue": ["{n}, {x}, era lì."]},
        "B": {"same_line": ["Cell. {x}", "Fax: {x}"], "line_above": ["{c}\nRecapito\n{x}"],
              "after": ["{x} (cellulare)", "{x} (centralino)"], "sentence": ["Per informazioni contattateci allo {x} dalle nove."],
              "form": ["Referente: {n}\nNumero di telefono: {x}\nEmail: {e}"], "prose_no_cue": ["Era il {x}, disse {n}."]},
        "C": {"same_line": ["Tel: {x}", "Cellulare {x}"], "line_above": ["{n}\nNumero di cellulare\n{x}"],
              "after": ["{x} (ufficio)", "{x} (solo WhatsApp)"], "sentence": ["Per prenotare chiamate il {x} entro sera."],
              "form": ["Nome: {n}\nTelefono: {x}\nEmail: {e}"], "prose_no_cue": ["{n} scrisse {x} sul foglio."]},
        "D": {"same_line": ["Tel. fisso: {x}", "Numero di telefono {x}"], "line_above": ["{c}\nCentralino\n{x}"],
              "after": ["{x} (lavoro)", "{x} (cell.)"], "sentence": ["Chiamate {n} al {x} per un appuntamento."],
              "form": ["Contatto: {n} / tel. {x} / {e}"], "prose_no_cue": ["Il codice vincente era {x}."]},
        "E": {"same_line": ["Telefono (cellulare): {x}", "T: {x}"], "line_above": ["{n}\nNumero di telefono\n{x}"],
              "after": ["{x} (la sera)", "{x} / fax"], "sentence": ["Gli interessati possono telefonare al {x}."],
              "form": ["Tel.: {x}  Fax: -  Email: {e}"], "prose_no_cue": ["Il biglietto {x} è di {n}."]},
        "F": {"same_line": ["Linea diretta: {x}", "Tel. ufficio {x}"], "line_above": ["{c}\nPrenotazioni\n{x}"],
              "after": ["{x} (feriali)", "{x}, lasciate un messaggio"], "sentence": ["Per le urgenze componete il {x}."],
              "form": ["Telefono: {x}; Email: {e}; Nome: {n}"], "prose_no_cue": ["{n} ha giocato il {x} al lotto."]},
        "G": {"same_line": ["Cell. personale: {x}", "Tel. casa {x}"], "line_above": ["{c}\nUfficio vendite\n{x}"],
              "after": ["{x} (mattina)", "{x} è il centralino"], "sentence": ["Per disdire chiamate il {x} entro venerdì."],
              "form": ["Telefono | {x}\nEmail | {e}"], "prose_no_cue": ["Sulla scatola c'era scritto {x}."]},
        "H": {"same_line": ["Chiamaci: {x}", "Fisso {x}"], "line_above": ["{n}\nReperibile al\n{x}"],
              "after": ["{x} (abitazione)", "{x}, anche SMS"],
              "sentence": ["Per qualsiasi problema potete mandarmi un SMS al {x}, rispondo in giornata."],
              "form": ["Nome e cognome: {n} - Recapito telefonico: {x} - Indirizzo email: {e}"],
              "prose_no_cue": ["{n} ha sottolineato {x} due volte."]},
        "I": {"same_line": ["Tel. e fax: {x}", "Cell. aziendale {x}"], "line_above": ["{c}\nServizio clienti\n{x}"],
              "after": ["{x} ore pasti", "{x} (anche WhatsApp)"],
              "sentence": ["Per visionare l'auto telefonare al {x}, no perditempo."],
              "form": ["Cognome e nome: {n} | Tel. per eventuali comunicazioni: {x} | E-mail: {e}"],
              "prose_no_cue": ["Accanto al nome di {n}, sul registro, compariva {x}."]},
    },
    "pt": {
        "A": {"same_line": ["Telefone: {x}", "Tel. {x}"], "line_above": ["{n}\nTelefone:\n{x}"],
              "after": ["{x} (escritório)", "{x} - fax"], "sentence": ["Pode ligar para {n} pelo {x} à tarde."],
              "form": ["Nome: {n} | Celular: {x} | E-mail: {e}"], "prose_no_cue": ["{n}, {x}, também veio."]},
        "B": {"same_line": ["Telemóvel: {x}", "Fax: {x}"], "line_above": ["{c}\nContacto\n{x}"],
              "after": ["{x} (telemóvel)", "{x} (WhatsApp)"], "sentence": ["Para marcações, ligue para o escritório pelo {x}."],
              "form": ["Pessoa de contacto: {n}\nNúmero de telefone: {x}\nE-mail: {e}"], "prose_no_cue": ["Era o {x}, disse {n}."]},
        "C": {"same_line": ["Tel: {x}", "Celular {x}"], "line_above": ["{n}\nTelefone celular\n{x}"],
              "after": ["{x} (fixo)", "{x} (só WhatsApp)"], "sentence": ["Qualquer dúvida, ligue para {x} amanhã."],
              "form": ["Nome: {n}\nTelefone: {x}\nE-mail: {e}"], "prose_no_cue": ["{n} anotou {x} no papel."]},
        "D": {"same_line": ["Nº de telefone: {x}", "Tel. fixo: {x}"], "line_above": ["{c}\nAtendimento - telefone\n{x}"],
              "after": ["{x} (trabalho)", "{x} (celular)"], "sentence": ["Ligue para {n} no {x} para marcar."],
              "form": ["Contato: {n} / tel. {x} / {e}"], "prose_no_cue": ["O código vencedor foi {x}."]},
        "E": {"same_line": ["Telefone (celular): {x}", "T: {x}"], "line_above": ["{n}\nNúmero de telefone\n{x}"],
              "after": ["{x} (à noite)", "{x} / fax"], "sentence": ["Os interessados podem telefonar para {x}."],
              "form": ["Tel.: {x}  Fax: -  E-mail: {e}"], "prose_no_cue": ["O bilhete {x} é de {n}."]},
        "F": {"same_line": ["Linha direta: {x}", "Telefone de contato {x}"], "line_above": ["{c}\nReservas\n{x}"],
              "after": ["{x} (dias úteis)", "{x}, deixe recado"], "sentence": ["Em caso de urgência, disque {x}."],
              "form": ["Telefone: {x}; E-mail: {e}; Nome: {n}"], "prose_no_cue": ["{n} jogou o {x} na loteria."]},
        "G": {"same_line": ["Celular pessoal: {x}", "Tel. casa {x}"], "line_above": ["{c}\nDepartamento comercial\n{x}"],
              "after": ["{x} (de manhã)", "{x} é a central"], "sentence": ["Para cancelar, ligue para {x} até sexta."],
              "form": ["Telefone | {x}\nE-mail | {e}"], "prose_no_cue": ["Na caixa estava escrito {x}."]},
        "H": {"same_line": ["Ligue: {x}", "Fone: {x}"], "line_above": ["{n}\nMeu número\n{x}"],
              "after": ["{x} (residencial)", "{x}, só SMS"],
              "sentence": ["Se preferir, mande uma mensagem de texto para {x} que eu retorno a ligação."],
              "form": ["Nome completo: {n} – Telefone para recado: {x} – E-mail: {e}"],
              "prose_no_cue": ["{n} repetiu {x} baixinho."]},
        "I": {"same_line": ["Cel./WhatsApp: {x}", "Tel. comercial: {x}"], "line_above": ["{c}\nSAC\n{x}"],
              "after": ["{x} (ligações ou zap)", "{x} (horário comercial)"],
              "sentence": ["Interessados entrar em contato pelo {x} a partir das 14h."],
              "form": ["Nome do responsável: {n}\nTel. p/ contato: {x}\nE-mail: {e}"],
              "prose_no_cue": ["{n} conferiu {x} duas vezes antes de guardar o papel."]},
    },
    "nl": {
        "A": {"same_line": ["Telefoon: {x}", "Tel. {x}"], "line_above": ["{n}\nTelefoon:\n{x}"],
              "after": ["{x} (kantoor)", "{x} - fax"], "sentence": ["U kunt {n} bellen op {x} na zes uur."],
              "form": ["Naam: {n} | Mobiel: {x} | E-mail: {e}"], "prose_no_cue": ["{n}, {x}, was er ook."]},
        "B": {"same_line": ["Mobiel: {x}", "Fax: {x}"], "line_above": ["{c}\nContact\n{x}"],
              "after": ["{x} (mobiel)", "{x} (GSM)"], "sentence": ["Voor vragen kunt u ons kantoor bereiken op {x}."],
              "form": ["Contactpersoon: {n}\nTelefoonnummer: {x}\nE-mail: {e}"], "prose_no_cue": ["Het was {x}, zei {n}."]},
        "C": {"same_line": ["Tel: {x}", "GSM: {x}"], "line_above": ["{n}\nMobiel nummer\n{x}"],
              "after": ["{x} (thuis)", "{x} (alleen WhatsApp)"], "sentence": ["Bel gerust naar {x} als u vragen heeft."],
              "form": ["Naam: {n}\nTelefoonnummer: {x}\nE-mail: {e}"], "prose_no_cue": ["{n} schreef {x} op het briefje."]},
        "D": {"same_line": ["Telefoonnr.: {x}", "Tel. (werk): {x}"], "line_above": ["{c}\nKlantenservice - telefoon\n{x}"],
              "after": ["{x} (werk)", "{x} (mobiel)"], "sentence": ["Bel {n} op {x} voor een afspraak."],
              "form": ["Contact: {n} / tel. {x} / {e}"], "prose_no_cue": ["De winnende code was {x}."]},
        "E": {"same_line": ["Telefoon (mobiel): {x}", "T: {x}"], "line_above": ["{n}\nTelefoonnummer\n{x}"],
              "after": ["{x} ('s avonds)", "{x} / fax"], "sentence": ["Belangstellenden kunnen {x} bellen."],
              "form": ["Tel.: {x}  Fax: -  E-mail: {e}"], "prose_no_cue": ["Lot {x} is van {n}."]},
        "F": {"same_line": ["Direct: {x}", "Tel. kantoor {x}"], "line_above": ["{c}\nReserveringen\n{x}"],
              "after": ["{x} (werkdagen)", "{x}, spreek iets in"], "sentence": ["Bij spoed belt u {x}."],
              "form": ["Telefoon: {x}; E-mail: {e}; Naam: {n}"], "prose_no_cue": ["{n} speelde {x} in de loterij."]},
        "G": {"same_line": ["Mobiel privé: {x}", "Tel. thuis {x}"], "line_above": ["{c}\nVerkoop\n{x}"],
              "after": ["{x} ('s ochtends)", "{x} is de centrale"], "sentence": ["Om af te zeggen belt u vóór vrijdag {x}."],
              "form": ["Telefoon | {x}\nE-mail | {e}"], "prose_no_cue": ["Op de doos stond {x}."]},
        "H": {"same_line": ["Bel ons: {x}", "Vaste lijn {x}"], "line_above": ["{n}\nBereikbaar op\n{x}"],
              "after": ["{x} (privé)", "{x}, alleen sms"],
              "sentence": ["Stuur gerust een sms naar {x}, dan bel ik je terug."],
              "form": ["Voor- en achternaam: {n} - Nummer waarop u bereikbaar bent: {x} - E-mailadres: {e}"],
              "prose_no_cue": ["{n} omcirkelde {x} met rode pen."]},
        "I": {"same_line": ["Tel.nr. {x}", "Mob.: {x}"], "line_above": ["{c}\nAfspraak maken? Bel gerust\n{x}"],
              "after": ["{x} (ook WhatsApp)", "{x} (na 18.00 uur)"],
              "sentence": ["Wilt u de woning bezichtigen, neem dan telefonisch contact op via {x}."],
              "form": ["Huurder: {n} / Tel. overdag: {x} / E-mailadres: {e}"],
              "prose_no_cue": ["Op het bonnetje van {n} stond met balpen {x} geschreven."]},
    },
}
# The address block: no phone word anywhere in it.
ADDRESS_T = {"A": ["{n}\n{a}\n{x}\n{e}", "{c}\n{a}\n{x}", "{n}, {x}\n{a}"],
             "B": ["{c}\n{n}\n{a}\n{x}", "{a}\n{x}\n{e}", "{n}\n{a}\n{x} | {e}"],
             "C": ["{n} - {x}\n{a}\n{e}", "{c}\n{a}\n{e}\n{x}", "{n}\n{c}\n{a}\n{x}"],
             "D": ["{c}\n{a}\n{x} · {e}", "{n}\n{a}\n\n{x}", "{a}\n{n}: {x}"],
             "E": ["{n}\n{a}\n{x}, {e}", "{c}, {a}, {x}", "{a}\n{x} (a.m. only)\n{e}"],
             "F": ["{c}\n{a}\n{x}\n{e}\nwww.example.com", "{n}\n{a}\n{x} / {e}", "{a}, {x}"],
             "G": ["{n}\n{c}\n{a}\n{x}\n{e}", "{a}\n\n{x} · {e}", "{n} ({c})\n{a}\n{x}"],
             "H": ["{c}\n{n}\n{e}\n{a}\n{x}", "{n}\n{a}\n{e} | {x}", "{x} — {n}\n{a}"],
             "I": ["{n}\n{c}\n{x}\n{a}", "{c} | {e} | {x}\n{a}", "{a}\n\n{n}\n{e}\n{x}"]}
EMAIL_T = {
    "en": {"A": ["Write to {e} for details.", "E-mail: {e}", "{n}\n{e}"], "B": ["Send the form to {e} by Friday.", "Contact: {e}", "{c}\n{n}\n{e}"]},
    "de": {"A": ["Schreiben Sie an {e}.", "E-Mail: {e}"], "B": ["Bitte senden Sie alles an {e}.", "Kontakt: {e}"]},
    "fr": {"A": ["Écrivez à {e}.", "Courriel : {e}"], "B": ["Envoyez le dossier à {e}.", "Contact : {e}"]},
    "es": {"A": ["Escriba a {e}.", "Correo: {e}"], "B": ["Envíe el formulario a {e}.", "Contacto: {e}"]},
    "it": {"A": ["Scrivete a {e}.", "Email: {e}"], "B": ["Inviate il modulo a {e}.", "Contatto: {e}"]},
    "pt": {"A": ["Escreva para {e}.", "E-mail: {e}"], "B": ["Envie o formulário para {e}.", "Contacto: {e}"]},
    "nl": {"A": ["Mail naar {e}.", "E-mail: {e}"], "B": ["Stuur het formulier naar {e}.", "Contact: {e}"]},
}
for _lang, _t in {"en": ["Drop a line to {e} if anything changes.", "Email address: {e}", "{n}\n{c}\n{e}"],
                  "de": ["Fragen bitte per Mail an {e}.", "Mail: {e}"], "fr": ["Merci d'écrire à {e}.", "Adresse e-mail : {e}"],
                  "es": ["Dudas por correo a {e}.", "Email: {e}"], "it": ["Domande via mail a {e}.", "Posta: {e}"],
                  "pt": ["Dúvidas por e-mail para {e}.", "Email: {e}"], "nl": ["Vragen mailen naar {e}.", "Mail: {e}"]}.items():
    EMAIL_T[_lang]["C"] = _t
for _lang, _t in {"en": ["Reply to {e} with your answers.", "{n} <{e}>", "{c} · {e}"],
                  "de": ["Antworten an {e} senden.", "Adresse: {e}"], "fr": ["Réponses à {e}.", "Mél : {e}"],
                  "es": ["Respuestas a {e}.", "Dirección: {e}"], "it": ["Risposte a {e}.", "Indirizzo: {e}"],
                  "pt": ["Respostas para {e}.", "Endereço: {e}"], "nl": ["Antwoorden naar {e}.", "Adres: {e}"]}.items():
    EMAIL_T[_lang]["D"] = _t
for _lang, _t in {"en": ["Questions go to {e}, please.", "{n} ({e})", "Enquiries: {e}"],
                  "de": ["Rückfragen an {e}.", "{n} ({e})"], "fr": ["Questions : {e}", "{n} ({e})"],
                  "es": ["Consultas: {e}", "{n} ({e})"], "it": ["Domande: {e}", "{n} ({e})"],
                  "pt": ["Perguntas: {e}", "{n} ({e})"], "nl": ["Vragen: {e}", "{n} ({e})"]}.items():
    EMAIL_T[_lang]["E"] = _t
for _lang, _t in {"en": ["Feedback welcome at {e}.", "Contact person: {n}, {e}", "{c} - {e}"],
                  "de": ["Feedback gerne an {e}.", "{c} - {e}"], "fr": ["Vos remarques à {e}.", "{c} - {e}"],
                  "es": ["Comentarios a {e}.", "{c} - {e}"], "it": ["Commenti a {e}.", "{c} - {e}"],
                  "pt": ["Comentários para {e}.", "{c} - {e}"], "nl": ["Reacties naar {e}.", "{c} - {e}"]}.items():
    EMAIL_T[_lang]["F"] = _t
for _lang, _t in {"en": ["My address is {e}.", "{n} - {e}", "Mail to: {e}"],
                  "de": ["Meine Adresse: {e}", "{n} - {e}"], "fr": ["Mon adresse : {e}", "{n} - {e}"],
                  "es": ["Mi dirección es {e}.", "{n} - {e}"], "it": ["Il mio indirizzo è {e}.", "{n} - {e}"],
                  "pt": ["Meu endereço é {e}.", "{n} - {e}"], "nl": ["Mijn adres is {e}.", "{n} - {e}"]}.items():
    EMAIL_T[_lang]["G"] = _t
for _lang, _t in {"en": ["You can also reach the team by email at {e}.", "Reply-to: {e}", "{n} | {c} | {e}"],
                  "de": ["Sie erreichen uns auch per E-Mail unter {e}.", "Antwort bitte an: {e}"],
                  "fr": ["Pour toute demande, un courriel à {e} suffit.", "Écrire à l'équipe : {e}"],
                  "es": ["Si lo prefiere, mándenos un correo a {e}.", "Correo de contacto: {e}"],
                  "it": ["Se preferite, mandateci una mail a {e}.", "Scriveteci: {e}"],
                  "pt": ["Se preferir, mande um e-mail para {e}.", "Fale conosco: {e}"],
                  "nl": ["U kunt ons ook mailen via {e}.", "Schrijf ons: {e}"]}.items():
    EMAIL_T[_lang]["H"] = _t
for _lang, _t in {"en": ["Send your CV and a short cover letter to {e} before the closing date.", "Press contact: {e}",
                         "{n}\nSecretary, {c}\n{e}"],
                  "de": ["Bewerbungen bitte ausschließlich per E-Mail an {e}.", "Ansprechpartner/in: {n} – {e}"],
                  "fr": ["Candidatures (CV + lettre de motivation) à adresser à {e}.", "Service presse : {e}"],
                  "es": ["Envía tu CV a {e} indicando la referencia de la oferta.", "{n} — Departamento de Administración — {e}"],
                  "it": ["Per iscriversi basta inviare nome e cognome a {e}.", "Ufficio stampa: {e}"],
                  "pt": ["Envie seu currículo para {e} com o título da vaga no assunto.", "Atendimento ao cliente: {e}"],
                  "nl": ["Sollicitaties kunt u richten aan {n} via {e}.", "Klachten en opmerkingen: {e}"]}.items():
    EMAIL_T[_lang]["I"] = _t

# Distractors: digit groups that are not phones, many next to a phone word.
DISTRACTOR_T = {
    "A": ["Order no. {ord} was shipped; call us if it is late.", "ISBN {isbn}", "Invoice {inv} is due on {date}.",
          "Price: {price}", "The match ended {score} after {minutes} minutes.", "Customer ID: {cid}",
          "Open {time}, phone orders welcome.", "In {year} and {year2} sales of phones rose.",
          "Postcode {post}", "IBAN {iban}", "Reference {ref} (office use only)", "{big} people called the hotline in {year}."],
    "B": ["Your order {ord} is on its way.", "ISBN: {isbn}", "Bill {inv}, dated {date}", "Total {price} incl. VAT",
          "Final score {score}; {big} fans watched.", "Member no. {cid}", "Office hours {time}",
          "Between {year} and {year2} the call centre grew.", "Tracking number {ref}", "Account {iban}",
          "The mobile plan costs {price} a month.", "Tickets {ord} to {ord2} are valid."],
    "C": ["Parcel {ord} left the depot; questions? call the office.", "Book: ISBN {isbn}", "Receipt {inv} of {date}",
          "Amount due: {price}", "They won {score}, with {big} watching.", "Client reference {cid}", "Hours: {time}",
          "From {year} to {year2} phone sales doubled.", "Case file {ref}", "Pay to {iban}", "Deposit {price}, see office.",
          "Shipment {ref} (contact the office)"],
    "D": ["Consignment {ord}: phone the depot if damaged.", "ISBN-13 {isbn}", "Statement {inv} ({date})", "Fee {price}",
          "Result {score} in front of {big} spectators.", "Patient ID {cid}", "Call hours {time}",
          "Mobile subscriptions rose from {year} to {year2}.", "Case number {ref}", "Bank account {iban}",
          "Licence {ref}, contact the office to renew.", "Serial {ord}, tel. support on weekdays"],
    "E": ["Voucher {ord} - call to redeem.", "ISBN {isbn} (paperback)", "Invoice no. {inv} from {date}", "Now only {price}!",
          "It finished {score}; attendance {big}.", "Policy {cid}", "Phone lines open {time}", "Census {year}: {big} mobile users.",
          "Claim {ref}", "IBAN: {iban}", "Room {ord2}, office wing", "Model {ref}, contact support"],
    "F": ["Coupon code {ord}, call to activate.", "ISBN {isbn}, hardback", "Bill no. {inv} issued {date}", "Was {price}",
          "Full time: {score} before {big} fans.", "Membership {cid}", "Lines open {time}", "Phones sold in {year}: {big}.",
          "Permit {ref}", "Account no. {iban}", "Batch {ord}, see office", "Plate {ref}, phone the owner"],
    "G": ["Tracking code {ord}: call the courier.", "ISBN {isbn}; library phone-in renewals", "Receipt no. {inv}, {date}",
          "Special price {price}", "Score {score} ({big} present)", "Locker {cid}, office key", "Open {time} by phone",
          "From {year} to {year2}: {big} calls logged.", "Warranty {ref}", "Beneficiary IBAN {iban}",
          "Flight {ord2}, call the desk", "Parcel ID {ref}, phone support"],
    "H": ["Order {ord} - text us if it hasn't arrived.", "ISBN {isbn}, call the bookshop to reserve",
          "Credit note {inv}, {date}", "Asking price {price} ono, call or text", "Half-time {score}, crowd of {big}",
          "Employee no. {cid}, contact HR by phone", "Helpline hours {time}",
          "Mobile contracts signed between {year} and {year2}: {big}.", "Repair ticket {ref}, hotline support",
          "Refund to IBAN {iban}", "Booking {ord2}, call the hotel desk", "Meter reading {ref}, phone it in by {date}"],
    "I": ["Order {ord} placed on {date} - keep this number handy if you phone us.",
          "Shipped {date} · tracking ID {ref} · the courier will text on the day", "Paperback · ISBN {isbn} · ring the shop to check stock",
          "A deposit of {price} secures the booking; call to pay by card.", "Won {score} on penalties after {minutes} minutes; {big} tickets sold.",
          "{big} km on the clock, full service history, calls only.", "Please quote customer reference {cid} when calling.",
          "Delivery window {time}; the driver rings 30 minutes ahead.", "Built {year}, renovated {year2}, {minutes} m² living space.",
          "Pick-up: locker {ord2}, postcode {post}", "Transfer {price} to {iban} quoting invoice {inv}.",
          "Claim {ref}: our claims line will call you back by {date}."],
}


# Set J (heldout9): written after heldout8's score by a writer who read only this file, not the rules.
_PHONE_J = {
    "en": {"same_line": ["Main line: {x}", "Phone #: {x}", "M: {x}", "Bookings & enquiries — {x}", "Call or text {x}"],
           "line_above": ["{n}\nDirect dial\n{x}", "{c}\n\nTable reservations\n{x}", "Out of hours & weekends\n{x}\n{n}",
                          "{c}\nNew patient appointments:\n{x}\n{e}", "{n} – Lettings Manager\nMobile / WhatsApp\n{x}"],
           "after": ["{x} (text preferred)", "{x} – reception desk", "{x} [mobile]", "{x} (answerphone after 5pm)",
                     "{x} – that's my own mobile, so no calls after 9pm please.", "{x} (toll-free)"],
           "sentence": ["If your child is going to be absent, please let the school office know on {x} before 9:15am.",
                        "Lost: black Labrador near the canal path on Sunday evening, answers to Bruno – any sightings please ring {x}.",
                        "Residents with questions about the new bin collection days can get through to the council's waste team on {x}.",
                        "Over the Christmas break {n} will be covering urgent matters and can be reached on {x}.",
                        "Viewings strictly by appointment with the sole agent – call {x} to arrange a time that suits."],
           "form": ["Parent/guardian: {n}    Contact no.: {x}    Email: {e}",
                    "| Name | Role | Phone |\n|---|---|---|\n| {n} | Treasurer | {x} |",
                    "Your name*: {n}\nMobile (for booking updates)*: {x}\nEmail address*: {e}",
                    "Guest: {n} / Tel.: {x} / Room type: Double / Nights: 2"],
           "prose_no_cue": ["Under {n}'s name on the sign-up sheet someone had added {x}.",
                            "The note tucked under the windscreen wiper just said {x} and was signed {n}."]},
    "de": {"same_line": ["Natel: {x}", "Zentrale {x}", "Tel. Praxis: {x}", "Bestellannahme: {x}", "Telefon/WhatsApp {x}"],
           "line_above": ["{c}\nTischreservierung\n{x}", "{c}\nRechtsanwälte · Termine nach Vereinbarung\n{x}",
                          "Notdienst am Wochenende\n{x}\n{c}", "{n}\nIhr Ansprechpartner im Verkauf\n{x}\n{e}"],
           "after": ["{x} (Natel)", "{x} – bitte auf den AB sprechen", "{x} (nur Mo, Di und Do)", "{x}, ab 18 Uhr privat",
                     "{x} (Empfang)"],
           "sentence": ["Terminabsagen bitte spätestens 24 Stunden vorher telefonisch unter {x}, sonst müssen wir den Termin "
                        "leider in Rechnung stellen.",
                        "Wer am Samstag beim Aufbau des Sommerfests helfen kann, meldet sich bitte kurz bei {n} unter {x}.",
                        "Gefunden: schwarzer Schlüsselbund mit rotem Anhänger am Spielplatz – abzuholen nach kurzem Anruf unter {x}.",
                        "Die Wohnung ist ab sofort frei, bei Interesse einfach durchklingeln: {x}.",
                        "Für Fragen zur Anmeldung steht Ihnen {n} gerne unter {x} zur Verfügung."],
           "form": ["Erziehungsberechtigte/r: {n} – Tel. tagsüber: {x} – E-Mail: {e}",
                    "| Funktion | Name | Telefon |\n| Kassenwart | {n} | {x} |",
                    "Anrede: Herr/Frau\nName: {n}\nTelefon (mit Vorwahl): {x}\nE-Mail: {e}"],
           "prose_no_cue": ["Mit Kreide stand {x} an der Tafel neben dem Eingang, darunter der Name {n}.",
                            "{n} hatte {x} hinten auf den Kassenbon gekritzelt."]},
    "fr": {"same_line": ["Cellulaire : {x}", "Tél. cabinet : {x}", "Réservation au {x}", "Sans frais : {x}", "Accueil : {x}"],
           "line_above": ["{c}\nPour réserver une table\n{x}", "{n}\nMédecin généraliste – Secrétariat\n{x}",
                          "Urgences vétérinaires (nuits, dimanches et jours fériés)\n{x}\n{c}",
                          "{n}\nAgent immobilier – ligne directe\n{x}"],
           "after": ["{x} (cell.)", "{x} – secrétariat", "{x}, poste 4", "{x} (heures de bureau seulement)",
                     "{x} (prix d'un appel local)"],
           "sentence": ["Pour toute absence, merci de prévenir la vie scolaire au {x} avant 9 h.",
                        "Trouvé un chat tigré roux près de la boulangerie, très affectueux : si c'est le vôtre, appelez-moi au {x}.",
                        "Les inscriptions au vide-grenier se font auprès de {n} au {x} ou directement à la mairie.",
                        "Vous pouvez aussi nous texter au {x}, on vous répond dans la journée."],
           "form": ["Nom du parent : {n} / Cellulaire : {x} / Courriel : {e}",
                    "Raison sociale : {c}\nTéléphone (ligne directe) : {x}\nAdresse électronique : {e}",
                    "| Fonction | Nom | Téléphone |\n| Trésorier | {n} | {x} |"],
           "prose_no_cue": ["Au dos de la carte de {n} figurait simplement {x}, sans autre explication.",
                            "{n} a glissé {x} sous la porte avant de repartir."]},
    "es": {"same_line": ["Tel. consultorio: {x}", "Pedidos al {x}", "Servicio al cliente: {x}", "Whats: {x}", "Tfno. fijo: {x}"],
           "line_above": ["{c}\nPedidos a domicilio\n{x}", "{c}\nDespacho de abogados · Cita previa\n{x}",
                          "Urgencias 24 horas\n{x}\n{c}", "{c}\n\nInformes e inscripciones\n{x}\n{e}"],
           "after": ["{x} (solo mensajes)", "{x} (recepción)", "{x}, de 10 a 14 h",
                     "{x} – no se atienden llamadas en fin de semana"],
           "sentence": ["Si te interesa el piso, mándame un wasap al {x} y te paso más fotos.",
                        "Para cualquier duda sobre la inscripción pueden comunicarse con la coordinación al {x} de lunes a viernes.",
                        "Se busca perrito extraviado en la colonia Roma; cualquier información, favor de llamar al {x}.",
                        "Las citas se dan únicamente por teléfono, en el {x}, a partir de las 8:30."],
           "form": ["Padre, madre o tutor: {n} | Celular: {x} | Correo: {e}",
                    "Razón social: {c}\nTeléfono con lada: {x}\nEmail: {e}",
                    "Huésped: {n} · Tel. móvil: {x} · Llegada: viernes"],
           "prose_no_cue": ["Al final de la carta, tras la firma de {n}, venía {x} y nada más.",
                            "{n} me dejó {x} en el dorso de un recibo y se marchó sin decir nada."]},
    "it": {"same_line": ["Tel. studio: {x}", "Prenota al {x}", "Cell./WhatsApp {x}", "Tel. negozio {x}"],
           "line_above": ["{c}\nPer prenotare un tavolo\n{x}", "{n}\nSegreteria didattica\n{x}",
                          "{c}\nAssistenza tecnica\n{x}\n{e}", "Per urgenze fuori orario\n{x}\n{n}"],
           "after": ["{x} (segreteria telefonica)", "{x}, solo pomeriggio", "{x} – chiedere di {n}",
                     "{x} (numero verde gratuito)"],
           "sentence": ["Chi volesse partecipare alla gita è pregato di dare la propria adesione a {n} al numero {x} entro "
                        "fine mese.",
                        "Smarrito mazzo di chiavi con portachiavi rosso in zona stazione, chi lo trovasse chiami il {x}, grazie.",
                        "Per fissare un appuntamento con l'avvocato potete telefonare in studio al {x} dal lunedì al venerdì."],
           "form": ["Genitore: {n} – Cell.: {x} – Mail: {e}", "Ragione sociale: {c}\nTel.: {x}\nPEC: {e}",
                    "Ospite: {n} | Telefono per il check-in: {x} | Arrivo: venerdì"],
           "prose_no_cue": ["Sotto la firma di {n} c'era soltanto {x}, scritto in fretta.",
                            "{n} mi ha allungato un foglietto con {x} e se n'è andato."]},
    "pt": {"same_line": ["Tlm: {x}", "Telef.: {x}", "Reservas e informações: {x}", "Linha de apoio: {x}"],
           "line_above": ["{c}\nMarcações\n{x}", "{n}\nContacto telefónico\n{x}", "{c}\nEncomendas e take-away\n{x}\n{e}"],
           "after": ["{x} (chamada para a rede fixa nacional)", "{x} (chamada para rede móvel nacional)",
                     "{x} – das 9h às 13h", "{x}, peça para falar com {n}"],
           "sentence": ["Para marcar a sua consulta, ligue-nos para o {x} ou passe pela receção.",
                        "Desapareceu uma cadela rafeira perto do jardim municipal; quem a vir, por favor contacte o {x}.",
                        "Os interessados na moradia podem agendar visita com {n} através do {x}."],
           "form": ["Encarregado de educação: {n} | Telemóvel: {x} | Email: {e}",
                    "| Cargo | Nome | Telefone |\n| Tesoureiro | {n} | {x} |",
                    "Hóspede: {n}\nContacto móvel: {x}\nE-mail: {e}"],
           "prose_no_cue": ["No verso do envelope, por baixo do nome de {n}, alguém escreveu {x}.",
                            "{n} deixou-me {x} num talão do supermercado e saiu sem dizer mais nada."]},
    "nl": {"same_line": ["Gsm-nr.: {x}", "Tel. praktijk: {x}", "Reserveren: {x}", "Onthaal: {x}"],
           "line_above": ["{c}\nVoor reservaties\n{x}", "{n}\nWachtdienst (weekend en feestdagen)\n{x}",
                          "{c}\nVragen over uw bestelling?\n{x}\n{e}"],
           "after": ["{x} (enkel sms)", "{x} (secretariaat)", "{x} – liefst na 17 u", "{x}, vraag naar {n}"],
           "sentence": ["Wie wil meehelpen op de kaas- en wijnavond, mag {n} altijd een seintje geven op {x}.",
                        "Verloren: grijs knuffelkonijn aan de schoolpoort – wie het vindt, gelieve te bellen naar {x}.",
                        "Afspraken bij de huisarts maakt u enkel telefonisch via {x}, tussen 8 en 10 u."],
           "form": ["Naam ouder: {n} - Gsm: {x} - E-mail: {e}", "Firma: {c}\nTelefoon (overdag): {x}\nE-mailadres: {e}",
                    "| Functie | Naam | Tel. |\n| Penningmeester | {n} | {x} |"],
           "prose_no_cue": ["Achter op de flyer had {n} {x} gekrabbeld.", "{n} stopte me een papiertje met {x} toe en vertrok."]},
}
for _lang, _t in _PHONE_J.items():
    PHONE_T[_lang]["J"] = _t
ADDRESS_T["J"] = ["{c}\n{x}\n{e}\n\n{a}", "{n}\n{a}\n{e}\n{x}", "{x}\n{n}\n{a}", "{c}\n{a} · {x}", "{n}, {c}\n{a}\n{x}   {e}"]
for _lang, _t in {"en": ["Got a question about your stay? Drop the front desk a line at {e} and mention your arrival date.",
                         "Newsletter items to {e} by the 20th of each month, please.", "Kind regards,\n{n} | {c}\n{e}",
                         "E: {e}"],
                  "de": ["Anmeldungen nimmt {n} gern per Mail unter {e} entgegen.", "Kontakt Elternbeirat: {e}",
                         "Mit freundlichen Grüßen\n{n}\n{c}\n{e}"],
                  "fr": ["Pour recevoir le menu de groupe, écrivez-nous à {e}.", "Courriel du secrétariat : {e}",
                         "Cordialement,\n{n}\n{c}\n{e}"],
                  "es": ["Para reservar el salón para eventos, escríbenos a {e} con la fecha y el número de invitados.",
                         "Correo de la AMPA: {e}", "Atentamente,\n{n}\n{c}\n{e}"],
                  "it": ["Per ricevere un preventivo gratuito scriveteci a {e} indicando i metri quadri da ristrutturare.",
                         "Segreteria: {e}", "Cordiali saluti\n{n}\n{c}\n{e}"],
                  "pt": ["Pedidos de orçamento para {e}, indicando a morada da obra.", "Secretaria da associação: {e}",
                         "Com os melhores cumprimentos,\n{n}\n{c}\n{e}"],
                  "nl": ["Inschrijven voor de eetdag kan via {e} tot eind deze maand.", "Secretariaat: {e}",
                         "Met vriendelijke groeten\n{n}\n{c}\n{e}"]}.items():
    EMAIL_T[_lang]["J"] = _t
DISTRACTOR_T["J"] = [
    "Invoice {inv} · issued {date} · payment due within 14 days. Questions about this invoice? Call our accounts team.",
    "Lot {ord2}: Victorian oak writing desk, estimate {price}. Telephone bids must be registered by {date}.",
    "Registered in England and Wales, company no. {cid}. VAT reg. no. {ref}.",
    "Found on {date} near the park gates: a blue child's bike, frame number {ref}. Phone the parish office to claim it.",
    "Vacancy ref. {inv} · salary {price} per annum · closing date {date}",
    "Booking confirmation #{ord2} · check-in {date} from 3pm · amount paid {price}",
    "Under-12s won {score} on Saturday; training is {time} every Wednesday, text the coach if you can't make it.",
    "Planning application {inv}: comments must reach us by {date}. The planning desk takes calls on weekday mornings.",
    "Double bed frame, {minutes} cm wide, barely used, {price} – collection only, text for photos.",
    "Pay by bank transfer to {iban} using your customer number {cid} as the reference.",
    "Population at the {year2} census: {big} (up since {year}).",
    "Est. {year} · family run since {year2} · free delivery within postcode {post}",
    "Quiz night winners: The Usual Suspects with {minutes} points. Next quiz {date} – ring the bar to reserve a table.",
    "Returns: write RMA {ref} on the parcel and post it back within 30 days of {date}.",
    "Prescription no. {ord2} ready for collection from {date}; phone the pharmacy if you need it delivered.",
    "Book club pick for {date}: ISBN {isbn}, a few copies left at the front desk.",
    "Order {ord} — {price} charged to your card on {date}.",
    "Serial number {ref}, manufactured {year} — keep this with your receipt.",
    "Gates open {time}; {big} tickets already sold for the {year} final.",
]


# Set K (heldout10): written after heldout9's score by a writer who read only this file, not the rules.
_PHONE_K = {
    "en": {"same_line": ["Workshop & showroom: {x}", "Tel (24hr call-out): {x}", "Ph/Fax {x}", "📞 {x}",
                         "Press office tel. {x}"],
           "line_above": ["{c}\n24 hr emergency call-outs\n{x}", "MEDIA CONTACT\n{n}\n{x}\n{e}",
                          "To book your first lesson\n\n{x}\n\n{c}", "{c}\nSpeak to our sales team\n{x}\nMon–Sat 9–6, Sun 11–4",
                          "Family contact\n{n} (son)\n{x}", "Kindergarten office (term time only)\n{x}"],
           "after": ["{x} (after-hours emergencies only)", "{x} — parish office, Tues & Thurs mornings",
                     "{x} ext. 3 for Admissions", "{x} (voicemail checked daily)",
                     "{x} (workshop – not for sales enquiries)", "{x} | text only, I work nights"],
           "sentence": ["Anyone having trouble logging in to the student portal can get help from the IT service desk, "
                        "which picks up on {x} during term time.",
                        "{n}'s family would love to hear your memories of her; please get in touch with them on {x} or "
                        "leave a card with the funeral directors.",
                        "Customers who bought one of the affected kettles should stop using it straight away and phone our "
                        "free recall line on {x} to arrange a refund.",
                        "Double room in a quiet flatshare, bills included – if you're keen, message me on {x} and tell me a "
                        "bit about yourself.",
                        "Trial sessions for the under-10s are free: just turn up on Saturday or give {n} a quick call on {x} "
                        "beforehand."],
           "form": ["Learner name: {n}\nContact phone (mobile preferred): {x}\nEmail: {e}",
                    "Position\tName\tTelephone\nClub Secretary\t{n}\t{x}",
                    "| Phone | Contact | Role |\n|---|---|---|\n| {x} | {n} | Wedding coordinator |",
                    "Seller: {n} — Phone/text: {x} — Email: {e} — Price firm, no swaps"],
           "prose_no_cue": ["On the lid of the old toolbox {n} had painted {x} in white letters.",
                            "The only thing on the back of the photo was {x}, in {n}'s handwriting."]},
    "de": {"same_line": ["Werkstatt: {x}", "Notruf Heizung & Sanitär {x}", "Pfarrbüro: {x}",
                         "Tel./Fax Gästeinformation: {x}", "📱 {x}"],
           "line_above": ["Sprechstunden nur nach telefonischer Anmeldung\n{x}\n{n}", "{c}\nKfz-Meisterbetrieb · Kundendienst\n{x}",
                          "Kindergarten Regenbogen\nLeitung: {n}\n\nTelefon Gruppenraum\n{x}", "Pressekontakt\n{n}\n{c}\n{x}\n{e}",
                          "Fragen zum Rückruf (Mo–Fr 8–20 Uhr, kostenfrei):\n{x}"],
           "after": ["{x} (mobil – während der Fahrstunden nicht erreichbar)", "{x} – rund um die Uhr, auch an Feiertagen",
                     "{x} (Pfarrhaus)", "{x}, DW 15", "{x} (Geschäftsstelle Di + Do)", "{x}, gern auch Signal oder Threema"],
           "sentence": ["Anrufe nimmt die Familie in den kommenden Tagen gern unter {x} entgegen.",
                        "Wer ein betroffenes Gerät besitzt, sollte es nicht weiter verwenden und sich bei unserer "
                        "Service-Hotline melden, die unter {x} montags bis samstags kostenlos erreichbar ist.",
                        "Wasserrohrbruch am Wochenende? Unser Bereitschaftsdienst kommt auch sonntags, ein Anruf unter {x} genügt.",
                        "Ferienwohnung am See, 2–4 Personen, Hunde erlaubt; freie Termine erfragen Sie am besten telefonisch "
                        "direkt bei Familie {n} unter {x}.",
                        "Probetraining ist jederzeit möglich, kurze Anmeldung per Anruf oder SMS an unseren Jugendtrainer "
                        "{n} ({x}) reicht."],
           "form": ["Fahrschüler/in: {n} | Geburtsdatum: 12.03.2007 | Handy: {x} | E-Mail: {e}",
                    "Ansprechperson\t{n}\nTelefon\t{x}\nE-Mail\t{e}",
                    "Verkäufer: privat · Ort: Graz · Tel.: {x} · Preis: VB",
                    "| Name | Telefon | Sprechzeiten |\n| {n} | {x} | Mi 10–12 Uhr |"],
           "prose_no_cue": ["Quer über den Umschlag hatte {n} mit Bleistift {x} geschrieben.",
                            "Im Gästebuch der Hütte stand unter dem Eintrag von {n} nur noch {x}."]},
    "fr": {"same_line": ["Atelier : {x}", "Dépannage 7j/7 : {x}", "☎ {x}", "Tél. office du tourisme : {x}",
                         "Contact presse : {x}"],
           "line_above": ["{c}\nPrise de rendez-vous (cabinet dentaire)\n{x}", "Contact presse\n{n}\n{x}\n{e}",
                          "{c}\nConcessionnaire agréé – service après-vente\n{x}", "Pour joindre la famille :\n{n}\n{x}",
                          "Secrétariat du département de géographie\n\n{x}\n{e}"],
           "after": ["{x} (ligne du gîte, pas de SMS)", "{x} – permanence le mardi de 14 h à 17 h",
                     "{x} (service et appel gratuits)", "{x} (accueil de la crèche)", "{x} après 19 h",
                     "{x} – joignable en soirée et le week-end"],
           "sentence": ["Les personnes en possession d'un lot concerné sont invitées à ne pas le consommer et à contacter le "
                        "service consommateurs au {x}, qui leur indiquera la marche à suivre.",
                        "Une fuite, un chauffe-eau en panne ? Passez-nous un coup de fil au {x}, on intervient dans l'heure "
                        "sur tout le secteur.",
                        "La famille remercie toutes les personnes qui lui ont témoigné leur sympathie ; pour les détails des "
                        "obsèques, on peut s'adresser à {n} par téléphone au {x}.",
                        "Studio meublé près de la gare, libre au 1er septembre, visites le samedi – me contacter par SMS au {x}.",
                        "Les parents qui souhaitent inscrire leur enfant pour la rentrée peuvent appeler la directrice, {n}, "
                        "au {x} les lundis et jeudis."],
           "form": ["Nom de l'élève : {n}\nTél. des parents : {x}\nAdresse mail : {e}",
                    "Vendeur : particulier | Tél : {x} | Prix : à débattre",
                    "Fonction\tNom\tTéléphone\nEntraîneur U11\t{n}\t{x}",
                    "| Téléphone | Responsable | Horaires |\n| {x} | {n} | lun.–ven. 9 h–12 h |"],
           "prose_no_cue": ["Sur le couvercle de la boîte à outils, {n} avait peint {x} en lettres blanches.",
                            "{x} : c'est tout ce qui restait lisible sur l'étiquette de la valise de {n}."]},
    "es": {"same_line": ["Taller: {x}", "Urgencias odontológicas: {x}", "PBX: {x}", "📲 {x}",
                         "Oficina de turismo – tel. {x}"],
           "line_above": ["{c}\nLínea de atención al consumidor (gratuita)\n{x}", "Contacto para medios\n{n}\n{x}\n{e}",
                          "{c}\nCitas para revisión y taller\n{x}", "Información sobre el velorio\n{x}\n{n}",
                          "Inscripciones escuela de fútbol\n\n{x}\n\nPreguntar por {n}"],
           "after": ["{x} (fontanero, también festivos)", "{x} – solo llamadas, no leo mensajes",
                     "{x} ext. 2104 (Secretaría de la Facultad)", "{x}, horario de oficina", "{x} (línea gratuita nacional)"],
           "sentence": ["Si tiene en su poder alguna unidad del lote afectado, deje de utilizarla y comuníquese con nuestra "
                        "línea de atención al {x} para gestionar el reembolso.",
                        "Arriendo apartamento en Chapinero, dos alcobas, con parqueadero; los interesados pueden llamarme o "
                        "escribirme al {x} después de las 6 p. m.",
                        "Para reservar la casa rural en Semana Santa lo mejor es que nos llaméis directamente al {x}, porque "
                        "el correo lo miramos poco.",
                        "Agradecemos a quienes nos acompañaron en estos momentos de dolor; para cualquier información pueden "
                        "llamar a {n}, hija de la difunta, al {x}.",
                        "¿Se te ha atascado el fregadero? Marca el {x} y en menos de una hora tienes a un fontanero en casa."],
           "form": ["Nombre del alumno: {n}\nTeléfono del acudiente: {x}\nCorreo: {e}",
                    "Anunciante: particular · Zona: Chamberí · Tel.: {x} · Precio: 450 €/mes",
                    "Cargo\tNombre\tTeléfono\nEntrenador alevín\t{n}\t{x}",
                    "| Sede | Contacto | Tel. |\n| Principal | {n} | {x} |"],
           "prose_no_cue": ["En la chapa del collar del perro ponía {x} y, debajo, {n}.",
                            "{n} llevaba {x} apuntado en la palma de la mano cuando salió de la fiesta."]},
    "it": {"same_line": ["Officina: {x}", "Pronto intervento idraulico {x}", "Segreteria parrocchiale: {x}",
                         "Infopoint turistico: {x}", "☎️ {x}"],
           "line_above": ["{c}\nPrenotazione visite e igiene dentale\n{x}", "Contatti per la stampa\n{n}\n{x}\n{e}",
                          "{c}\nConcessionaria – reparto usato\n{x}", "Per informazioni sulle esequie\n{x}\n{n}",
                          "Scuola dell'infanzia – ufficio iscrizioni\n\n{x}"],
           "after": ["{x} (reperibilità idraulico, anche festivi)", "{x} – rispondo dopo le 18",
                     "{x} (int. 2 per la segreteria studenti)", "{x} (numero fisso dell'agriturismo)",
                     "{x} (no messaggi, solo chiamate)"],
           "sentence": ["Chi fosse in possesso di una confezione del lotto richiamato è invitato a non consumare il prodotto "
                        "e a rivolgersi al servizio consumatori al numero {x}.",
                        "Affittasi bilocale arredato in centro, a due passi dall'università, solo a studenti: per vederlo "
                        "telefonatemi al {x} dopo cena.",
                        "La famiglia ringrazia quanti hanno partecipato al suo dolore; per comunicazioni è possibile "
                        "contattare {n} al {x}.",
                        "Chi vuole iscrivere il proprio figlio al corso di minibasket può rivolgersi all'istruttore {n}, "
                        "che risponde al {x} nei giorni feriali."],
           "form": ["Nome dell'allievo: {n}\nTel. di un genitore: {x}\nE-mail: {e}",
                    "Inserzionista: privato – Zona: Navigli – Tel.: {x} – Prezzo: trattabile",
                    "Ruolo\tNominativo\tTelefono\nAllenatore Under 12\t{n}\t{x}"],
           "prose_no_cue": ["{n} teneva {x} scritto a pennarello sul polso per non dimenticarlo.",
                            "Tra le pagine del libro restituito da {n} c'era un segnalibro con sopra {x}."]},
    "pt": {"same_line": ["Oficina: {x}", "Plantão 24h: {x}", "Secretaria paroquial {x}", "📱 {x}",
                         "Assessoria de imprensa – tel. {x}"],
           "line_above": ["{c}\nAgende sua avaliação odontológica\n{x}", "Assessoria de imprensa\n{n}\n{x}\n{e}",
                          "{c}\nSeminovos – fale com um consultor\n{x}", "Para falar com a família\n{n}\n{x}",
                          "Matrículas abertas para a educação infantil\n\n{x}"],
           "after": ["{x} (encanador, atende fim de semana)", "{x} – só WhatsApp, não atendo ligação", "{x} ramal 2231",
                     "{x} (fixo da pousada)", "{x} (após as 19h)"],
           "sentence": ["Consumidores que adquiriram produtos do lote indicado devem suspender o uso e entrar em contato "
                        "gratuitamente com o SAC pelo {x} para a troca.",
                        "Alugo casa na praia para temporada, 3 quartos, até 8 pessoas; chama no zap {x} que eu mando as fotos.",
                        "A família agradece as manifestações de carinho e informa que a missa de sétimo dia será na Matriz; "
                        "quem quiser falar com {n} pode ligar no {x}.",
                        "As aulas experimentais de futsal para crianças de 6 a 12 anos são gratuitas, basta agendar com o "
                        "professor {n} pelo telefone {x}."],
           "form": ["Nome do aluno: {n}\nTelefone do responsável: {x}\nE-mail: {e}",
                    "Anunciante: particular | Bairro: Pinheiros | Fone: {x} | Valor: R$ 1.200",
                    "Cargo\tNome\tTelefone\nTécnico sub-11\t{n}\t{x}"],
           "prose_no_cue": ["No canto do caderno de receitas da avó, {n} encontrou {x} escrito a lápis.",
                            "{n} trazia {x} tatuado no antebraço, e ninguém sabia por quê."]},
    "nl": {"same_line": ["Werkplaats: {x}", "Storingsdienst cv & loodgieter: {x}", "Rijschool – tel. {x}",
                         "Parochiesecretariaat {x}", "Persvoorlichting: {x}"],
           "line_above": ["{c}\nAfspraak tandarts of mondhygiënist\n{x}", "Voor de pers\n{n}\n{x}\n{e}",
                          "{c}\nOccasions – verkoopadviseur\n{x}", "Contact met de familie\n{n}\n{x}",
                          "Aanmelden voor de peuterspeelzaal\n\n{x}\n(op werkdagen tussen 9 en 12 uur)"],
           "after": ["{x} (storingsnummer, ook in het weekend)", "{x} – liever appen dan bellen", "{x}, toestel 37",
                     "{x} (receptie camping)", "{x} (overdag, niet op woensdag)"],
           "sentence": ["Heeft u een product uit deze partij, gebruik het dan niet en neem contact op met onze "
                        "consumentenservice via het gratis nummer {x}.",
                        "Te huur: gemeubileerde kamer in Utrecht-Oost, €650 all-in, per 1 oktober; bellen of appen naar {x}.",
                        "Wij danken iedereen voor het medeleven; voor vragen over de uitvaart is {n} telefonisch "
                        "bereikbaar op {x}.",
                        "Lekkage of verstopping? Eén telefoontje naar {x} en onze monteur staat binnen een uur bij u op de stoep.",
                        "Jeugdleden mogen drie keer gratis meetrainen; meld je even aan bij trainer {n} via {x}."],
           "form": ["Naam leerling: {n}\nTelefoon ouder/verzorger: {x}\nE-mail: {e}",
                    "Aanbieder: particulier | Plaats: Zwolle | Tel.: {x} | Vraagprijs: n.o.t.k.",
                    "Functie\tNaam\tTelefoon\nTrainer JO11\t{n}\t{x}"],
           "prose_no_cue": ["{n} had {x} met stift op de binnenkant van de schoenendoos geschreven.",
                            "Achter in het gastenboek van het vakantiehuisje stond {x}, ondertekend door {n}."]},
}
for _lang, _t in _PHONE_K.items():
    PHONE_T[_lang]["K"] = _t
ADDRESS_T["K"] = ["{c}\n\n{n}\n{a}\n\n{x}", "{n} ({x})\n{a}\n{e}", "{a}\n{e}\n{x}\n{c}", "{c}\t{x}\n{a}",
                  "{a}\n{x} • {e} • www.example.org"]
for _lang, _t in {"en": ["RSVPs to {e} by 1 June, please, with any dietary requirements.",
                         "Condolences may be sent to the family at {e}.", "Media contact: {n}, {c}\n{e}", "email » {e}"],
                  "de": ["Fotos und Beiträge für den nächsten Pfarrbrief bitte bis Monatsende an {e}.",
                         "Kondolenzschreiben können Sie auch an {e} richten.", "Pressekontakt: {n}, {c}, {e}",
                         "Reservierungsanfragen Ferienwohnung: {e}"],
                  "fr": ["Merci de confirmer votre présence au mariage avant le 15 mai à {e}.",
                         "Les messages de condoléances peuvent être adressés à {e}.", "Relations presse : {n} – {e}",
                         "Mail ➜ {e}"],
                  "es": ["Confirmen su asistencia a la boda antes del 30 de abril escribiendo a {e}.",
                         "Sus mensajes de condolencia pueden enviarse a {e}.", "Prensa: {n}, {c} — {e}", "✉ {e}"],
                  "it": ["Per confermare la presenza al matrimonio scrivete entro il 10 maggio a {e}.",
                         "Messaggi di cordoglio possono essere inviati a {e}.", "Rapporti con i media: {n}, {e}",
                         "Posta elettronica → {e}"],
                  "pt": ["Confirme sua presença no casamento até 20 de maio pelo e-mail {e}.",
                         "Mensagens de condolências podem ser enviadas para {e}.", "Assessoria de imprensa: {n} | {c} | {e}",
                         "✉️ {e}"],
                  "nl": ["Laat vóór 1 mei even weten of je op de bruiloft komt via {e}.",
                         "Condoleances kunt u ook sturen naar {e}.", "Persinformatie: {n}, {c}, {e}", "mail → {e}"]}.items():
    EMAIL_T[_lang]["K"] = _t
DISTRACTOR_T["K"] = [
    "Product recall: batch {ref}, best before {date}. You do not need to phone us – simply return the item to any store.",
    "VIN ending {ord2} · first registered {year2} · {big} miles · call the showroom to book a test drive",
    "Driving test booking reference {cid}; to change the date, ring the test centre at least 3 working days before {date}.",
    "Registered charity no. {ord2} · Company limited by guarantee no. {cid}",
    "Roof appeal: {price} raised so far. Phone the parish office if you would like to set up a standing order.",
    "Student ID {cid} – please quote it whenever you phone or email the registry.",
    "Holiday let, {minutes} m² with garden, from {price} per week, minimum stay 3 nights; text for availability.",
    "Lost property ref. {ref} – please have it ready when you call.",
    "Funeral service on {date} at 11am; in lieu of flowers, donations may be made to account {iban}.",
    "Offer valid until {date} or while stocks last (promo {ord}). Terms apply – see in store or call for details.",
    "Kit order {ord}: shirts are {price} each, please pay the coach by {date}.",
    "The Seniors lost {score} away from home in front of {big}; next home game {date}, ground open {time}.",
    "Model no. {ref}, lot {ord2} – check the label on the base before calling our helpline.",
    "Seats up to {minutes} guests for the wedding breakfast; packages from {price}; next open day {date}.",
    "Tax ref. {cid} · Account {iban} · Invoice {inv}",
    "First sold in {year}, fully restored {year2}, chassis no. {ref}. Genuine enquiries only, phone or text.",
    "Ticket {ord} · Row F, seat 23 · doors {time} · text STOP to opt out of reminders",
    "Bin collections for postcode {post} move to {date}; only call the council if yours is missed twice.",
    "Set text for the autumn term: ISBN {isbn}; the department office can order copies.",
]


# Set L (heldout11): written after heldout10's score by a writer who read only this file, not the rules.
_PHONE_L = {
    "en": {"same_line": ["Salon: {x}", "Taxi bookings (24/7) {x}", "Dispensary direct line – {x}",
                         "Out-of-hours IT support: {x}", "Hostel front desk {x}", "Tel/text {x}"],
           "line_above": ["{c}\nCuts, colour & blow-dries – walk-ins welcome, or book ahead on\n{x}",
                          "{c}\nFree home survey for your move\n{x}\nFully insured · Est. 1987",
                          "Neighbourhood Watch – street coordinator\n{n}\n{x}\n{e}",
                          "{c}\nNew claims and policy changes\n\n{x}",
                          "Trip leader's mobile (emergencies only, please)\n{n}\n{x}",
                          "Library renewals & enquiries\n{x}\nSelf-service kiosks are available whenever we're open."],
           "after": ["{x} (salon landline – we can't take bookings by text)",
                     "{x} – airport runs, station pick-ups, and we're licensed for 8-seaters",
                     "{x} (ask for the pharmacist if it's about your medication)",
                     "{x} is the farm shop, not the farmhouse, so please don't call after 5.",
                     "{x} (warden's caravan)", "{x} option 2 for remote support, option 3 for billing"],
           "sentence": ["If your flight is delayed, don't worry – our drivers track arrivals, but it helps if you ring the "
                        "control room on {x} once you've got your bags.",
                        "Parents who haven't yet returned the consent form for the Year 8 trip to the Peak District should "
                        "phone the school office as soon as possible; the number is {x}.",
                        "Housebound patients can have repeat prescriptions dropped off at home – just phone your order "
                        "through before midday and our driver will bring it round that afternoon ({x}).",
                        "Lessons carry on through half-term, so if your child would like to try the cello or the drums "
                        "before committing, give {n} at the music school a ring on {x}.",
                        "Our translators handle birth certificates, diplomas and court papers in over 30 languages, and "
                        "for urgent jobs the quickest way to reach us is by phone, on {x}."],
           "form": ["Pupil: {n}\nEmergency contact number: {x}\nParent/carer email: {e}\nMedical needs: none",
                    "Your driver\t{n}\nVehicle\tSilver Skoda Octavia\nMobile\t{x}",
                    "Policyholder: {n}   Preferred contact: phone   Number: {x}   Email: {e}",
                    "Item: upright piano | Condition: needs tuning | Collection only | Contact: {n} on {x}"],
           "prose_no_cue": ["Many thanks to {n} ({x}) for lending us the gazebo for Saturday's plant sale.",
                            "Lifts to the away game: meet at the clubhouse at half twelve, or sort something out "
                            "with {n}, {x}."]},
    "de": {"same_line": ["Salon: {x}", "Taxi-Zentrale {x}", "Apotheke, Rezeptvorbestellung: {x}",
                         "IT-Hotline für Vereinsmitglieder – {x}", "Hofladen (Bestellungen) {x}", "Mobil (auch SMS): {x}"],
           "line_above": ["{c}\nFriseurtermine bitte nur telefonisch\n{x}",
                          "Zügeln ohne Stress – kostenlose Offerte und Besichtigung\n{x}\n{c}",
                          "Notariat {n}\nTerminvereinbarung\n{x}\n{e}",
                          "Jugendherberge – Rezeption\n\n{x}\n\n(täglich 7–22 Uhr)",
                          "Ansprechpartnerin Nachbarschaftshilfe\n{n}\n{x}"],
           "after": ["{x} (Salon, Di–Sa)", "{x} – auch Großraumtaxi und Krankenfahrten",
                     "{x} (Apotheke am Markt, Notdienst siehe Aushang)", "{x}, Büro des Platzwarts",
                     "{x} (Hofladen, bitte aufs Band sprechen)", "{x} – Fernwartung: Taste 2"],
           "sentence": ["Wer sich für den Gitarrenunterricht interessiert, kann bei {n} in der Musikschule eine "
                        "unverbindliche Schnupperstunde vereinbaren, am besten telefonisch unter {x}.",
                        "Für die Klassenfahrt nach Berlin fehlen uns noch einige Einverständniserklärungen; bitte geben "
                        "Sie diese bis Freitag ab oder melden Sie sich im Sekretariat unter {x}.",
                        "Schäden nehmen wir auch am Wochenende auf: einfach {x} wählen und die Versicherungsscheinnummer "
                        "bereithalten.",
                        "Beglaubigte Übersetzungen ins Englische und Französische erledigen wir meist innerhalb von drei "
                        "Werktagen – für ein Angebot rufen Sie uns an oder schicken Sie uns die Unterlagen ({x}).",
                        "Seit Anfang des Monats liefern wir Ihre Medikamente auch nach Hause; Bestellungen nimmt unser "
                        "Team bis 11 Uhr unter {x} entgegen."],
           "form": ["Name des Kindes: {n}\nNotfallnummer der Eltern: {x}\nE-Mail: {e}\nAllergien: keine",
                    "Fahrer: {n} · Fahrzeug: schwarzer Passat Kombi · Mobil: {x}",
                    "Versicherungsnehmer/in\t{n}\nRückrufnummer\t{x}\nE-Mail\t{e}",
                    "| Stellplatz | Name | Telefon | Anreise |\n| 14 | {n} | {x} | Fr |"],
           "prose_no_cue": ["Ein herzliches Dankeschön an {n} ({x}), die uns für das Gemeindefest ihre Bierbänke "
                            "geliehen hat.",
                            "Gleich neben den Fingersätzen hatte {n} {x} ins Notenheft eingetragen."]},
    "fr": {"same_line": ["Salon de coiffure : {x}", "Réservation taxi {x}", "Pharmacie de garde ce week-end : {x}",
                         "Soutien informatique – {x}", "Accueil de l'auberge {x}", "Info-biblio : {x}"],
           "line_above": ["{c}\nPrenez rendez-vous en ligne ou par téléphone\n{x}",
                          "Déménagements {c}\nDevis gratuit sous 48 h\n{x}",
                          "Office notarial de Maître {n}\nStandard\n{x}\n{e}",
                          "Camping municipal – bureau d'accueil\n\n{x}\n\nOuvert d'avril à octobre",
                          "Référent « Voisins vigilants » du lotissement\n{n}\n{x}"],
           "after": ["{x} (salon, du mardi au samedi)", "{x} – taxi conventionné, transport de malades assis",
                     "{x} (officine)", "{x}, c'est la ligne de la ferme pour les commandes de paniers",
                     "{x} (poste de l'animateur, laissez un message)", "{x} au besoin — c'est mon cellulaire"],
           "sentence": ["Pour les cours de piano, de violon ou de guitare, {n} répond aux questions des familles le "
                        "mercredi après-midi au {x}.",
                        "En cas de sinistre, prévenez votre agent dans les plus brefs délais en composant le {x} et "
                        "munissez-vous de votre numéro de contrat.",
                        "La médiathèque propose le portage de livres à domicile aux personnes qui ne peuvent plus se "
                        "déplacer ; pour s'inscrire, un simple coup de téléphone au {x} suffit.",
                        "Les parents peuvent joindre l'accompagnateur du voyage à Québec en tout temps au {x}, mais on "
                        "vous demande de laisser les jeunes profiter de leur séjour!",
                        "Si vous remarquez un véhicule qui tourne dans le quartier à la tombée de la nuit, prévenez {n} "
                        "au {x} ou la gendarmerie."],
           "form": ["Nom de l'enfant : {n}\nPersonne à prévenir en cas d'urgence : {x}\nCourriel : {e}",
                    "Client : {n} — Prise en charge : 7 h 15 — Tél. portable : {x}",
                    "Emplacement\tNom\tTéléphone\tArrivée\n23\t{n}\t{x}\tvendredi",
                    "Objet : traduction assermentée | Langues : FR > DE | Vos coordonnées : {n}, {x}, {e}"],
           "prose_no_cue": ["Un grand merci à {n} ({x}) qui a prêté les barnums pour la fête des voisins.",
                            "Sur le tableau de liège de la salle communale, quelqu'un avait épinglé une fiche au nom "
                            "de {n}, et dessous {x}."]},
    "es": {"same_line": ["Peluquería: {x}", "Radiotaxi {x}", "Farmacia (encargos): {x}", "Soporte técnico – {x}",
                         "Albergue, recepción: {x}", "Cel. {x}"],
           "line_above": ["{c}\nPedí tu turno\n{x}", "Mudanzas y guardamuebles {c}\nPresupuesto sin compromiso\n{x}",
                          "Notaría de {n}\nCitas para firmas\n{x}\n{e}",
                          "Camping – oficina de recepción\n\n{x}\n\nHorario de verano: de 8 a 22 h",
                          "Coordinador de la vigilancia vecinal\n{n}\n{x}"],
           "after": ["{x} (solo turnos, no damos precios por teléfono)", "{x} – servicio de taxi las 24 horas",
                     "{x} (farmacia de guardia)", "{x} (tienda de la granja, abre los sábados)",
                     "{x}, es mi celu, escribime a la tarde", "{x} – asistencia remota, opción 3"],
           "sentence": ["Las clases de prueba en la escuela de música son gratuitas; para reservar la tuya llama a {n} "
                        "al {x} de lunes a jueves por la tarde.",
                        "Si durante el viaje de estudios necesitan comunicarse con el profesor responsable, pueden "
                        "hacerlo a cualquier hora al {x}.",
                        "¿Tuviste un choque? Tu productor de seguros te atiende en el {x} y te ayuda a completar la "
                        "denuncia paso a paso.",
                        "Realizamos traducciones juradas de inglés, francés y alemán; para un presupuesto, envíenos el "
                        "documento escaneado o llámenos al {x}.",
                        "La biblioteca renueva préstamos por teléfono: basta con tener a mano el carné de socio y "
                        "marcar el {x} antes de la fecha de devolución."],
           "form": ["Alumno/a: {n}\nTeléfono de contacto para emergencias: {x}\nCorreo electrónico: {e}",
                    "Pasajero: {n} | Recogida: 06:40 | Móvil: {x} | Vuelo: IB3170",
                    "Parcela\tTitular\tTeléfono\n31\t{n}\t{x}",
                    "Asegurado: {n} · Tel. de contacto: {x} · Email: {e} · Siniestro: rotura de cristales"],
           "prose_no_cue": ["Gracias a {n} ({x}) por prestarnos las mesas y las sillas para la fiesta del barrio.",
                            "{n} guardaba {x} en un papelito doblado dentro de la funda de la guitarra."]},
    "it": {"same_line": ["Salone: {x}", "Radiotaxi {x}", "Farmacia – prenotazione farmaci: {x}",
                         "Assistenza informatica {x}", "Ostello, reception: {x}", "Numero fisso: {x}"],
           "line_above": ["{c}\nPrenota il tuo appuntamento\n{x}", "Traslochi {c}\nSopralluogo e preventivo gratuiti\n{x}",
                          "Studio notarile {n}\nSegreteria\n{x}\n{e}", "Campeggio – ufficio accoglienza\n\n{x}",
                          "Referente del controllo di vicinato\n{n}\n{x}"],
           "after": ["{x} (salone, chiuso il lunedì)", "{x} – servizio taxi anche per l'aeroporto",
                     "{x} (farmacia di turno)", "{x}, spaccio aziendale", "{x} (biblioteca comunale, sala ragazzi)",
                     "{x} – assistenza da remoto, tasto 1"],
           "sentence": ["Per le lezioni di prova alla scuola di musica basta mettersi d'accordo con {n}, che risponde "
                        "al {x} il martedì e il giovedì pomeriggio.",
                        "Durante la gita a Firenze i genitori potranno contattare la docente accompagnatrice al {x} "
                        "solo in caso di reale necessità.",
                        "In caso di sinistro chiami subito il suo agente al {x}, tenendo a portata di mano il numero di "
                        "polizza.",
                        "Per un preventivo di traduzione giurata inviateci il documento oppure telefonate al {x}: vi "
                        "rispondiamo in giornata.",
                        "Gli abitanti del quartiere che notano movimenti sospetti possono segnalarli a {n} al {x}, "
                        "oltre che alle forze dell'ordine."],
           "form": ["Alunno/a: {n}\nRecapito telefonico di un genitore: {x}\nE-mail: {e}",
                    "Cliente: {n} – Partenza: ore 5:30 – Cellulare: {x}",
                    "Piazzola\tNominativo\tTelefono\n18\t{n}\t{x}",
                    "Contraente: {n} | Tel.: {x} | Email: {e} | Tipo di polizza: RC auto"],
           "prose_no_cue": ["Si ringrazia {n} ({x}) per aver messo a disposizione i gazebo per la sagra.",
                            "Nella custodia del violino di {n} c'era un foglietto ingiallito con {x}."]},
    "pt": {"same_line": ["Cabeleireiro: {x}", "Táxis {x}", "Farmácia – encomendas: {x}", "Apoio informático: {x}",
                         "Pousada de juventude, receção: {x}", "Tel. da loja: {x}"],
           "line_above": ["{c}\nMarque já o seu horário\n{x}", "Mudanças {c}\nOrçamento grátis\n{x}",
                          "Cartório Notarial de {n}\nAtendimento ao público\n{x}\n{e}",
                          "Parque de campismo – receção\n\n{x}",
                          "Responsável pela vigilância do bairro\n{n}\n{x}"],
           "after": ["{x} (salão, de terça a sábado)", "{x} – táxis 24 horas, serviço para o aeroporto",
                     "{x} (farmácia de serviço)", "{x}, loja da quinta",
                     "{x} (secretaria da escola de música)", "{x} – assistência remota, opção 2"],
           "sentence": ["As aulas experimentais na escola de música são gratuitas; para marcar, fale com {n} pelo {x} "
                        "às quartas à tarde.",
                        "Durante a visita de estudo a Coimbra, os encarregados de educação podem contactar o professor "
                        "responsável através do {x}.",
                        "Em caso de sinistro, ligue ao seu mediador de seguros para o {x} e tenha consigo o número da "
                        "apólice.",
                        "Fazemos traduções certificadas em vários idiomas; peça o seu orçamento pelo {x} ou passe pelo "
                        "nosso escritório.",
                        "Se notar algo de estranho na rua, contacte {n} pelo {x} e, em caso de urgência, a PSP."],
           "form": ["Nome do aluno: {n}\nContacto de emergência: {x}\nEmail: {e}",
                    "Cliente: {n} · Recolha: 6h00 · Telemóvel: {x}",
                    "Lote\tNome\tTelefone\n12\t{n}\t{x}",
                    "Tomador do seguro: {n} | Telefone: {x} | Email: {e} | Ramo: automóvel"],
           "prose_no_cue": ["Um agradecimento especial a {n} ({x}) pelo empréstimo das tendas para o arraial.",
                            "Dentro do estojo da flauta de {n} estava um papelinho dobrado com {x}."]},
    "nl": {"same_line": ["Kapsalon: {x}", "Taxicentrale {x}", "Apotheek – bestellingen: {x}",
                         "Helpdesk informatica: {x}", "Jeugdherberg – balie {x}", "Gsm {x}"],
           "line_above": ["{c}\nMaak je afspraak\n{x}", "Verhuizingen {c}\nGratis prijsofferte\n{x}",
                          "Notariskantoor {n}\nSecretariaat\n{x}\n{e}",
                          "Camping – receptie\n\n{x}\n\nIn het hoogseizoen dagelijks van 8 tot 22 u",
                          "BIN-coördinator (buurtinformatienetwerk)\n{n}\n{x}"],
           "after": ["{x} (kapsalon, maandag gesloten)", "{x} – taxi's dag en nacht, ook luchthavenvervoer",
                     "{x} (apotheek van wacht)", "{x}, hoevewinkel", "{x} (bibliotheek, uitleenbalie)",
                     "{x} – hulp op afstand, keuze 2"],
           "sentence": ["Proeflessen in de muziekacademie zijn gratis; maak een afspraak met {n} via {x} op "
                        "woensdagnamiddag.",
                        "Tijdens de schoolreis naar de Ardennen kunnen ouders de begeleidende leerkracht in dringende "
                        "gevallen bereiken op {x}.",
                        "Schade aan uw wagen? Bel uw verzekeringsmakelaar op {x} en houd uw polisnummer bij de hand.",
                        "Voor beëdigde vertalingen Frans-Nederlands vraagt u vrijblijvend een offerte aan op {x}.",
                        "Zie je iets verdachts in de straat, verwittig dan {n} op {x} en in dringende gevallen de politie."],
           "form": ["Naam leerling: {n}\nNoodnummer ouders: {x}\nE-mail: {e}",
                    "Klant: {n} · Ophaling: 05u45 · Gsm: {x}",
                    "Standplaats\tNaam\tTel.\n27\t{n}\t{x}",
                    "Verzekeringnemer: {n} | Telefoon: {x} | E-mail: {e} | Polis: brand"],
           "prose_no_cue": ["Met dank aan {n} ({x}) voor het uitlenen van de partytenten op de buurtbarbecue.",
                            "In de vioolkoffer van {n} zat een verfrommeld briefje met {x}."]},
}
for _lang, _t in _PHONE_L.items():
    PHONE_T[_lang]["L"] = _t
ADDRESS_T["L"] = ["{n} · {c}\n{a}\n{x}", "--\n{n}\n{c}\n{a}\n{x}", "{c}\n{a}\n\n{e} · {x}", "{a}\n\n{n}\n{x}",
                  "{c} / {n}\n{x}\n{e}\n{a}"]
for _lang, _t in {"en": ["You are receiving this because you joined the allotment society's mailing list. To leave, send a "
                         "blank message to {e} with 'unsubscribe' in the subject line.",
                         "Renewals and reservations by email: {e}",
                         "Please scan the signed reply slip and return it to {e}, or hand it to your child's form tutor.",
                         "Cheers,\n{n}\nU12s manager\n{e}"],
                  "de": ["Sie möchten den Rundbrief nicht mehr erhalten? Eine kurze Nachricht an {e} genügt.",
                         "Verlängerungen und Vormerkungen per Mail: {e}",
                         "Ihre Unterlagen für ein unverbindliches Übersetzungsangebot senden Sie bitte als PDF an {e}.",
                         "Sportliche Grüße aus der Jugendabteilung\n{n}\n{e}"],
                  "fr": ["Pour vous désabonner de cette liste, envoyez un message vide à {e}.",
                         "Prolongations de prêt par courriel : {e}",
                         "Le coupon-réponse peut être scanné et renvoyé à {e} avant le 12.",
                         "À bientôt au club !\n{n} – {e}"],
                  "es": ["Para darte de baja de esta lista, mandá un correo vacío a {e}.",
                         "Renovaciones y reservas de libros por correo: {e}",
                         "Devuelvan la autorización firmada, escaneada, a {e} antes del viernes.",
                         "Un saludo desde la escuela de música,\n{n}\n{e}"],
                  "it": ["Per cancellarti dalla mailing list dell'associazione invia un messaggio vuoto a {e}.",
                         "Rinnovo dei prestiti via mail: {e}",
                         "L'autorizzazione firmata può essere scansionata e rimandata a {e} entro venerdì.",
                         "Un saluto dalla Pro Loco\n{n}\n{e}"],
                  "pt": ["Para deixar de receber esta newsletter, envie uma mensagem em branco para {e}.",
                         "Renovação de empréstimos por email: {e}",
                         "A autorização assinada pode ser digitalizada e enviada para {e} até sexta-feira.",
                         "Saudações desportivas,\n{n}\n{e}"],
                  "nl": ["Uitschrijven voor deze nieuwsbrief? Stuur een lege mail naar {e}.",
                         "Verlengen en reserveren via mail: {e}",
                         "Het ondertekende strookje mag ingescand teruggestuurd worden naar {e}, ten laatste vrijdag.",
                         "Sportieve groeten,\n{n}\n{e}"]}.items():
    EMAIL_T[_lang]["L"] = _t
DISTRACTOR_T["L"] = [
    "Library card no. {cid} – you'll need it, and your PIN, to renew by phone.",
    "Prescription ref. {ref} ready to collect from {date}. Please don't ring before then; our delivery arrives after lunch.",
    "Removal quote {inv}, valid until {date}: {price} including packing materials. Call us to confirm your moving day.",
    "Policy number {ref} – keep it handy when you phone the claims line.",
    "Deed no. {inv}, executed {date} before the notary.",
    "Grade 5 piano exam: {minutes} marks out of 150. Certificates were posted on {date}.",
    "Support ticket #{ord2} opened {date}. An engineer will call you back – no need to log a new ticket for the same fault.",
    "Last time out: {score} at home, {big} through the turnstiles. Next fixture {date}, kick-off 3pm.",
    "Crime reference {ref}. If you saw anything that night, please contact the police quoting this reference.",
    "Winning raffle ticket: {ord2}. If it's yours, ring the club to arrange collection.",
    "Gift voucher {ord} · value {price} · expires {date} – book by phone and quote the voucher code.",
    "Hostel membership card {cid}, valid until {date}.",
    "Term fees {price} for ten lessons, by bank transfer to {iban}; please use your child's name as the reference.",
    "Sworn translation no. {inv} · {minutes} pages · certified on {date}",
    "Road closed {date}, {time}, for the village fun run; households in postcode {post} will get a letter.",
    "IT asset tag {ref}, serial no. {ord} – read both out when you call the service desk.",
    "{year} four-berth caravan, new awning fitted {year2}, {price} – viewing at the farm, text first.",
    "Digest no. {ord2}, volume {year}: {minutes} messages today.",
    "Pitch booking {ord}: arriving {date}, gates locked at 11pm – text the warden if you're running late.",
    "Customer account {cid} · meter serial {ref} · your next bill is due on {date}",
]


# Set M (heldout12): written after heldout11's score by a writer who read only this file, not the rules.
_PHONE_M = {
    "en": {"same_line": ["Surgery reception {x}", "Cell # {x}", "FREE QUOTES – CALL {x}", "Enquiries line: {x}",
                         "Ph (BH): {x}", "SMS/text: {x}",
                         "W www.example.com.au | E {e} | P {x}"],
           "line_above": ["{c}\nPlumbing · Gas · Heating\nCall now for a no-obligation quote\n{x}",
                          "{n}, MBBS\nSurgery hours by appointment – telephone\n{x}",
                          "ENQUIRIES & BOOKINGS (phone or text)\n{x}\n{e}",
                          "{n}, PTA chair\nPhone after 6pm\n{x}",
                          "Cell (best way to reach me)\n{x}\n{n}",
                          "Rooms to let – ring the landlady\n{x}\n(no agents, no cold calls)"],
           "after": ["{x} – that's the surgery, not my mobile", "{x} (home phone, there's an answering machine)",
                     "{x} – the workshop phone, {n} usually picks up", "{x} (text me, I'm on site all day)",
                     "{x} is the B&B landline; mobile signal up here is patchy.", "{x} – {n}'s cell"],
           "sentence": ["Our Christmas hampers sell out fast, so if you'd like one put aside just give the shop a call – "
                        "we're on {x} until 5:30 most days.",
                        "The landlord lives two doors down and is happy to show the flat on weekday evenings; you can "
                        "get hold of him by phone on {x}.",
                        "Anyone who can help with Friday's bake sale, please let {n} know by phone ({x}) or pop a note "
                        "in your child's book bag.",
                        "G'day all – the ute's still for sale and reckon it's worth a look, so flick me a text on {x} "
                        "or come by the farm on the weekend.",
                        "Out of hours, the practice phone is diverted to the on-call vet; the number to use for "
                        "emergencies is {x}.",
                        "We'd love to hear from anyone who played for the club in the seventies – {n} is collecting "
                        "stories for the centenary and can be phoned on {x}."],
           "form": ["Name | Unit | Phone | Move-in\n{n} | 4B | {x} | 1 March",
                    "Bill to: {n}\nAccount phone: {x}\nEmail for receipts: {e}",
                    "Emergency contact (name & cell): {n}, {x}",
                    "Guest name: {n}; Check-in: Fri; Guests: 2; Contact phone: {x}",
                    "Volunteer\tShift\tMobile\n{n}\tSat 9–12\t{x}",
                    "Caller: {n} — Callback no.: {x} — Re: boiler service"],
           "prose_no_cue": ["{n} – {x} – has the spare keys to the hall while the caretaker is away.",
                            "Tickets for the quiz night from {n} ({x}) or behind the bar.",
                            "Ride share to the regional final: {n}, {x}, still has two seats.",
                            "Fresh eggs at the gate, honesty box – {n}, {x}.",
                            "Scrawled on the whiteboard in the staff room: {x}, {n}, Tuesday.",
                            "Two-seater sofa, free to a good home – {n}, {x}."]},
    "de": {"same_line": ["Jetzt anrufen: {x}", "Tel. Ordination: {x}", "Ruf {x}", "Buchung & Info: {x}",
                         "Telefonische Auskunft {x}", "Mobiltel. {x}", "WhatsApp/SMS an {x}",
                         "Internet www.example.at | E-Mail {e} | Telefon {x}"],
           "line_above": ["{c}\nMalerarbeiten · Fassaden · Bodenbeläge\nKostenloser Kostenvoranschlag unter\n{x}",
                          "Ordination {n}\nTerminvereinbarung telefonisch:\n{x}",
                          "Gästehaus {n}\nZimmer frei – Reservierung per Telefon\n{x}",
                          "Elternvertretung Klasse 3b\n{n}, abends am Handy:\n{x}",
                          "{n}\n{c}\nDirektwahl\n{x}\n{e}",
                          "Mietanfragen bitte nur telefonisch\n{x}\n(keine Makleranfragen)"],
           "after": ["{x} (Ordination, nur vormittags)", "{x} – ist mein Diensthandy", "{x} (Mailbox, Rückruf garantiert)",
                     "{x}, Festnetz der Pension", "{x} = Handy vom Vermieter", "{x} (Bereitschaftshandy)"],
           "sentence": ["Die Wohnung kann am Samstag besichtigt werden; bitte vorher kurz bei {n} anrufen, die Nummer "
                        "lautet {x}.",
                        "In der Urlaubswoche bleibt die Ordination geschlossen, in dringenden Fällen hebt die "
                        "Vertretungsärztin unter {x} ab.",
                        "Wer beim Vereinsheurigen mithelfen mag, bitte einfach bei {n} durchrufen ({x}) – jede Hand zählt!",
                        "Ist Ihr Kind krank, rufen Sie bitte bis 7:45 Uhr im Sekretariat an ({x}) oder schreiben Sie "
                        "eine Nachricht über die Schul-App.",
                        "Der Malerbetrieb ist ab Montag wieder für Sie da, Aufträge nehmen wir am liebsten per Telefon "
                        "entgegen: {x}.",
                        "Den Schlüssel für den Vereinsraum hat diesmal {n}, zu erreichen unter {x}, auch spätabends "
                        "noch am Telefon."],
           "form": ["Rechnungsempfänger: {n}\nKundennr.: 40817\nTelefon: {x}\nE-Mail: {e}",
                    "| Dienst | Name | Handy |\n| Samstag | {n} | {x} |",
                    "Gast: {n} · Zimmer 12 · Anreise Do · Tel.: {x}",
                    "Mieter/in: {n}; Tel. (tagsüber erreichbar): {x}; Einzug ab: 1.4.",
                    "Patient/in\t{n}\nTelefon privat\t{x}\nVersicherung\tÖGK",
                    "Bestellt von: {n} – Lieferung bis an die Haustür – Rückruf-Nr.: {x}"],
           "prose_no_cue": ["Mitfahrgelegenheit zum Auswärtsspiel: {n}, {x}, hat noch zwei Plätze frei.",
                            "Eier vom Hof gibt's bei {n} – {x} – solange der Vorrat reicht.",
                            "Kuchenspenden für den Flohmarkt bitte mit {n} absprechen ({x}).",
                            "Am Schwarzen Brett hing ein Zettel: „Nachhilfe Mathe, {n}, {x}“.",
                            "{n} ({x}) hat die Schlüssel für die Turnhalle.",
                            "Kinderwagen abzugeben, gut erhalten, {n}, {x}."]},
    "fr": {"same_line": ["N° natel {x}", "Tél. boutique : {x}", "Appelez-nous au {x}", "Secrétariat médical : {x}",
                         "Tél./SMS : {x}", "Renseignements au {x}", "Standard téléphonique {x}",
                         "Site : www.example.ch — Courriel : {e} — Tél. {x}"],
           "line_above": ["{c}\nPlomberie – chauffage – dépannage\nDevis gratuit, appelez le\n{x}",
                          "Chambres d'hôtes chez {n}\nRéservations par téléphone\n{x}",
                          "Cabinet de kinésithérapie\nPour un RDV, composez le\n{x}",
                          "{n}\nAssociation des parents d'élèves\nLe soir, sur mon portable :\n{x}",
                          "{n}\nService clientèle – {c}\nLigne fixe\n{x}\n{e}",
                          "À louer, 3 pièces, libre de suite\nRenseignements par téléphone :\n{x}"],
           "after": ["{x} (natel, pas de SMS)", "{x} – numéro du cabinet, répondeur hors horaires",
                     "{x} (fixe de la maison d'hôtes)", "{x}, c'est le portable de {n}",
                     "{x} aux heures des repas, appels uniquement", "{x} (ligne directe du gérant)"],
           "sentence": ["Le club de pétanque recrute ! Pour essayer, passez au boulodrome le jeudi ou téléphonez à {n} "
                        "au {x}.",
                        "Pour les réservations de groupe (plus de 8 personnes), merci de nous appeler directement : "
                        "le {x} répond dès 10 h.",
                        "{n}, qui enseigne en CE2, se tient à la disposition des parents ; on peut lui laisser un "
                        "message à l'école au {x}.",
                        "Appartement lumineux de 3,5 pièces à Lausanne, loyer 1850 CHF charges comprises ; visites sur "
                        "rendez-vous en téléphonant au {x}.",
                        "En dehors des heures d'ouverture, votre appel au {x} est transféré au médecin de garde.",
                        "Le livreur n'a trouvé personne ; il repassera demain, mais vous pouvez aussi le rappeler au "
                        "{x} pour convenir d'un créneau."],
           "form": ["Facturé à : {n}\nTél. : {x}\nCourriel : {e}\nConditions : 30 jours net",
                    "| Poste | Nom | Natel |\n| Caissier | {n} | {x} |",
                    "Locataire : {n} · Appartement : 2e étage gauche · Téléphone : {x}",
                    "Nom du patient : {n} ; Tél. fixe ou portable : {x} ; Mutuelle : oui",
                    "Bénévole\tCréneau\tPortable\n{n}\tsamedi matin\t{x}",
                    "Expéditeur : {n} – Tél. destinataire : {x} – Poids : 2 kg"],
           "prose_no_cue": ["Covoiturage pour le match de dimanche : {n}, {x}, a encore deux places.",
                            "Œufs frais de la ferme : {n} ({x}).",
                            "Pour les gâteaux de la kermesse, voyez avec {n} – {x} – avant mercredi.",
                            "Cours de maths tous niveaux, {n}, {x}, tarif étudiant.",
                            "{n} ({x}) garde les chats du quartier pendant les vacances.",
                            "Vends canapé trois places, très bon état, 150 €, {n}, {x}."]},
    "es": {"same_line": ["Llama ya: {x}", "Tel. particular: {x}", "Cel. y WhatsApp: {x}",
                         "Comida para llevar, tfno. {x}", "Reservaciones al {x}", "Teléfono y fax {x}",
                         "Web: www.example.com.mx · Email: {e} · Tel. {x}"],
           "line_above": ["{c}\nElectricista autorizado · Boletines · Averías\nPresupuestos sin compromiso, llame al\n{x}",
                          "Casa rural {n}\nReservas por teléfono o WhatsApp\n{x}",
                          "Consultorio pediátrico\nCitas por teléfono:\n{x}",
                          "{n}\nDepartamento de ventas · {c}\nTel. directo\n{x}\n{e}",
                          "SE RENTA DEPARTAMENTO AMUEBLADO\nInformes al tel.\n{x}",
                          "Peña flamenca del barrio\nTesorería: {n}\nMóvil\n{x}"],
           "after": ["{x} (cel., mándame mensaje primero)", "{x} – teléfono de la tienda, no de la casa",
                     "{x} (fijo del consultorio)", "{x}, es el móvil de {n}", "{x} (llamar de 9 a 14 h, por favor)",
                     "{x} (teléfono de guardias, solo urgencias)"],
           "sentence": ["Si quieres apuntarte al torneo de pádel del sábado, avísale a {n} por teléfono al {x} antes "
                        "del jueves.",
                        "Estimadas familias: cuando un alumno vaya a faltar, les pedimos que lo comuniquen llamando a "
                        "conserjería al {x} a primera hora.",
                        "Se traspasa bar en pleno centro por jubilación, con clientela fija; interesados, llamar a {n} "
                        "al {x} por las mañanas.",
                        "¿Se te descompuso el boiler? Márcanos al {x} y te mandamos un técnico el mismo día.",
                        "Para el menú del día no hace falta reservar, pero los grupos de más de diez personas deben "
                        "avisar por teléfono (el {x}) con un día de antelación.",
                        "Fuera de horario, el teléfono de la clínica desvía la llamada al veterinario de guardia: {x}."],
           "form": ["Factura a nombre de: {n}\nNIF: —\nTeléfono: {x}\nCorreo: {e}",
                    "| Voluntario | Turno | Celular |\n| {n} | Sábado mañana | {x} |",
                    "Huésped: {n} · Habitación doble · Noches: 3 · Tel. de contacto: {x}",
                    "Nombre completo del alumno: {n}\nTeléfono de casa: {x}\nCURP: en trámite",
                    "Paciente\t{n}\nTeléfono\t{x}\nAseguradora\tparticular",
                    "Destinatario: {n} – Tel.: {x} – Colonia: Del Valle – C.P.: 03100"],
           "prose_no_cue": ["Para compartir coche al partido del domingo: {n}, {x}, tiene dos plazas.",
                            "Vendo huevos de corral – {n}, {x}.",
                            "Las tortas para la kermés se coordinan con {n} – {x} – antes del miércoles.",
                            "Se ofrece señora para limpieza por horas, con referencias: {n}, {x}.",
                            "Las llaves del local social las tiene {n}, {x}.",
                            "{n}, {x}, saca a pasear perros del barrio los fines de semana."]},
    "it": {"same_line": ["Telefonare al {x}", "Tel. ambulatorio {x}", "Cell. (anche SMS) {x}", "Prenotazioni camere: {x}",
                         "N. tel. {x}", "Tel./fax bottega: {x}", "www.example.it – {e} – tel. {x}"],
           "line_above": ["{c}\nImpianti elettrici e idraulici · Caldaie\nPreventivi gratuiti, chiamate il\n{x}",
                          "B&B {n}\nPrenotazioni telefoniche\n{x}",
                          "Studio medico associato\nPer appuntamenti telefonare al\n{x}",
                          "{n}\nResponsabile commerciale – {c}\nTel. diretto\n{x}\n{e}",
                          "AFFITTASI trilocale arredato, no agenzie\nPer informazioni chiamare ore serali\n{x}",
                          "Comitato genitori – scuola primaria\n{n}, rappresentante di classe, risponde al\n{x}"],
           "after": ["{x} (cellulare del titolare)", "{x} – è il fisso del B&B", "{x} (ambulatorio, solo mattina)",
                     "{x}, telefono di {n}", "{x} (segreteria, vi richiamiamo noi)", "{x} (reperibile h24)"],
           "sentence": ["Chi desidera iscriversi al torneo di burraco può telefonare a {n} al {x} entro giovedì sera.",
                        "Gentili genitori, in caso di assenza dell'alunno vi preghiamo di avvisare la segreteria con "
                        "una telefonata al {x} entro le 8:30.",
                        "Vendesi Fiat Panda del 2012, unico proprietario, tagliandi regolari; per vederla fate uno "
                        "squillo a {n} al {x} dopo le 19.",
                        "Vi si è rotta la caldaia? Chiamateci al {x} e un tecnico arriva in giornata.",
                        "La pizzeria fa anche asporto: ordinate per telefono al {x} e passate a ritirare dopo venti "
                        "minuti.",
                        "Fuori dall'orario di studio le chiamate al {x} vengono deviate alla guardia medica."],
           "form": ["Intestatario fattura: {n}\nCodice destinatario: —\nTel.: {x}\nEmail: {e}",
                    "Cognome e nome\tCell.\tTurno\n{n}\t{x}\tdomenica pomeriggio",
                    "Ospite: {n} – Camera matrimoniale – Notti: 2 – Telefono: {x}",
                    "Conduttore: {n}, tel. {x}, decorrenza del contratto 1° marzo",
                    "Paziente\t{n}\nTel. abitazione\t{x}\nMedico curante\tdott. Rossi",
                    "Mittente: {n} – Tel. destinatario: {x} – Colli: 1"],
           "prose_no_cue": ["Passaggio per la partita di domenica: {n}, {x}, ha due posti liberi.",
                            "Uova fresche di giornata da {n} ({x}).",
                            "Per i dolci della festa parrocchiale mettetevi d'accordo con {n}, {x}.",
                            "Ripetizioni di latino e greco, {n}, {x}, prezzi modici.",
                            "Le chiavi della sala le ha {n} ({x}).",
                            "Cercasi babysitter per due bimbi il martedì pomeriggio: {n}, {x}."]},
    "pt": {"same_line": ["Orçamentos pelo {x}", "Tel. da clínica: {x}", "WhatsApp (só mensagens): {x}",
                         "Celular e WhatsApp: {x}", "Reservas da pousada: {x}", "Tel. residencial {x}",
                         "Disk entrega: {x}", "Site: www.example.com.br | E-mail: {e} | Fone {x}"],
           "line_above": ["{c}\nElétrica · Hidráulica · Pintura\nOrçamento sem compromisso, ligue\n{x}",
                          "Pousada {n}\nReservas por telefone\n{x}",
                          "Consultório odontológico\nAgendamentos por telefone:\n{x}",
                          "{n}\nGerente comercial | {c}\nTel. direto\n{x}\n{e}",
                          "Aluga-se apartamento 2 quartos\nTratar pelo telefone\n{x}",
                          "Associação de Pais e Mestres\nFalar com {n} pelo celular\n{x}"],
           "after": ["{x} (celular do dono)", "{x} – fixo da loja, não do depósito", "{x} (consultório, só pela manhã)",
                     "{x}, telefone de {n}", "{x} (caixa postal, retornamos a ligação)", "{x} (plantão, só emergências)"],
           "sentence": ["Quem quiser participar do campeonato de truco no sábado é só ligar para {n} no {x} até "
                        "quinta-feira.",
                        "Senhores pais, em caso de falta do aluno pedimos que avisem a secretaria da escola por "
                        "telefone, no {x}, até as 8h.",
                        "Vendo Gol 2014 completo, único dono, revisões em dia; quem tiver interesse pode me ligar no "
                        "{x} depois das 18h.",
                        "Chuveiro queimou? Liga pro {x} que a gente manda um eletricista hoje mesmo.",
                        "A pizzaria também faz entrega: peça pelo telefone, o número é {x}, e em 40 minutos está na "
                        "sua casa.",
                        "Fora do horário de atendimento, as chamadas para o {x} são desviadas para o veterinário de "
                        "plantão."],
           "form": ["Cliente: {n}\nCPF: ***.***.***-**\nTelefone: {x}\nE-mail: {e}",
                    "Nome\tCelular\tFunção\n{n}\t{x}\ttesoureiro(a)",
                    "Pedido nº 3471 · Cliente: {n} · Fone p/ entrega: {x} · Troco para R$ 50",
                    "Locatário: {n}; telefone fixo ou celular: {x}; início do contrato: 1º de março",
                    "Aluno(a): {n} | Série: 5º ano | Celular da mãe ou do pai: {x}",
                    "Destinatário: {n} – Fone: {x} – Bairro: Vila Mariana – CEP: 04101-000"],
           "prose_no_cue": ["Carona para o jogo de domingo: {n}, {x}, ainda tem duas vagas.",
                            "Ovos caipiras à venda: {n} ({x}).",
                            "Os doces da quermesse são combinados com {n} – {x} – até quarta.",
                            "Aulas particulares de matemática, {n}, {x}, preço camarada.",
                            "A chave do salão fica com {n}, {x}.",
                            "Procuro diarista para as sextas-feiras: {n}, {x}."]},
    "nl": {"same_line": ["Bel nu {x}", "Doktersassistente: {x}", "06-nummer: {x}", "Boekingen: {x}", "Tel. winkel {x}",
                         "Telefonisch spreekuur: {x}", "App of bel: {x}", "W www.example.nl | E {e} | T {x}"],
           "line_above": ["{c}\nSchilderwerk · Glaszetten · Onderhoud\nVrijblijvende offerte? Bel\n{x}",
                          "B&B {n}\nReserveren via de telefoon\n{x}",
                          "Fysiotherapie {c}\nAfspraken telefonisch:\n{x}",
                          "{n}\nAccountmanager | {c}\nDoorkiesnummer\n{x}\n{e}",
                          "Te huur: appartement 2 kamers\nInfo en bezichtiging, bellen naar\n{x}",
                          "Oudercommissie groep 5\n{n}, na 18 uur te bellen op\n{x}"],
           "after": ["{x} (mobiel van de eigenaar)", "{x} – vaste lijn van de winkel", "{x} (praktijk, alleen 's ochtends)",
                     "{x}, dat is het 06'je van {n}", "{x} (voicemail, wij bellen terug)", "{x} (spoedlijn, alleen bij nood)"],
           "sentence": ["Wie mee wil doen aan het klaverjastoernooi op zaterdag, geeft zich op door {n} vóór donderdag "
                        "even te bellen ({x}).",
                        "Beste ouders, is uw kind ziek, meld dit dan vóór 8.15 uur telefonisch bij de administratie: {x}.",
                        "Te koop: Gazelle damesfiets, 7 versnellingen, net nieuwe banden; kijken kan na een belletje "
                        "naar {x}.",
                        "Cv-ketel kapot? Bel {x} en onze monteur komt nog dezelfde dag.",
                        "De snackbar bezorgt ook: bestellen kan telefonisch tot 21.00 uur, het nummer is {x}.",
                        "Buiten openingstijden wordt u als u {x} belt doorgeschakeld naar de dierenarts van dienst."],
           "form": ["Debiteur: {n}\nTelefoon: {x}\nE-mail: {e}\nBetaling: iDEAL",
                    "Naam\tMobiel\tTaak\n{n}\t{x}\tkantinedienst",
                    "Gast: {n} · Tweepersoonskamer · Nachten: 3 · Tel.: {x}",
                    "Huurder: {n}; vast of mobiel nummer: {x}; ingangsdatum: 1 maart",
                    "Lid: {n} | Team: JO13-2 | Tel. ouders: {x} | Contributie: betaald",
                    "Ophaaladres bij {n} · tel. {x} · grofvuil: 2 m³"],
           "prose_no_cue": ["Meerijden naar de uitwedstrijd: {n}, {x}, heeft nog twee plekken.",
                            "Scharreleieren te koop bij {n}, {x}.",
                            "De taarten voor de rommelmarkt regelt {n} – {x}.",
                            "Bijles wiskunde, {n}, {x}, studententarief.",
                            "De sleutel van het buurthuis ligt bij {n} ({x}).",
                            "Oppas gezocht voor woensdagmiddag, twee kinderen: {n}, {x}."]},
}
for _lang, _t in _PHONE_M.items():
    PHONE_T[_lang]["M"] = _t
ADDRESS_T["M"] = ["{c} · {a} · {x}", "{n}\n{c}\n{a}\n{e}  |  {x}", "{x}\n{e}\n—\n{n}\n{a}", "{c}\n{a}\n\n{n} · {x}",
                  "{n} <{e}>\n{a}\n{x}"]
for _lang, _t in {"en": ["Photos for the club newsletter to {e}, please – full size if you can.",
                         "Invoices and remittance advice: {e}",
                         "Cottage bookings are best made by writing to {e}; we usually reply the same day.",
                         "Thanks,\n{n}\nOffice manager, {c}\nE {e}"],
                  "de": ["Fotos für die Vereinszeitung schickt ihr bitte an {e}.", "Rechnungen bitte ausschließlich an {e}",
                         "Anfragen zur Ferienwohnung beantworten wir am schnellsten, wenn Sie an {e} schreiben.",
                         "Liebe Grüße\n{n}\n{c} · {e}"],
                  "fr": ["Envoyez vos photos pour le bulletin du club à {e}, en pleine résolution si possible.",
                         "Factures et avis de paiement : {e}",
                         "Pour réserver le gîte, le plus simple est d'écrire à {e} ; réponse sous 24 h.",
                         "Bien à vous,\n{n}\n{c}\nMail : {e}"],
                  "es": ["Manden sus fotos para el boletín del club a {e}, en buena resolución.",
                         "Facturación: {e}",
                         "Para reservar la casa rural, lo más cómodo es escribir a {e}; contestamos en el día.",
                         "Saludos cordiales,\n{n}\n{c} | {e}"],
                  "it": ["Mandate le foto per il notiziario del circolo a {e}, possibilmente ad alta risoluzione.",
                         "Amministrazione e fatture: {e}",
                         "Per prenotare l'appartamento vacanze il modo più rapido è scrivere a {e}.",
                         "Buona giornata,\n{n}\n{c} – {e}"],
                  "pt": ["Mandem as fotos para o informativo do clube para {e}, em boa resolução.",
                         "Financeiro: {e}",
                         "Para reservar a casa de praia, o mais fácil é escrever para {e}; respondemos no mesmo dia.",
                         "Abraços,\n{n}\n{c} | {e}"],
                  "nl": ["Foto's voor het clubblad graag naar {e}, liefst in hoge resolutie.",
                         "Facturen uitsluitend naar {e}",
                         "Voor boekingen van het vakantiehuis kunt u het beste mailen naar {e}; we reageren dezelfde dag.",
                         "Groetjes,\n{n}\n{c} · {e}"]}.items():
    EMAIL_T[_lang]["M"] = _t
DISTRACTOR_T["M"] = [
    "Parcel {ref} is out for delivery today; the driver may phone if nobody is home to sign for it.",
    "Meter reading taken on {date}: {ord2} kWh. Call the freephone line or submit it online before your bill is issued.",
    "Please pay {price} to {iban}, reference {cid}, and give the treasurer a ring once it has gone through.",
    "Booking ref. {ord} – show this at check-in; there is no need to phone ahead.",
    "Full time: Rovers {score} City, attendance {big}. Contact the ticket office about the replay.",
    "Cream {minutes} g of butter with the sugar and bake at 180°C; this recipe, from the {year} parish cookbook, serves six.",
    "Model no. {ref}, serial {ord2}: quote both when you contact customer care about your phone.",
    "Mileage {big}, MOT until {date}, one owner since {year} – call after 6, no time-wasters.",
    "Account holder no. {cid} — the automated phone line will ask you to key this in.",
    "Invoice {inv} dated {date}: {price}. For billing questions contact accounts, quoting the invoice number.",
    "Club lotto: ticket {ord2} won {price} in the draw on {date}; the winner has been phoned.",
    "Flat {minutes}, postcode {post} – the caretaker will text residents when the water is back on.",
    "ISBN {isbn}. To order a copy, phone the shop or ask at the till.",
    "Gas safety certificate no. {ref}, issued {date}; the engineer will ring to book the next check.",
    "Opening hours {time}; phone orders placed before noon are delivered the same day within postcode {post}.",
    "Your planning fee for application {inv} ({price}) has been received; contact the office with any questions.",
    "Warranty registration {ref} for model {ord2}, bought {date}; keep this card in case you need to call the service centre.",
    "Pitch fees {year}: {price} per season, payable to {iban} by {date}; text the treasurer when paid.",
    "Hospital number {cid}, clinic appointment {date} at 10:40 – ring the clinic if you cannot attend.",
    "Route {minutes} runs {time} on weekdays; call the travel line for holiday changes.",
    "Hall hire {year2}: {price} per evening, capacity {minutes}, deposit reference {ord} – bookings by phone only.",
]


# Set N (heldout13): written after heldout12's score by a writer who read only this file, not the rules.
_PHONE_N = {
    "en": {"same_line": ["Match-day contact (c): {x}", "Lost property office – ph. {x}", "Sitter's cell #: {x}",
                         "RSVP by phone — {x}", "Grinds in Maths & Irish, {n}, mob. {x}",
                         "Reservations dept. direct: {x}", "Parts & labour queries ☏ {x}"],
           "line_above": ["{c}\nEst. 1994 · Fully insured · No call-out charge\nMobile\n{x}",
                          "Pet sitting & dog walking\nTo book a meet-and-greet, ring {n}:\n{x}",
                          "Alarm keyholder (first to be called)\n{x}\n{n}",
                          "Community garden – watering rota\nSwaps? Text {n} on\n{x}",
                          "Repair Café, every second Saturday\nNot sure we can fix it? Give us a buzz first\n{x}",
                          "{n}\nChoir secretary\nHome phone (evenings)\n{x}\n{e}"],
           "after": ["{x} (c) – {n}, head coach", "{x} (h), after 7 on weeknights", "{x} – front desk, staffed overnight",
                     "{x} ← text this number with your plot letter and the week you can't water",
                     "{x} is the vestry phone; Father Tom's own number is on the noticeboard.",
                     "{x} (garage landline – quotes over the phone are rough figures only)",
                     "{x}, that's my daughter's cell, she handles the bookings"],
           "sentence": ["If you left a jacket, goggles or a lunchbox at the leisure centre, the lost property team holds "
                        "everything for a month – give them a call at {x} with a description.",
                        "We can only hold your room past 6 pm with a card guarantee, so please let reception know on {x} "
                        "if your flight gets in late.",
                        "Kindly let us know by the first of June whether you can join us; {n} is taking replies on {x}, "
                        "or you can post back the little card.",
                        "The heating in Block C will be off on Tuesday while the pump is replaced, so any tenant with a "
                        "baby or a health condition should ring the property manager, {n}, on {x} and we'll bring a heater.",
                        "Your car is ready to collect and came in under the quote; if you'd like someone to talk you "
                        "through the work, the service desk will pick up at {x}.",
                        "Fancy a table at the Christmas craft fair? They go quickly, so get your name down by calling "
                        "{n} at {x} this week.",
                        "Our sitter is CPR-certified and free most weekends – her mom {n} arranges interviews and can be "
                        "reached at {x}."],
           "form": ["Stallholder: {n} · Stall no. 17 · Pitch fee paid: yes · Mob.: {x}",
                    "Guest name ........... {n}\nArrival .............. Friday\nTelephone on file ..... {x}\n"
                    "Email on file ........ {e}",
                    "Plot | Gardener | Phone\nB4 | {n} | {x}",
                    "Child's name: Ava   Allergies: peanuts   Parent: {n}   Cell: {x}   Pediatrician: Dr Lee",
                    "Pet: Biscuit (cat) — Owner: {n} — Owner's mobile while away: {x} — Vet: {c}",
                    "Choir member\tVoice\tHome phone\n{n}\tAlto\t{x}"],
           "prose_no_cue": ["Hand-knitted baby blankets from {n} – {x} – at the stall just inside the door.",
                            "Found by the swings: a child's blue raincoat. {n}, {x}.",
                            "Flowers for the Advent Sundays: first week {n}, {x}; second week the Walshes.",
                            "Homework club needs helpers on Thursdays – see {n}, {x}.",
                            "{n} ({x}) will be running the café till while Maureen is on holiday.",
                            "Lunch orders for Friday's away match to {n} at {x} by Wednesday."]},
    "de": {"same_line": ["Tel. G: {x}", "Jugendleiter Fußball, Handy {x}", "Fundbüro im Bürgerbüro – Durchwahl {x}",
                         "Zahnarztpraxis {n} · Telefon {x}", "Tischreservierung Café am Markt: {x}",
                         "Babysitterin gesucht – Rückmeldung an {x}"],
           "line_above": ["Kleingartenverein „Sonnenblick“ e. V.\nGießdienst-Koordination, Handy:\n{x}",
                          "Ihre professionelle Zahnreinigung ist vorgemerkt.\nVerhindert? Bitte rechtzeitig absagen unter\n{x}",
                          "Hausverwaltung {c}\nHausmeister / Störungsmeldungen\n{x}\n{e}",
                          "Fundsachen bitte bei\n{n}\nabgeben oder vorher anrufen:\n{x}",
                          "Kinderbetreuung auf Abruf\nAnfragen per SMS oder Anruf\n{x}",
                          "{c} – Karosserie & Lack\nRückfragen zu Ihrem Kostenvoranschlag\n{x}"],
           "after": ["{x} (Tel. G, tagsüber)", "{x} – unser Mesmer, falls die Kirche abgeschlossen ist",
                     "{x} (Hauswart, nur bei Notfällen ausserhalb der Bürozeiten)", "{x} (Natel der Trainerin)",
                     "{x} – Rezeption, auch nachts besetzt", "{x} anrufen und Stand reservieren"],
           "sentence": ["Das Heimspiel gegen den FC Oberdorf wird wegen des unbespielbaren Platzes verlegt; ob am "
                        "Donnerstag trainiert wird, erfahrt ihr bei Trainer {n} unter {x}.",
                        "Wer am Sonntag einen Kuchen für das Kirchencafé backen möchte, trägt sich in die Liste am "
                        "Schriftenstand ein oder ruft {n} an ({x}).",
                        "Ab Montag werden im Treppenhaus die Fenster erneuert; bei Fragen erreichen Sie die Verwaltung "
                        "werktags zwischen 9 und 12 Uhr unter {x}.",
                        "Ihr Fahrzeug ist fertig und kann ab 16 Uhr abgeholt werden – passt Ihnen das nicht, melden "
                        "Sie sich bitte kurz unter {x}.",
                        "Wir freuen uns auf eure Zu- oder Absage bis Ende April, am liebsten per Anruf bei {n}, {x}.",
                        "Für ein unverbindliches Kennenlernen mit unserer Tagesmutter genügt ein Telefon auf {x}."],
           "form": ["Helferliste Weihnachtsmarkt – Name: {n} · Schicht: Sa 14–18 Uhr · Tel.: {x}",
                    "Anmeldung Nachhilfe\nSchüler/in: {n}\nKlasse: 8\nTelefon der Eltern: {x}\nE-Mail: {e}",
                    "Beet\tPächter/in\tTelefon\n7a\t{n}\t{x}",
                    "Auftraggeber: {n} | Fahrzeug: VW Golf | Kennz.: M-AB 123 | Rückrufnummer: {x}",
                    "Name: {n}\nTel. P: {x}\nTel. G: –\nE-Mail: {e}",
                    "Tierhalter/in: {n}; Tier: Kater Moritz; Notfallkontakt (Handy): {x}"],
           "prose_no_cue": ["Zugelaufen: grau getigerte Katze, sehr zutraulich – {n}, {x}.",
                            "Altarschmuck im Mai: {n}, {x}; im Juni übernimmt Familie Weber.",
                            "Selbstgemachte Marmeladen und Honig gibt es am Stand von {n}, {x}, gleich neben dem Eingang.",
                            "Neu im Team der Nachmittagsbetreuung: {n}, {x}.",
                            "Die Tombolapreise hat dieses Jahr {n} gesammelt ({x}), herzlichen Dank!",
                            "Auf dem Einkaufszettel stand unter „Milch, Eier, Brot“ noch {x} und der Name {n}."]},
    "fr": {"same_line": ["Tél. rés. : {x}", "Service des objets trouvés : {x}", "Résa : {x}", "Nounou dispo, tél. {x}",
                         "Presbytère : {x}", "Dépannage auto 24/24 — {x}", "Rappel de vos rendez-vous – cabinet : {x}"],
           "line_above": ["Club de soccer Les Aigles – entraîneur U9\n{n}\nCell.\n{x}",
                          "Jardin partagé des Lilas\nPour l'arrosage pendant les vacances, un texto à\n{x}",
                          "{c}\nRappel : votre détartrage est prévu mardi à 9 h 30\nEmpêchement ? Merci d'appeler le "
                          "cabinet au\n{x}",
                          "Gestion immobilière {c}\nLigne d'urgence (dégât d'eau, panne de chauffage)\n{x}",
                          "Chez {n} – pension pour chats\nPour réserver la garde de votre minou, téléphonez au\n{x}",
                          "Marché de Noël des artisans\nInscriptions des exposants par téléphone\n{x}\n{e}"],
           "after": ["{x} (rés.) – pas d'appels après 21 h", "{x} : c'est la réception de l'hôtel, ouverte jour et nuit",
                     "{x} (secrétariat du cabinet, fermé le mercredi)", "{x} – laissez un texto, je rappelle entre deux cours",
                     "{x} poste 221 – bureau du gestionnaire de l'immeuble", "{x} à appeler si la chaudière fait des siennes"],
           "sentence": ["Les objets oubliés dans les vestiaires sont gardés jusqu'à la fin du mois ; pour récupérer les "
                        "vôtres, adressez-vous à l'accueil de la piscine au {x}.",
                        "Nous serions heureux de vous compter parmi nous le 21 juin ; merci de nous dire si vous serez "
                        "des nôtres en appelant {n} au {x} avant le 15 mai.",
                        "Le devis pour les plaquettes et les disques s'élève à 340 € ; si vous voulez que l'on commande "
                        "les pièces, rappelez l'atelier au {x}.",
                        "Votre chambre est confirmée pour deux nuits ; si vous arrivez après 22 h, prévenez la réception "
                        "au {x}, faute de quoi la réservation pourrait être annulée.",
                        "Si vous désirez donner un coup de main pour la guignolée, vous pouvez rejoindre {n} au {x} en "
                        "soirée.",
                        "Étudiante en médecine, je donne des cours de maths et de physique au secondaire ; laissez-moi un "
                        "message vocal au {x} et je vous rappelle."],
           "form": ["Feuille de présence – chorale\nNom : {n} | Pupitre : soprano | Tél. dom. : {x}",
                    "Parcelle n° 14 | Jardinier : {n} | Portable : {x} | Semaine d'arrosage : juillet",
                    "Client : {n}\nVéhicule : Clio IV\nKilométrage : 84 000\nTél. pour l'accord du devis : {x}",
                    "Nom du parent : {n}\nTél. (rés.) : {x}\nTél. (bur.) : —\nCourriel : {e}",
                    "Exposant\tStand\tTéléphone\n{n}\tallée B\t{x}",
                    "Propriétaire de l'animal : {n} – Joignable pendant l'absence au : {x} – Vétérinaire : Dr Martin"],
           "prose_no_cue": ["Trouvé un trousseau de clés devant la boulangerie : {n}, {x}.",
                            "Fleurs de l'église pour Pâques : {n} ({x}) coordonne, merci de la prévenir.",
                            "Confitures maison, miel de lavande et tricots : {n}, {x}, stand près de la fontaine.",
                            "Garde de chiens à domicile dans Rosemont et la Petite-Patrie – {n}, {x}.",
                            "{n} – {x} – s'occupe de la clé du local à vélos cette année.",
                            "Au dos du faire-part, d'une écriture ronde : {n}, {x}."]},
    "es": {"same_line": ["Canguro con experiencia – móvil {x}", "Turnos odontológicos: {x}",
                         "Objetos perdidos, conserjería: {x}", "Consultas al {x}", "Administración de fincas {c} · tel. {x}",
                         "Cel. del profe: {x}", "Encargos de tartas al {x}"],
           "line_above": ["Club Atlético Villa Real – Infantiles\nDelegado: {n}\nCel.:\n{x}",
                          "Huerto comunitario La Acequia\nPara los turnos de riego, apúntate llamando al\n{x}",
                          "{c}\nLe recordamos su cita del jueves a las 10:15\nSi no puede venir, avísenos al\n{x}",
                          "Consorcio Av. Rivadavia – encargado\nUrgencias de plomería y ascensor\n{x}",
                          "Paseador y cuidador de perros\nConsultá disponibilidad por WhatsApp\n{x}",
                          "Feria de artesanos de la plaza\nInformación para puesteros\n{x}\n{e}"],
           "after": ["{x} (cel. del encargado del edificio)", "{x} – recepción del hotel, atendemos toda la noche",
                     "{x} (fijo, de 17 a 20 h)", "{x}, mandame un mensajito y te llamo",
                     "{x} – pregunta por {n} en el taller", "{x} para confirmar asistencia a la boda"],
           "sentence": ["Si perdiste algo en el polideportivo, pasá por conserjería o llamá al {x} y contanos qué era y "
                        "dónde lo dejaste.",
                        "El presupuesto del cambio de embrague asciende a 480 euros con mano de obra; si le da el visto "
                        "bueno, llámenos al {x} y pedimos la pieza.",
                        "La reunión de vecinos es el martes a las 19:30; quien no pueda asistir puede delegar su voto "
                        "avisando al administrador, {n}, en el {x}.",
                        "Nos haría mucha ilusión que nos acompañarais el día de la boda; confirmad asistencia antes del "
                        "1 de mayo llamando a {n} al {x}.",
                        "Doy clases particulares de inglés a alumnos de primaria y ESO; si os interesa, dadme un toque "
                        "al {x} y quedamos para una primera clase.",
                        "Los fines de semana conviene reservar, sobre todo los grupos: el teléfono del café es el {x} y "
                        "lo atendemos desde las ocho."],
           "form": ["Voluntario/a: {n} – Puesto: guardarropa – Móvil: {x}",
                    "Parcela\tHortelano/a\tTeléfono\nA-3\t{n}\t{x}",
                    "Cliente: {n}\nVehículo: Seat León\nMatrícula: 1234 KLM\nTeléfono para autorizar la reparación: {x}",
                    "Apellido y nombre: {n} | DNI: en trámite | Cel.: {x} | Mail: {e}",
                    "Mascota: Lola (perra) · Dueño/a: {n} · Tel. de contacto durante el viaje: {x}",
                    "Invitado: {n}\nAcompañantes: 1\nMenú: vegetariano\nTeléfono: {x}"],
           "prose_no_cue": ["Se encontró una bufanda de lana roja en el salón parroquial: {n}, {x}.",
                            "Alfajores caseros y mermeladas por encargo – {n}, {x}.",
                            "Cuido gatos a domicilio en Palermo y Belgrano: {n}, {x}.",
                            "Las flores del altar en mayo las pone {n} ({x}).",
                            "El turno de limpieza del local le toca esta semana a {n}, {x}.",
                            "En la etiqueta de la maleta perdida solo ponía {n} y {x}."]},
    "it": {"same_line": ["Studio dentistico {n} – tel. {x}", "Ufficio oggetti smarriti della stazione: {x}",
                         "Tata referenziata, cell. {x}", "Amministratore di condominio: {x}",
                         "Ordinazioni colombe e panettoni: {x}",
                         "WhatsApp del mister: {x}", "Tel. bar-tabacchi {x}"],
           "line_above": ["ASD Polisportiva San Rocco – Pulcini\nDirigente accompagnatore {n}\ncell.\n{x}",
                          "Orti urbani di via dei Mille\nPer i turni di irrigazione mandate un messaggio a\n{x}",
                          "{c}\nLe ricordiamo l'appuntamento di giovedì alle 15:00\nIn caso di disdetta telefonare "
                          "almeno un giorno prima al\n{x}",
                          "Condominio Le Magnolie\nGuasti all'ascensore o al cancello: chiamare\n{x}",
                          "Lezioni private di chitarra\nPer orari e prezzi chiamare {n} al\n{x}\n{e}",
                          "Mercatino dell'artigianato – iscrizioni espositori\nrecapito telefonico\n{x}"],
           "after": ["{x} (cell. del mister, dopo le 18)", "{x}: portineria dell'hotel, sempre presidiata",
                     "{x} – numero dell'amministratore, solo per guasti urgenti", "{x} (officina, chiedete di {n})",
                     "{x} per la conferma della presenza entro aprile", "{x}, scrivetemi su WhatsApp e vi richiamo"],
           "sentence": ["Chi avesse perso un ombrello o una sciarpa durante il concerto può rivolgersi alla biglietteria "
                        "del teatro, che risponde al {x} nel pomeriggio.",
                        "Il preventivo per la sostituzione della frizione è di 620 euro, manodopera compresa; se siete "
                        "d'accordo dateci conferma al {x} e ordiniamo il pezzo.",
                        "Si comunica ai signori condomini che martedì mancherà l'acqua dalle 8 alle 13; per esigenze "
                        "particolari è possibile sentire l'amministratore {n} al {x}.",
                        "Saremmo felici di avervi con noi il giorno del nostro matrimonio: fateci sapere se ci sarete "
                        "chiamando {n} al {x} entro il 30 aprile.",
                        "Studentessa universitaria offre aiuto compiti per elementari e medie; per un primo incontro "
                        "conoscitivo potete telefonarmi al {x}.",
                        "La sagra del tortello si terrà domenica in piazza; per il pranzo le prenotazioni le raccoglie {n}, "
                        "che risponde al {x} dopo cena."],
           "form": ["Volontario: {n} · Turno: sabato 9–12 · Cell.: {x}",
                    "Lotto\tAssegnatario\tTelefono\n5B\t{n}\t{x}",
                    "Cliente: {n}\nVeicolo: Fiat Punto\nTarga: AB 123 CD\nTel. per autorizzazione lavori: {x}",
                    "Nome dell'animale: Briciola | Proprietario: {n} | Numero da chiamare in caso di necessità: {x}",
                    "Invitato: {n} – Accompagnatori: 2 – Intolleranze: nessuna – Tel.: {x}",
                    "Nominativo espositore: {n}\nMerce esposta: ceramiche\nTelefono: {x}\nE-mail: {e}"],
           "prose_no_cue": ["Ritrovato un guanto da bambino vicino all'altalena: {n}, {x}.",
                            "I fiori per l'altare a maggio li porta {n} ({x}).",
                            "Marmellate fatte in casa e miele di castagno: {n}, {x}, banco accanto alla fontana.",
                            "Dog sitter in zona Porta Romana: {n}, {x}.",
                            "Questa settimana le pulizie della sede toccano a {n}, {x}.",
                            "Sul retro della partecipazione di nozze, a penna: {n}, {x}."]},
    "pt": {"same_line": ["Tlm. do treinador: {x}", "Perdidos e achados – portaria: {x}", "Babysitter com experiência, tlm. {x}",
                         "Administração do condomínio: {x}", "Encomendas de bolos: {x}", "Consultório dentário, tel. {x}"],
           "line_above": ["Grupo Desportivo da Ribeira – Infantis\nSeccionista: {n}\nTelemóvel\n{x}",
                          "Hortas comunitárias do Vale\nPara a escala de rega, mande SMS para\n{x}",
                          "{c}\nLembrete: a sua consulta de higiene oral é na quinta às 11h\nSe não puder comparecer, "
                          "ligue para\n{x}",
                          "Condomínio do Edifício Atlântico\nAvarias no elevador – contactar a administração\n{x}",
                          "Pet sitting ao domicílio\nInformações e reservas\n{x}\n{e}",
                          "Noite de fados na coletividade\nReservas para o jantar com o Sr. {n}\n{x}"],
           "after": ["{x} (telemóvel do treinador, depois das 18h)", "{x} – receção do hotel, aberta toda a noite",
                     "{x}: número da administração do condomínio, só para avarias", "{x} (perguntar pelo {n} na oficina)",
                     "{x} para confirmar a presença no copo-d'água", "{x}, mande-me mensagem que eu ligo de volta"],
           "sentence": ["Quem tiver perdido objetos no pavilhão durante o torneio pode reclamá-los na portaria ou ligar "
                        "para o {x} até ao fim do mês.",
                        "O orçamento para a substituição da embraiagem fica em 540 euros com mão de obra; se concordar, "
                        "dê-nos uma resposta pelo {x} para encomendarmos a peça.",
                        "Informamos os senhores condóminos de que na terça-feira haverá corte de água de manhã; para "
                        "situações especiais, contactem a administradora, {n}, através do {x}.",
                        "Teremos muito gosto em contar convosco no nosso casamento; pedimos que confirmem a presença até "
                        "30 de abril junto de {n}, pelo {x}.",
                        "Explicadora com experiência dá apoio a Matemática e Português até ao 9.º ano; para combinar uma "
                        "primeira aula, pode ligar-me para o {x}.",
                        "Para o arraial dos Santos Populares ainda há mesas livres; as marcações ficam com {n}, que atende "
                        "o {x} ao fim da tarde."],
           "form": ["Voluntário: {n} · Turno: sábado de manhã · Tlm.: {x}",
                    "Talhão\tHorticultor\tContacto\n7\t{n}\t{x}",
                    "Cliente: {n}\nViatura: Renault Clio\nMatrícula: 12-AB-34\nContacto para aprovação do orçamento: {x}",
                    "Animal: Tareco (gato) | Dono: {n} | Telemóvel durante a ausência: {x}",
                    "Convidado: {n} – Acompanhantes: 1 – Restrições alimentares: nenhuma – Telef.: {x}",
                    "Nome do artesão: {n}\nProdutos: cerâmica e bordados\nTelefone: {x}\nEmail: {e}"],
           "prose_no_cue": ["Encontrado um casaco de criança junto ao escorrega: {n}, {x}.",
                            "As flores do altar em maio ficam a cargo de {n}, {x}.",
                            "Compotas caseiras e mel de rosmaninho: {n}, {x}, banca junto ao coreto.",
                            "Passeio cães na zona de Campo de Ourique: {n}, {x}.",
                            "Esta semana a limpeza da sede calha a {n} – {x}.",
                            "No verso do convite de casamento, escrito à mão: {n}, {x}."]},
    "nl": {"same_line": ["Gsm trainer U11: {x}", "Gevonden voorwerpen, balie zwembad: {x}", "Oppasdienst – gsm {x}",
                         "Syndicus: {x}", "Taarten bestellen: {x}", "Tandartspraktijk {n} · tel. {x}"],
           "line_above": ["KSK Ruisbroek – U9\nAfgevaardigde: {n}\nGsm\n{x}",
                          "Samentuin De Kouter\nVoor de gietbeurten tijdens de vakantie, sms naar\n{x}",
                          "{c}\nHerinnering: uw controle is donderdag om 14.30 uur\nVerhinderd? Verwittig ons "
                          "telefonisch op\n{x}",
                          "Residentie Parkzicht – syndicus\nDefecte lift of poort? Bel het noodnummer\n{x}",
                          "Hondenoppas aan huis\nInfo en beschikbaarheid\n{x}\n{e}",
                          "Kerstmarkt van de ambachten\nInschrijving standhouders, telefonisch\n{x}"],
           "after": ["{x} (gsm van de trainer, na 18 u)", "{x} – receptie van het hotel, dag en nacht bemand",
                     "{x}: nummer van de syndicus, enkel voor dringende herstellingen", "{x} (vraag naar {n} in de garage)",
                     "{x} om je aanwezigheid op het trouwfeest te bevestigen", "{x}, stuur gerust een berichtje, ik bel terug"],
           "sentence": ["Wie tijdens het tornooi iets verloren heeft in de sporthal, kan dat ophalen aan het onthaal of "
                        "bellen naar {x} tot eind deze maand.",
                        "De offerte voor het vervangen van de koppeling bedraagt 560 euro, werkuren inbegrepen; gaat u "
                        "akkoord, laat het ons dan weten op {x} zodat we het onderdeel kunnen bestellen.",
                        "Wij melden de bewoners dat er dinsdagvoormiddag geen water is; voor bijzondere situaties kan u "
                        "de syndicus, {n}, contacteren op {x}.",
                        "We zouden het fijn vinden als jullie erbij zijn op onze trouwdag; laat vóór 30 april even weten "
                        "of jullie komen door {n} te bellen op {x}.",
                        "Studente geeft bijles wiskunde en Frans aan leerlingen van het lager; voor een eerste "
                        "kennismaking mag je me altijd telefoneren op {x}.",
                        "Voor het mosselfeest van de voetbalclub kan je nog inschrijven tot vrijdag, telefonisch bij {n} "
                        "op {x} of aan de toog."],
           "form": ["Vrijwilliger: {n} · Post: vestiaire · Shift: za 9–12 u · Gsm: {x}",
                    "Perceel\tTuinier\tTelefoon\n12\t{n}\t{x}",
                    "Klant: {n}\nWagen: Opel Corsa\nNummerplaat: 1-ABC-123\nTel. voor akkoord offerte: {x}",
                    "Huisdier: Bobby (hond) | Baasje: {n} | Gsm tijdens de vakantie: {x}",
                    "Genodigde: {n} – Aantal personen: 2 – Allergieën: geen – Tel.: {x}",
                    "Naam standhouder: {n}\nAanbod: keramiek en juwelen\nTelefoon: {x}\nE-mail: {e}"],
           "prose_no_cue": ["Gevonden: kinderjas aan de glijbaan, {n}, {x}.",
                            "De bloemen voor het altaar in mei verzorgt {n} ({x}).",
                            "Zelfgemaakte confituur en honing: {n}, {x}, kraam naast de kiosk.",
                            "Hondenuitlaatdienst in Berchem en Borgerhout: {n}, {x}.",
                            "Deze week is de poetsbeurt van het clublokaal voor {n}, {x}.",
                            "Op de achterkant van de trouwkaart, met de hand: {n}, {x}."]},
}
for _lang, _t in _PHONE_N.items():
    PHONE_T[_lang]["N"] = _t
ADDRESS_T["N"] = ["{a}\n{n} — {x}\n{c}", "{n}\n{x}\n\n{a}\n{e}", "{c} – {n}\n{a} – {x}", "{e}\n{n}\n{a}\n({x})",
                  "{n} · {e} · {x}\n{c}\n{a}"]
for _lang, _t in {"en": ["Stallholder applications, with two or three photos of your work, go to {e}.",
                         "Left something behind in your room? Describe it to {e} and housekeeping will have a look.",
                         "Swapping a watering week? Sort it out between yourselves, then let {e} know.",
                         "Warm wishes,\n{n}\nHead gardener, {c}\n{e}"],
                  "de": ["Standanmeldungen für den Kunsthandwerkermarkt bitte mit ein paar Fotos an {e}.",
                         "Anfragen zu Fundsachen richten Sie bitte an {e}.",
                         "Tauscht ihr eure Gießwoche, gebt bitte kurz an {e} Bescheid.",
                         "Herzliche Grüsse\n{n}\n{c}\nMail {e}"],
                  "fr": ["Les artisans intéressés peuvent envoyer photos et descriptif de leurs créations à {e}.",
                         "Vous avez oublié un objet dans votre chambre ? Décrivez-le-nous à {e}.",
                         "Adresse courriel de la fabrique : {e}",
                         "Au plaisir,\n{n}\n{c}\n{e}"],
                  "es": ["Los artesanos interesados en un puesto pueden mandar fotos de su trabajo a {e}.",
                         "¿Te olvidaste algo en la habitación? Escribinos a {e} y lo buscamos.",
                         "Los cambios de turno de riego, avisadlos con tiempo a {e}.",
                         "Un abrazo,\n{n}\n{c}\n{e}"],
                  "it": ["Gli artigiani interessati possono inviare foto e descrizione dei lavori a {e}.",
                         "Avete dimenticato qualcosa in camera? Scriveteci a {e} descrivendo l'oggetto.",
                         "Cambi di turno per l'irrigazione degli orti: comunicateli a {e}.",
                         "Un caro saluto,\n{n}\n{c}\n{e}"],
                  "pt": ["Os artesãos interessados podem enviar fotografias dos trabalhos para {e}.",
                         "Esqueceu-se de alguma coisa no quarto? Descreva-a num email para {e}.",
                         "Trocas na escala de rega: avisem com antecedência para {e}.",
                         "Um abraço,\n{n}\n{c}\n{e}"],
                  "nl": ["Ambachtslui die een standje willen, sturen foto's van hun werk naar {e}.",
                         "Iets laten liggen op je kamer? Beschrijf het even in een mailtje aan {e}.",
                         "Wissels in de gietbeurten graag doorgeven aan {e}.",
                         "Hartelijke groeten,\n{n}\n{c}\n{e}"]}.items():
    EMAIL_T[_lang]["N"] = _t
DISTRACTOR_T["N"] = [
    "Fixture change: the U14s now kick off at {time} on {date}; last time we met them it finished {score}. "
    "Ring the club secretary if your child needs a lift.",
    "Your reservation {ord} is guaranteed to the card on file; to cancel free of charge, phone the hotel before {date}.",
    "Dental recall for patient no. {cid}: last check-up {date}. Text YES to confirm or call the practice to rebook.",
    "Craft fair pitch {ord2}: table fee {price}, set-up from {time}; phone the organiser if you need a power point.",
    "Allotment plot {minutes}, rent for {year}: {price}, payable to {iban} by {date}.",
    "Babysitting at {price} an hour; paediatric first-aid certificate {ref} – text to ask which evenings are free.",
    "Repair estimate {inv}: brake pads and discs, {price} parts and labour, valid until {date}. Call the workshop to approve.",
    "The wedding is on {date}; please reply by ringing the number on the card. Gift list ref. {ref}.",
    "Volunteer badge no. {cid}: shifts run {time}, and the coordinator will text out the rota by {date}.",
    "Full Irish breakfast {price}, served {time}; phone orders for collection welcome.",
    "Tutoring invoice {inv}: {minutes} minutes of maths on {date}, {price}. Call me if you'd like a block of ten.",
    "Pet-sitting booking {ord} from {date}; microchip no. {ref} is on file in case the vet needs to call.",
    "Plumber's quote {inv}: new combi boiler {price}, {year} model, ten-year warranty – phone to book the fitting.",
    "The Christmas appeal raised {price}, and {big} meals have been served since {year}. Call the parish office to help out.",
    "Lost property ticket {ord2}, handed in on {date}; items not claimed by phone or in person within {minutes} days go "
    "to charity.",
    "Service charge for {year2}: {price} per apartment, to {iban}, quoting unit ref. {cid}. Contact the managing agent "
    "by phone with any queries.",
    "Average home gate in the {year}/{year2} season: {big}. Season tickets are on sale now – call the ticket office.",
    "Water meter at the community garden read {ord2} litres on {date}; text the rota coordinator if the tap is leaking.",
    "Receipt {inv} for your gift of {price} on {date}. Please call the church office if any of your details are wrong.",
    "Passed its inspection on {date} with {big} km on the clock; next service at {ord2} km – the garage will phone "
    "to remind you.",
    "Dog licence tag {ref}, registered to postcode {post}; the warden will call the owner if the dog is picked up.",
]


# Set O (heldout14): written after heldout13's score by a writer who read only this file, not the rules.
_PHONE_O = {
    "en": {"same_line": ["Workshop bookings (bike servicing & repairs): {x}", "Swarm collection line, April to July – {x}",
                         "New landline from 1 March: {x}", "txt me on {x} 👍", "Chimney sweep {n} — cell {x}",
                         "School of Earth Sciences – general office ph. {x}",
                         "{n} | Freelance IT & web support | m. {x} | {e}",
                         "Email {e}\nWeb www.example.co.nz\nMob/txt {x}"],
           "line_above": ["{c}\nBike fitting by appointment – book by phone\n{x}",
                          "WE'VE MOVED!\nSame shop, new street – and a new number:\n{x}",
                          "Department of Linguistics\nGeneral office (Mon–Thu, 9.30–3.30)\nPhone\n{x}\n{e}",
                          "Firewood – split, dry, delivered\nOrders & prices, phone {n}\n{x}",
                          "Riding lessons for all ages\nTo book, give the yard a ring\n{x}\n{c}",
                          "Home swap wanted: our 3-bed in Wellington for a flat in London, July\nPhone/txt us\n{x}\n{e}",
                          "Locked out? Emergency call-out, day or night\n{x}"],
           "after": ["{x} (shop phone – for bike repairs ask for {n})", "{x} – my new mobile, the old one is disconnected",
                     "{x} (studio – leave a voicemail if we're in class)", "{x} ← swarm line, only picked up in season",
                     "{x} is the general office; academic staff can be reached through their own extensions.",
                     "{x} (cell, I'm on the tractor most of the day so text first)",
                     "{n} {x} (mob.) – at the farm gate most Saturdays"],
           "sentence": ["We've been at the old shop on Queen Street for twelve years, but from Monday you'll find us round "
                        "the corner – the phone number has changed too, it's now {x}.",
                        "If your class pass runs out mid-term, just let the front desk know on {x} and we'll top it up "
                        "over the phone.",
                        "Bees swarming in your garden? Don't spray them – call {n}, our swarm coordinator, on {x} and a "
                        "beekeeper will come and collect them.",
                        "Sofas, fridges and mattresses are collected on the second Tuesday of the month; to book a slot, "
                        "residents need to phone the council's bulky waste team on {x} at least a week before.",
                        "hey all, {n} here from the Saturday market group 🙂 if anyone wants to go halves on a stall this "
                        "season my number's {x}, just msg me",
                        "Applications close on the 30th; for an informal chat about the role before applying, the "
                        "workshop manager can be reached on {x} during business hours.",
                        "Snow plowing contracts for the season are filling up — if you want your driveway cleared before "
                        "7 a.m., give {n} a call at {x} by the end of October."],
           "form": ["Frame no.: WTU-2231  |  Owner: {n}  |  Phone: {x}  |  Service: full tune",
                    "Class | Teacher | Teacher's mobile\nSunrise flow, Tue 6:30 | {n} | {x}",
                    "Swap offered: 2-bed flat, Leith\nSwap wanted: anywhere in Otago\nName: {n}\nPh: {x}\nEmail: {e}",
                    "Applicant name: {n}\nDaytime phone: {x}\nEmail: {e}\nPosition applied for: Bike mechanic (part-time)",
                    "Items: 1 sofa, 1 fridge · Resident: {n} · Contact ph: {x} · Collection day: Tuesday",
                    "| Stall | Produce | Holder | Cell |\n|:-:|---|---|---|\n| 14 | honey, beeswax | {n} | {x} |",
                    "Student: {n} · Supervisor: Dr Okafor · Best number: {x}"],
           "prose_no_cue": ["Second-hand kids' bikes at the market this Saturday, all checked over by {n} ({x}).",
                            "[14/03/24, 19:02] {n}: {x} 👍",
                            "Yoga mats left behind after Sunday's class – {n}, {x}.",
                            "Free to a good home: spider plants, rhubarb crowns and a rusty wheelbarrow. {n}, {x}, Ponsonby.",
                            "Firewood split by {n} – {x} – $120 a cord, stacked.",
                            "We've moved! {n}, 14 Harbour View Rd, {x}."]},
    "de": {"same_line": ["Radwerkstatt – Terminvereinbarung: {x}", "Neue Festnetznummer ab 1. März: {x}",
                         "Kursanmeldung telefonisch unter {x}", "Schwarmbörse – Imker-Bereitschaft: {x}",
                         "Rauchfangkehrer {n}, Handy {x}", "{n} · Freiberufliche IT-Beratung · Mob. {x} · {e}",
                         "Lehrstuhlsekretariat, Raum 3.14, Tel. {x}",
                         "E-Mail {e}\nWeb www.example.at\nTel./WhatsApp {x}"],
           "line_above": ["WIR SIND UMGEZOGEN!\nNeue Adresse, neue Telefonnummer:\n{x}",
                          "Institut für Geographie – Sekretariat\nSprechzeiten Mo–Do 9–12 Uhr, telefonisch unter\n{x}\n{e}",
                          "Sperrmüllabholung auf Abruf\nTermin vereinbaren beim Abfallwirtschaftsverband:\n{x}",
                          "Brennholz ofenfertig, frei Haus\nBestellung bei {n} unter\n{x}",
                          "Reitstall {c}\nReitstunden & Ferienkurse – Anfragen telefonisch\n{x}",
                          "Wohnungstausch: biete 3 Zi. in Wien-Ottakring, suche 2 Zi. in Graz\nbitte nur Anrufe\n{x}",
                          "Ausgesperrt? Schlüsseldienst, Tag und Nacht\nNotrufnummer\n{x}"],
           "after": ["{x} (Werkstatt – fürs Rad bitte nach {n} fragen)", "{x} – neue Handynummer, die alte gibt's nicht mehr",
                     "{x} (Studio, während der Stunden läuft der AB)", "{x} ← Schwarmtelefon, nur April bis Juli besetzt",
                     "{x} ist das Institutssekretariat, die Lehrenden haben eigene Durchwahlen.",
                     "{x}, Stallhandy – am besten abends",
                     "{n} {x} (Handy) – samstags meist am Hofladen"],
           "sentence": ["Nach zwölf Jahren in der Hauptstraße findet ihr uns ab Montag gleich ums Eck in der Mühlgasse – "
                        "auch telefonisch hat sich was geändert, die neue Nummer lautet {x}.",
                        "Läuft Ihre Zehnerkarte während des Semesters ab, sagen Sie einfach an der Rezeption Bescheid oder "
                        "rufen Sie uns unter {x} an, dann verlängern wir sie.",
                        "Hängt bei Ihnen ein Bienenschwarm im Garten, bitte nicht besprühen, sondern {n} vom Imkerverein "
                        "anrufen, die Nummer ist {x}.",
                        "Sperrige Gegenstände wie Sofas, Matratzen oder Kühlschränke werden nur nach vorheriger "
                        "telefonischer Anmeldung unter {x} abgeholt, spätestens eine Woche vor dem Termin.",
                        "hallo zusammen 🙂 wer beim Bauernmarkt am Samstag einen Stand mitnutzen will schreibt mir einfach "
                        "auf {x}, bin {n} aus der Gruppe",
                        "Vorab Fragen zur Stelle? Werkstattleiterin {n} nimmt sich gern Zeit für ein kurzes Telefonat, Sie "
                        "erreichen sie werktags von 8 bis 16 Uhr auf {x}.",
                        "Der Klavierstimmer ist in der Woche ab dem 14. in der Gegend – wer sein Instrument stimmen "
                        "lassen möchte, ruft am besten {n} an: {x}."],
           "form": ["Rahmennr.: WTU 2231 | Besitzer/in: {n} | Tel.: {x} | Leistung: Inspektion",
                    "Kurs | Lehrerin | Handy der Lehrerin\nHatha, Di 18:30 | {n} | {x}",
                    "Biete: 2-Zi.-Whg., 58 m², Altbau\nSuche: 3 Zi. mit Balkon\nName: {n}\nTel.: {x}\nMail: {e}",
                    "Bewerber/in: {n}\nTelefon tagsüber: {x}\nE-Mail: {e}\nStelle: Zweiradmechaniker/in (Teilzeit)",
                    "Gegenstände: 1 Sofa, 1 Kühlschrank · Auftraggeber/in: {n} · Rückruf unter: {x} · Abholtag: Di",
                    "| Stand | Angebot | Standler/in | Handy |\n|:-:|---|---|---|\n| 14 | Honig, Kerzen | {n} | {x} |",
                    "Student/in: {n} · Betreuer: Prof. Huber · Kontakt-Handy: {x}"],
           "prose_no_cue": ["Gebrauchte Kinderräder am Samstag am Markt, alle von {n} durchgeschaut ({x}).",
                            "[14.03.24, 19:02] {n}: {x} 👍",
                            "Liegengebliebene Yogamatten nach dem Sonntagskurs – {n}, {x}.",
                            "Zu verschenken: Ableger von Grünlilien, Rhabarber und eine rostige Scheibtruhe. {n}, {x}, "
                            "Ottakring.",
                            "Brennholz, gespalten, von {n} – {x} – 95 € der Raummeter.",
                            "Wir sind umgezogen! {n}, Lindengasse 14, {x}."]},
    "fr": {"same_line": ["Atelier vélo (réparations et révisions) : {x}", "Nouveau numéro fixe à partir du 1er mars : {x}",
                         "Inscriptions aux cours de yoga par téléphone au {x}", "Essaims d'abeilles – permanence apicole : {x}",
                         "Ramoneur {n}, port. {x}", "{n} · Développeur web indépendant · Tél. {x} · {e}",
                         "Secrétariat de la section d'histoire, bureau 2.14, tél. {x}",
                         "Courriel {e}\nSite www.example.be\nGSM/SMS {x}"],
           "line_above": ["NOUS AVONS DÉMÉNAGÉ !\nNouvelle adresse, nouveau numéro :\n{x}",
                          "Département de sociologie – secrétariat\nPermanence téléphonique du lundi au jeudi, 9 h–12 h\n"
                          "{x}\n{e}",
                          "Encombrants : enlèvement sur rendez-vous\nPrenez rendez-vous auprès du service de la propreté au\n{x}",
                          "Bois de chauffage sec, livré\nCommandes par téléphone chez {n}\n{x}",
                          "Manège {c}\nCours d'équitation et stages – renseignements par téléphone\n{x}",
                          "Échange d'appartement : 3 pièces à Lausanne contre 2 pièces à Bruxelles\nappels uniquement\n{x}",
                          "Porte claquée ? Serrurier – dépannage jour et nuit au\n{x}"],
           "after": ["{x} (atelier – pour les vélos, demandez {n})", "{x} – mon nouveau portable, l'ancien numéro ne marche plus",
                     "{x} (studio, répondeur pendant les cours)", "{x} ← ligne essaims, seulement d'avril à juillet",
                     "{x} est le numéro du secrétariat ; les enseignants ont leur propre ligne.",
                     "{x}, GSM du manège – de préférence le soir",
                     "{n} {x} (portable) – à la ferme presque tous les samedis"],
           "sentence": ["Après douze ans rue Haute, on vous accueille dès lundi juste au coin, rue du Moulin – et le numéro "
                        "a changé lui aussi : c'est désormais le {x}.",
                        "Si votre carte de dix cours expire en cours de trimestre, prévenez l'accueil ou appelez le studio "
                        "au {x} et on la prolonge.",
                        "Un essaim dans votre jardin ? Surtout ne le traitez pas : téléphonez à {n}, de la société "
                        "d'apiculture, au {x}.",
                        "Les objets volumineux (canapés, matelas, frigos) ne sont enlevés que sur inscription préalable "
                        "auprès de la commune, par téléphone au {x}, au moins une semaine à l'avance.",
                        "coucou tout le monde 🙂 si qqn veut partager un stand au marché fermier samedi envoyez-moi un sms "
                        "au {x}, c'est {n} du groupe",
                        "Pour toute question sur le poste avant de postuler, le chef d'atelier, {n}, répond volontiers au "
                        "{x} en semaine entre 8 h et 16 h.",
                        "L'accordeur de pianos passe dans la région la semaine du 14 ; il suffit de joindre {n} au {x} "
                        "pour fixer l'heure."],
           "form": ["N° de cadre : WTU 2231 | Propriétaire : {n} | Tél. : {x} | Prestation : révision complète",
                    "Cours | Professeure | Portable de la prof\nHatha, mardi 18 h 30 | {n} | {x}",
                    "Offre : 2 pièces, 55 m², 3e étage\nRecherche : 3 pièces avec balcon\nNom : {n}\nTél. : {x}\n"
                    "Courriel : {e}",
                    "Candidat(e) : {n}\nTéléphone (journée) : {x}\nE-mail : {e}\nPoste : mécanicien(ne) vélo à temps "
                    "partiel",
                    "Objets : 1 canapé, 1 frigo · Demandeur : {n} · Numéro de rappel : {x} · Passage : mardi",
                    "| Stand | Produits | Exposant | GSM |\n|:-:|---|---|---|\n| 14 | miel, bougies | {n} | {x} |",
                    "Étudiant(e) : {n} · Directeur de mémoire : Prof. Dubois · Natel : {x}"],
           "prose_no_cue": ["Vélos d'enfants d'occasion au marché ce samedi, tous révisés par {n} ({x}).",
                            "[14/03/2024 19:02] {n} : {x} 👍",
                            "Tapis de yoga oubliés après le cours de dimanche – {n}, {x}.",
                            "À donner : boutures de plantes, rhubarbe et une vieille brouette. {n}, {x}, Ixelles.",
                            "Bois fendu par {n} – {x} – 90 € le stère.",
                            "Nous avons déménagé ! {n}, 14 rue des Tilleuls, {x}."]},
    "es": {"same_line": ["Taller de bicis (arreglos y revisiones): {x}", "Nuevo fijo a partir del 1 de marzo: {x}",
                         "Inscripciones a yoga por teléfono: {x}", "Retirada de enjambres – apicultor de guardia: {x}",
                         "Limpieza de chimeneas – {n} – tel. móvil {x}",
                         "{n} · Soporte informático freelance · Cel/WhatsApp {x} · {e}",
                         "Secretaría del Departamento de Historia (despacho 2.14) – tel. {x}",
                         "Correo {e}\nWeb www.example.com.co\nCelular {x}"],
           "line_above": ["¡NOS MUDAMOS!\nNueva dirección y nuevo número de teléfono:\n{x}",
                          "Departamento de Sociología – Secretaría\nAtención telefónica de lunes a jueves, de 9 a 12 h\n"
                          "{x}\n{e}",
                          "Recogida de muebles y enseres\nPida cita en el teléfono municipal\n{x}",
                          "Leña seca, puesta en casa\nPedidos por teléfono a {n}\n{x}",
                          "Escuela de equitación {c}\nClases y campamentos – información telefónica al\n{x}",
                          "Intercambio de apartamento: ofrezco 2 habitaciones en Chapinero, busco algo en Medellín\n"
                          "solo llamadas\n{x}",
                          "¿Te quedaste afuera? Cerrajero 24 horas, llama al\n{x}"],
           "after": ["{x} (taller – para las bicis pregunten por {n})", "{x} – mi celular nuevo, el viejo ya no funciona",
                     "{x} (estudio, durante las clases salta el contestador)", "{x} ← teléfono de enjambres, solo de marzo a junio",
                     "{x} es la secretaría del departamento; los profesores tienen su propia extensión.",
                     "{x}, el móvil de la hípica – mejor por la tarde",
                     "{n} {x} (cel.) – casi todos los sábados en la finca"],
           "sentence": ["Después de doce años en la calle Mayor, desde el lunes nos encontráis a la vuelta de la esquina, en "
                        "la calle del Molino; el teléfono también ha cambiado, ahora es el {x}.",
                        "Si tu bono de diez clases vence a mitad de trimestre, avisa en recepción o llámanos al {x} y te "
                        "lo ampliamos.",
                        "¿Un enjambre de abejas en su jardín? No lo fumigue: llame a {n}, de la asociación de apicultores, "
                        "al {x}.",
                        "Los muebles viejos, colchones y electrodomésticos solo se recogen con cita previa, que se pide por "
                        "teléfono en el {x} con una semana de antelación.",
                        "hola a todos 😊 si alguien quiere compartir puesto en el mercado campesino del sábado escríbanme al "
                        "whatsapp {x}, soy {n} del grupo",
                        "Para resolver dudas sobre la vacante antes de enviar la hoja de vida, el jefe de taller, {n}, "
                        "atiende llamadas en el {x} de lunes a viernes de 8 a 16 h.",
                        "El afinador de pianos estará por la zona la semana del 14; quien quiera que le afine el suyo "
                        "puede hablar con {n} al {x}."],
           "form": ["Nº de cuadro: WTU 2231 | Propietario/a: {n} | Tel.: {x} | Servicio: revisión completa",
                    "Clase | Profesora | Móvil de la profesora\nHatha, martes 18:30 | {n} | {x}",
                    "Ofrezco: piso de 2 hab., 60 m²\nBusco: 3 hab. con terraza\nNombre: {n}\nTlf.: {x}\nCorreo: {e}",
                    "Candidato/a: {n}\nTeléfono de contacto: {x}\nCorreo: {e}\nCargo: mecánico/a de bicicletas (medio "
                    "tiempo)",
                    "Enseres: 1 sofá, 1 nevera · Solicitante: {n} · Teléfono para confirmar: {x} · Día: martes",
                    "| Puesto | Productos | Titular | Cel. |\n|:-:|---|---|---|\n| 14 | miel, velas | {n} | {x} |",
                    "Estudiante: {n} · Director de tesis: Dr. Restrepo · Celular: {x}"],
           "prose_no_cue": ["Bicis de niño de segunda mano en el mercadillo del sábado, todas revisadas por {n} ({x}).",
                            "[14/3/24 19:02] {n}: {x} 👍",
                            "Esterillas olvidadas después de la clase del domingo – {n}, {x}.",
                            "Regalo esquejes, ruibarbo y una carretilla vieja. {n}, {x}, Usaquén.",
                            "Leña partida por {n} – {x} – 80 € el metro.",
                            "¡Nos mudamos! {n}, calle de los Tilos 14, {x}."]},
    "it": {"same_line": ["Ciclofficina (riparazioni e tagliandi): {x}", "Nuovo numero fisso dal 1° marzo: {x}",
                         "Iscrizioni ai corsi di yoga al numero {x}", "Recupero sciami – apicoltore reperibile: {x}",
                         "Spazzacamino {n} – telefonino {x}", "{n} · Consulente IT freelance · Mob. {x} · {e}",
                         "Segreteria del Dipartimento di Storia, stanza 2.14, tel. {x}",
                         "Email {e}\nSito www.example.it\nCell./WA {x}"],
           "line_above": ["CI SIAMO TRASFERITI!\nNuovo indirizzo e nuovo numero:\n{x}",
                          "Dipartimento di Sociologia – Segreteria studenti\nRicevimento telefonico dal lunedì al giovedì, "
                          "9–12\n{x}\n{e}",
                          "Ritiro ingombranti a domicilio\nPrenotazione obbligatoria al numero verde\n{x}",
                          "Legna da ardere stagionata, consegna a domicilio\nOrdini telefonici a {n}\n{x}",
                          "Maneggio {c}\nLezioni di equitazione e campi estivi – info al\n{x}",
                          "Scambio casa: trilocale a Bologna in cambio di bilocale a Torino\nsolo telefonate\n{x}",
                          "Chiusi fuori casa? Fabbro pronto intervento, giorno e notte\n{x}"],
           "after": ["{x} (ciclofficina – per le bici chiedete di {n})",
                     "{x} – è il mio nuovo cellulare, quello vecchio non è più attivo",
                     "{x} (studio, durante le lezioni risponde la segreteria)",
                     "{x} ← numero sciami, attivo solo da aprile a luglio",
                     "{x} è la segreteria del dipartimento; i docenti hanno un interno proprio.",
                     "{x}, cellulare del maneggio – meglio la sera",
                     "{n} {x} (cell.) – quasi tutti i sabati in cascina"],
           "sentence": ["Dopo dodici anni in via Roma, da lunedì ci trovate girato l'angolo, in via del Mulino; è cambiato "
                        "anche il telefono, ora il numero è {x}.",
                        "Se il tuo carnet da dieci lezioni scade a metà trimestre, avvisa la reception o chiamaci al {x} e "
                        "lo prolunghiamo.",
                        "Uno sciame d'api in giardino? Non spruzzate nulla: telefonate a {n}, dell'associazione "
                        "apicoltori, al {x}.",
                        "Mobili, materassi ed elettrodomestici vengono ritirati solo su prenotazione telefonica al {x}, da "
                        "fare almeno una settimana prima.",
                        "ciao a tutti 😊 se qualcuno vuole dividere un banco al mercato contadino di sabato scrivetemi in "
                        "privato al {x}, sono {n} del gruppo",
                        "Per informazioni sulla posizione prima di candidarsi, il capo officina {n} risponde volentieri al "
                        "{x} nei giorni feriali dalle 8 alle 16.",
                        "L'accordatore di pianoforti passa in zona la settimana del 14: chi vuole un appuntamento può fare "
                        "un colpo di telefono a {n} al {x}."],
           "form": ["N. telaio: WTU 2231 | Proprietario: {n} | Tel.: {x} | Intervento: revisione completa",
                    "Corso | Insegnante | Cellulare dell'insegnante\nHatha, martedì 18:30 | {n} | {x}",
                    "Offro: bilocale, 55 mq, 3° piano\nCerco: trilocale con balcone\nNome: {n}\nTel.: {x}\nEmail: {e}",
                    "Candidato/a: {n}\nTelefono (orario d'ufficio): {x}\nEmail: {e}\nPosizione: meccanico di biciclette "
                    "part-time",
                    "Oggetti: 1 divano, 1 frigorifero · Richiedente: {n} · Numero per la conferma: {x} · Giorno: martedì",
                    "| Banco | Prodotti | Titolare | Cell. |\n|:-:|---|---|---|\n| 14 | miele, candele | {n} | {x} |",
                    "Laureando/a: {n} · Relatore: prof. Bianchi · Cellulare: {x}"],
           "prose_no_cue": ["Bici per bambini usate al mercatino di sabato, tutte controllate da {n} ({x}).",
                            "[14/03/24, 19:02] {n}: {x} 👍",
                            "Tappetini da yoga dimenticati dopo la lezione di domenica – {n}, {x}.",
                            "Regalo talee, rabarbaro e una vecchia carriola. {n}, {x}, zona Navile.",
                            "Legna spaccata da {n} – {x} – 14 € al quintale.",
                            "Ci siamo trasferiti! {n}, via dei Tigli 14, {x}."]},
    "pt": {"same_line": ["Oficina de bike (consertos e revisões): {x}", "Novo telefone fixo a partir de 1º de março: {x}",
                         "Inscrições para as aulas de ioga pelo telefone {x}", "Retirada de enxames – apicultor de plantão: {x}",
                         "Limpeza de chaminé e lareira – {n} – cel. {x}", "{n} · TI freelancer · Cel./Zap {x} · {e}",
                         "Secretaria do Departamento de História, sala 214, tel. {x}",
                         "E-mail {e}\nSite www.example.com.br\nCelular {x}"],
           "line_above": ["MUDAMOS DE ENDEREÇO!\nEndereço novo e telefone novo:\n{x}",
                          "Departamento de Sociologia – Secretaria da pós-graduação\nAtendimento por telefone de segunda a "
                          "quinta, das 9h às 12h\n{x}\n{e}",
                          "Cata-treco: retirada de móveis velhos\nAgende pelo telefone da prefeitura\n{x}",
                          "Lenha seca, entregamos em casa\nPedidos com {n} pelo WhatsApp\n{x}",
                          "Hípica {c}\nAulas de equitação e colônia de férias – informações pelo telefone\n{x}",
                          "Troco apartamento: 2 quartos em Pinheiros por 1 quarto no Rio\nsó ligação\n{x}",
                          "Ficou trancado do lado de fora? Chaveiro 24 horas, ligue\n{x}"],
           "after": ["{x} (oficina – pra bike, fala com {n})", "{x} – meu celular novo, o antigo foi desativado",
                     "{x} (estúdio, durante as aulas cai na caixa postal)",
                     "{x} ← número dos enxames, só de agosto a novembro",
                     "{x} é a secretaria do departamento; os professores têm ramal próprio.",
                     "{x}, celular da hípica – melhor à noite",
                     "{n} {x} (cel.) – quase todo sábado no sítio"],
           "sentence": ["Depois de doze anos na Rua Augusta, a partir de segunda a gente está logo ali na esquina, na Rua do "
                        "Moinho; o telefone também mudou, agora é {x}.",
                        "Se o seu pacote de dez aulas vencer no meio do mês, avise na recepção ou ligue pro estúdio no {x} "
                        "que a gente prorroga.",
                        "Enxame de abelhas no quintal? Não jogue veneno: ligue para {n}, da associação de apicultores, no "
                        "{x}.",
                        "Móveis velhos, colchões e eletrodomésticos só são recolhidos com agendamento prévio pelo telefone "
                        "{x}, com pelo menos uma semana de antecedência.",
                        "oi gente 😊 se alguém quiser dividir banca na feira orgânica de sábado me manda mensagem no {x}, "
                        "aqui é {n} do grupo",
                        "Dúvidas sobre a vaga antes de mandar o currículo? O chefe da oficina, {n}, atende no {x} de "
                        "segunda a sexta, das 8h às 16h.",
                        "O afinador de pianos vai estar na região na semana do dia 14; quem quiser afinar o seu é só dar "
                        "um toque no {x} e combinar com {n}."],
           "form": ["Nº do quadro: WTU 2231 | Dono(a): {n} | Tel.: {x} | Serviço: revisão completa",
                    "Aula | Professora | Celular da professora\nHatha, terça 18h30 | {n} | {x}",
                    "Ofereço: apto 2 quartos, 60 m²\nProcuro: 3 quartos com varanda\nNome: {n}\nCel.: {x}\nE-mail: {e}",
                    "Candidato(a): {n}\nTelefone para contato: {x}\nE-mail: {e}\nVaga: mecânico(a) de bicicletas, meio "
                    "período",
                    "Itens: 1 sofá, 1 geladeira · Solicitante: {n} · Telefone p/ confirmação: {x} · Dia: terça",
                    "| Banca | Produtos | Feirante | Cel. |\n|:-:|---|---|---|\n| 14 | mel, velas | {n} | {x} |",
                    "Mestrando(a): {n} · Orientador: Prof. Dr. Moreira · WhatsApp: {x}"],
           "prose_no_cue": ["Bicicletas infantis usadas na feirinha de sábado, todas revisadas por {n} ({x}).",
                            "[14/03/2024 19:02] {n}: {x} 👍",
                            "Tapetes de ioga esquecidos depois da aula de domingo – {n}, {x}.",
                            "Doo mudas de plantas, pés de babosa e um carrinho de mão velho. {n}, {x}, Vila Madalena.",
                            "Lenha rachada por {n} – {x} – R$ 180 o metro.",
                            "Mudamos! {n}, Rua das Tílias 14, {x}."]},
    "nl": {"same_line": ["Fietsenmaker (reparaties & onderhoud): {x}", "Nieuw vast nummer per 1 maart: {x}",
                         "Inschrijven voor yogalessen telefonisch via {x}", "Zwermenlijn imkervereniging (april t/m juli): {x}",
                         "Schoorsteenveger {n}, telefonisch bereikbaar op {x}",
                         "{n} · Freelance IT-ondersteuning · mob. {x} · {e}",
                         "Secretariaat vakgroep Geschiedenis, kamer 2.14, tel. {x}",
                         "E-mail {e}\nWeb www.example.nl\nMobiel/app {x}"],
           "line_above": ["WIJ ZIJN VERHUISD!\nNieuw adres, nieuw telefoonnummer:\n{x}",
                          "Vakgroep Sociologie – secretariaat\nTelefonisch bereikbaar ma t/m do van 9 tot 12 uur\n{x}\n{e}",
                          "Grofvuil ophalen op afspraak\nMaak een afspraak via het gemeentelijk nummer\n{x}",
                          "Openhaardhout, droog en thuisbezorgd\nBestellen bij {n}, bel of app\n{x}",
                          "Manege {c}\nPaardrijles en zomerkampen – info telefonisch\n{x}",
                          "Woningruil: bied 3-kamerwoning in Utrecht, zoek 2 kamers in Groningen\nalleen bellen\n{x}",
                          "Buitengesloten? Slotenmaker, dag en nacht te bellen\n{x}"],
           "after": ["{x} (werkplaats – voor je fiets vraag naar {n})", "{x} – mijn nieuwe 06, het oude nummer werkt niet meer",
                     "{x} (studio, tijdens de les staat het antwoordapparaat aan)",
                     "{x} ← zwermenlijn, alleen in het seizoen bemand",
                     "{x} is het secretariaat van de vakgroep; docenten hebben een eigen toestel.",
                     "{x}, mobiel van de manege – liefst 's avonds",
                     "{n} {x} (mob.) – zaterdags meestal bij het boerderijwinkeltje"],
           "sentence": ["Na twaalf jaar in de Hoofdstraat zitten we vanaf maandag om de hoek in de Molenstraat; ook ons "
                        "telefoonnummer is veranderd, het is nu {x}.",
                        "Loopt je 10-lessenkaart halverwege het seizoen af, meld het aan de balie of bel de studio op {x}, "
                        "dan verlengen we hem.",
                        "Een bijenzwerm in je tuin? Niet bespuiten, maar {n} van de imkervereniging bellen op {x}.",
                        "Bankstellen, matrassen en koelkasten worden alleen opgehaald als u minstens een week van tevoren "
                        "telefonisch een afspraak maakt via {x}.",
                        "hoi allemaal 😊 wie zaterdag een kraam wil delen op de boerenmarkt stuur me een appje op {x}, ik "
                        "ben {n} uit de groep",
                        "Vragen over de vacature voordat je solliciteert? Werkplaatschef {n} staat je op werkdagen tussen "
                        "8 en 16 uur graag te woord via {x}.",
                        "De pianostemmer is in de week van de 14e in de buurt; wie zijn piano wil laten stemmen, belt {n} "
                        "even: {x}."],
           "form": ["Framenr.: WTU 2231 | Eigenaar: {n} | Tel.: {x} | Werk: grote beurt",
                    "Les | Docent | Mobiel docent\nHatha, di 18.30 | {n} | {x}",
                    "Aangeboden: 2-kamerappartement, 55 m²\nGezocht: 3 kamers met balkon\nNaam: {n}\nTel.: {x}\n"
                    "E-mail: {e}",
                    "Sollicitant: {n}\nTelefoon overdag: {x}\nE-mail: {e}\nFunctie: fietsenmaker (parttime)",
                    "Spullen: 1 bank, 1 koelkast · Aanvrager: {n} · Terugbelnummer: {x} · Ophaaldag: dinsdag",
                    "| Kraam | Aanbod | Standhouder | Mobiel |\n|:-:|---|---|---|\n| 14 | honing, kaarsen | {n} | {x} |",
                    "Student: {n} · Scriptiebegeleider: dr. De Vries · Mobiel nr.: {x}"],
           "prose_no_cue": ["Tweedehands kinderfietsen op de markt zaterdag, allemaal nagekeken door {n} ({x}).",
                            "[14-03-2024 19:02] {n}: {x} 👍",
                            "Vergeten yogamatten na de les van zondag – {n}, {x}.",
                            "Gratis af te halen: stekjes, rabarber en een roestige kruiwagen. {n}, {x}, Lombok.",
                            "Gekloofd haardhout van {n} – {x} – € 75 per kuub.",
                            "We zijn verhuisd! {n}, Lindelaan 14, {x}."]},
}
for _lang, _t in _PHONE_O.items():
    PHONE_T[_lang]["O"] = _t
ADDRESS_T["O"] = ["{n}\n{a}\n{x}\n\n{c}\n{e}", "[{c}]\n{a}\n{e} · {x}", "{e} | {x}\n{n}, {c}\n{a}",
                  "{n} / {c}\n{a}\n—\n{x}\n{e}", "{c}\n{a}\n{n}  {x}", "{n}\n{c}\n\n{a}\n\n{x}"]
for _lang, _t in {"en": ["Class cancellations and pass top-ups by email only, please: {e}",
                         "Our new email after the move is {e} – the old one will stop working at the end of the month.",
                         "Keen on the mechanic role? A few lines about yourself to {e} is plenty.",
                         "{n}\nFreelance developer\n{e} · www.example.dev"],
                  "de": ["Kursabsagen und Verlängerungen der Zehnerkarte bitte nur per Mail an {e}.",
                         "Nach dem Umzug sind wir unter {e} erreichbar, die alte Adresse wird Ende des Monats abgeschaltet.",
                         "Kurzbewerbung (ein paar Zeilen reichen) an {e}",
                         "{n}\nFreiberufliche Softwareentwicklung\n{e}"],
                  "fr": ["Annulations de cours et recharges de carte uniquement par courriel : {e}",
                         "Depuis le déménagement, notre adresse électronique est {e} ; l'ancienne sera fermée à la fin "
                         "du mois.",
                         "Candidatures spontanées (quelques lignes suffisent) à {e}",
                         "{n}\nDéveloppeuse indépendante\n{e}"],
                  "es": ["Cancelaciones de clases y recargas del bono, solo por correo: {e}",
                         "Tras la mudanza nuestro correo nuevo es {e}; el antiguo dejará de funcionar a fin de mes.",
                         "Interesados en la vacante, unas líneas de presentación a {e}",
                         "{n}\nDesarrollo web independiente\n{e}"],
                  "it": ["Disdette delle lezioni e rinnovi del carnet solo via email: {e}",
                         "Dopo il trasloco il nostro nuovo indirizzo email è {e}; quello vecchio sarà disattivato a fine mese.",
                         "Candidature per il posto in officina (bastano poche righe) a {e}",
                         "{n}\nSviluppatore freelance\n{e}"],
                  "pt": ["Cancelamento de aulas e renovação de pacote só por e-mail: {e}",
                         "Depois da mudança nosso e-mail novo é {e}; o antigo será desativado no fim do mês.",
                         "Interessados na vaga mandem uma apresentação curta para {e}",
                         "{n}\nDesenvolvedor freelancer\n{e}"],
                  "nl": ["Lessen afzeggen en je 10-lessenkaart verlengen kan alleen per mail: {e}",
                         "Na de verhuizing is ons nieuwe mailadres {e}; het oude wordt eind deze maand opgeheven.",
                         "Interesse in de vacature? Een paar regels over jezelf naar {e} is genoeg.",
                         "{n}\nFreelance ontwikkelaar\n{e}"]}.items():
    EMAIL_T[_lang]["O"] = _t
DISTRACTOR_T["O"] = [
    "Service docket {ord2}: new chain and cassette, {price}, ready from {date} – we'll text you when it's done.",
    "Yoga pass {cid}: 4 classes left, valid until {date}. Call the studio to pause it while you're away.",
    "We've moved! From {date} the shop is in the new premises (postcode {post}); the phone number stays the same.",
    "House swap listing {ord}: 3 bedrooms, sleeps 6, free from {date}; members can message or call the owners "
    "through the site.",
    "[{date}, 19:02] Market group admin: stall fees for {year} are {price}, paid to {iban}, ref. {cid} – text me if "
    "unsure.",
    "Job ref. {inv}: bike mechanic, {price} per hour, closing date {date}. No agency calls, please.",
    "Module {ord2}, lectures {time} in room {minutes}; the department office can't discuss marks over the phone.",
    "Bulky waste collection booked for {date} under booking no. {ref}; the crew will not phone before arriving.",
    "Swarm season {year}: {big} calls logged and {minutes} swarms rehomed by club members.",
    "Chimney sweep certificate {ref}, issued {date} – keep it for your insurer and ring us next autumn to rebook.",
    "Piano tuned on {date}, invoice {inv}, {price}; next tuning due in {year2} – we'll call to remind you.",
    "Firewood: {price} per cord delivered within postcode {post}; phone orders placed before {date} get the dry stock.",
    "Riding lesson voucher {ord}, value {price}, valid for {minutes} days from {date} – ring the yard to book.",
    "Puppy class enrolment {cid}: six weeks from {date}, {time} on Saturdays; text the trainer if your pup is unwell.",
    "Invoice {inv} · remote IT support at {price} · VAT no. {ref} · payment within 14 days to {iban}",
    "Lens prescription ref. {ref}, eyes tested {date}; frames ordered under job number {ord2} – we'll phone when "
    "they're in.",
    "Key code {ord2} is stamped on your spare; quote it when you call and we can cut a copy without the original.",
    "Snow plowing contract {inv}: {price} for the {year}/{year2} season; call us if the plow misses your driveway.",
    "Boat hire booking {ord} on {date}, slots {time}, deposit {price}; phone the jetty if the weather turns.",
    "Christmas trees from {price}, netted and delivered to postcode {post}; phone orders close {date}.",
    "Climbing wall membership {cid} renews on {date}; {big} climbers came through the doors in {year} – call the desk "
    "to freeze your plan.",
    "Festival lift share: {minutes} km each way, fuel split {price}, leaving {date} – message the driver, please don't ring.",
    "Apartment swap agreement {ref}: the exchange starts {date}; local emergency numbers are in the welcome folder.",
]


# Set P (heldout15): written after heldout14's score by a writer who read only this file, not the rules.
_PHONE_P = {
    "en": {"same_line": ["Box office (Tue–Sat from noon): {x}", "Ward 7B nurses' station – tel {x}",
                         "Cake & bread orders ph {x}", "Cub Scout leader {n}, mob {x}",
                         "Ferry terminal info line {x}", "Requests during the show: {x}",
                         "Same-day flower delivery, order on {x}"],
           "line_above": ["{c}\nBox office & group bookings\n{x}\nwww.example.ie",
                          "Visiting hours 2–4pm and 6.30–8pm\nTo ask after a patient, ring the ward\n{x}",
                          "Riverside Scout Group\nGroup Scout Leader: {n}\nMobile\n{x}",
                          "{c}\nBread & cake orders – please phone the day before\n{x}",
                          "Angling club – bailiff on duty\n(permits, night fishing, lost gear)\n{x}",
                          "{n}\nTax agent · BAS & individual returns\nPh\n{x}\n{e}",
                          "Home care – on-call coordinator (nights & weekends)\n{x}\n{c}"],
           "after": ["{x} (box office – answerphone outside opening hours)",
                     "{x} – ward phone, please avoid calling at shift handover",
                     "{x} (Cubs leader – text rather than call on meeting nights)",
                     "{x}, that's the bakery landline, we can't take orders by text",
                     "{x} – on-air studio, live shows only",
                     "{x} (gym reception, staffed 6am–10pm)",
                     "{n}: {x} (mob) – ghillie, knows the river well"],
           "sentence": ["Members of the cinema club can reserve seats for Friday's screening by ringing {n} on {x} no later "
                        "than Thursday evening.",
                        "Lovely week at the cottage! When the hot water went on day two we rang the owner on {x} and she "
                        "had a plumber round within the hour.",
                        "Hi {n}, just a heads-up that the kitchen tap in the flat is dripping again – if the plumber needs "
                        "to sort out access he can call me directly at {x}.",
                        "Donors who can't make the morning session at the parish hall are welcome in the afternoon; to book "
                        "a slot, or to check whether you're able to give blood, call the donor line on {x}.",
                        "Looking for someone to swap English for Italian over coffee once a week – I'm {n}, living in "
                        "Fitzroy, and you can text me on {x}.",
                        "If your mum's carer hasn't turned up within half an hour of the scheduled visit, please phone the "
                        "agency's on-call coordinator at {x} and we'll send someone else.",
                        "The recycling centre no longer takes paint or gas bottles without a booking – residents can "
                        "arrange a drop-off slot by calling {x}."],
           "form": ["Donor name: {n}\nDate of birth: –\nMobile for appointment reminders: {x}\nEmail: {e}",
                    "Class | Instructor | Instructor's phone\nSpin, Mon 6am | {n} | {x}",
                    "Client: {n} · Tax year: current · Preferred phone: {x} · Email: {e}",
                    "Order for: {n}\nPick-up: Saturday, 9am\nItems: 2 sourdough, 1 dozen scones\nPh: {x}",
                    "| Patrol | Leader | Parent contact |\n|---|---|---|\n| Kestrels | {n} | {x} |",
                    "Next of kin: {n}   Relationship: daughter   Tel. (day/evening): {x}",
                    "Wedding shoot enquiry — Couple: {n} — Venue: {c} — Best contact no.: {x} — Email: {e}"],
           "prose_no_cue": ["Gorgeous flowers for Mum's birthday from {n}'s little shop on Main Street ({x}), would order "
                            "again.",
                            "Plant swap at the community hall on Sunday, bring whatever you don't need. {n}, {x}.",
                            "Fresh bait and hand-tied flies from {n} at the slipway, {x}, most mornings from dawn.",
                            "Spare ticket for Saturday's matinee, row G, face value – {n} {x}",
                            "Book of condolence: thank you all for your kind words. {n} and family · {x}",
                            "Conversation partner wanted for Spanish; {n}, {x}, evenings in Cork."]},
    "de": {"same_line": ["Theaterkasse (Di–Sa ab 12 Uhr): {x}", "Stationszimmer Station 4 – Tel. {x}",
                         "Tortenbestellungen bitte unter {x}", "Wölfli-Leitung {n}, Natel {x}",
                         "Fahrplanauskunft Fähre: {x}", "Studiotelefon während der Sendung: {x}",
                         "Blumen {c} – Bestellungen für Trauerfloristik {x}"],
           "line_above": ["{c}\nKartenvorverkauf & Gruppenreservierungen\n{x}",
                          "Besuchszeiten täglich 14–19 Uhr\nAuskunft über Patienten telefonisch nur an Angehörige\n{x}",
                          "Pfadfinderstamm Falkenstein\nStammesführung: {n}\nHandy\n{x}",
                          "Bäckerei {c}\nVorbestellungen bitte bis 17 Uhr am Vortag\n{x}",
                          "Fischereiverein – Gewässerwart\n(Tageskarten, Nachtangeln, Fangmeldung)\n{x}",
                          "{n}\nSteuerberaterin · Lohn- und Einkommensteuer\nTel.\n{x}\n{e}",
                          "Spitex {c} – Pikettdienst nachts und am Wochenende\n{x}"],
           "after": ["{x} (Theaterkasse – außerhalb der Öffnungszeiten AB)",
                     "{x} – Stationstelefon, bitte nicht während der Übergabe anrufen",
                     "{x} (Leiterhandy, an Gruppenstunden lieber SMS)",
                     "{x} ist der Festnetzanschluss der Backstube, per SMS nehmen wir keine Bestellungen an",
                     "{x} – Studio, nur während Live-Sendungen besetzt",
                     "{x} (Empfang Fitnessstudio, 6–22 Uhr)",
                     "{n}: {x} (Natel) – Fischereiaufseher, kennt die Strecke"],
           "sentence": ["Mitglieder des Filmclubs können Plätze für die Freitagsvorstellung reservieren, indem sie bis "
                        "Donnerstagabend {n} unter {x} anrufen.",
                        "Tolle Woche im Ferienhaus! Als am zweiten Tag das Warmwasser ausfiel, haben wir die Vermieterin "
                        "unter {x} angerufen, und eine Stunde später war der Installateur da.",
                        "Hallo {n}, der Wasserhahn in der Küche tropft schon wieder – falls der Handwerker einen Termin "
                        "braucht, kann er mich direkt unter {x} erreichen.",
                        "Wer den Vormittagstermin der Blutspende im Gemeindehaus nicht schafft, kann auch nachmittags kommen; "
                        "Termine und Fragen zur Spendetauglichkeit beim Spenderservice unter {x}.",
                        "Suche Tandempartner/in: ich spreche Deutsch und möchte mein Französisch verbessern, einmal pro "
                        "Woche auf einen Kaffee in Zürich – schreibt mir eine SMS an {x}, Gruss {n}.",
                        "Sollte die Pflegekraft eine halbe Stunde nach dem vereinbarten Einsatz noch nicht da sein, rufen "
                        "Sie bitte die Einsatzleitung unter {x} an.",
                        "Farben, Lacke und Gasflaschen nimmt der Wertstoffhof nur noch nach Anmeldung an – einen "
                        "Abgabetermin bekommen Sie telefonisch unter {x}."],
           "form": ["Spender/in: {n}\nGeburtsdatum: –\nHandy für Terminerinnerungen: {x}\nE-Mail: {e}",
                    "Kurs | Trainer/in | Telefon Trainer/in\nSpinning, Mo 6 Uhr | {n} | {x}",
                    "Mandant/in: {n} · Veranlagungsjahr: laufend · Rückrufnummer: {x} · E-Mail: {e}",
                    "Bestellung für: {n}\nAbholung: Samstag, 9 Uhr\nArtikel: 2 Bauernbrote, 1 Zopf\nTel.: {x}",
                    "| Sippe | Leiter/in | Kontakt Eltern |\n|---|---|---|\n| Füchse | {n} | {x} |",
                    "Angehörige/r: {n}   Verhältnis: Tochter   Tel. (tagsüber/abends): {x}",
                    "Anfrage Hochzeitsreportage — Brautpaar: {n} — Location: {c} — Erreichbar unter: {x} — Mail: {e}"],
           "prose_no_cue": ["Wunderschöne Blumen zum Geburtstag meiner Mutter aus dem kleinen Laden von {n} in der "
                            "Hauptstraße ({x}), gerne wieder.",
                            "Pflanzentausch am Sonntag im Gemeindesaal, bringt mit, was ihr nicht mehr braucht. {n}, {x}.",
                            "Frische Köder und selbstgebundene Fliegen bei {n} am Bootssteg, {x}, meist ab Sonnenaufgang.",
                            "Eine Karte übrig für die Sonntagsmatinee, Reihe G, zum Originalpreis – {n} {x}",
                            "Kondolenzbuch: Danke für die vielen lieben Worte. {n} und Familie · {x}",
                            "Sprachpartner für Spanisch gesucht; {n}, {x}, abends in Basel."]},
    "fr": {"same_line": ["Billetterie (du mardi au samedi dès 12 h) : {x}", "Poste de soins, unité 4B – tél. {x}",
                         "Commandes de gâteaux au {x}", "Akela (louveteaux), {n}, cell. {x}",
                         "Traverse – renseignements : {x}", "Ligne des auditeurs pendant l'émission : {x}",
                         "Fleuriste {c} – livraison le jour même {x}"],
           "line_above": ["{c}\nBilletterie et réservations de groupe\n{x}",
                          "Heures de visite : 14 h – 20 h\nPour prendre des nouvelles d'un patient, appelez le poste\n{x}",
                          "Groupe scout Saint-Laurent\nResponsable de groupe : {n}\nCellulaire\n{x}",
                          "Boulangerie {c}\nCommandes la veille avant 17 h\n{x}",
                          "AAPPMA – garde-pêche de permanence\n(cartes, pêche de nuit, déclarations)\n{x}",
                          "{n}\nExpert-comptable · Déclarations de revenus\nTél.\n{x}\n{e}",
                          "Aide à domicile {c} – astreinte nuits et week-ends\n{x}"],
           "after": ["{x} (billetterie – répondeur en dehors des heures d'ouverture)",
                     "{x} – poste de soins, évitez les heures de relève svp",
                     "{x} (cell. de l'animateur, texto de préférence les soirs de réunion)",
                     "{x}, c'est le fixe du fournil, pas de commandes par SMS",
                     "{x} – studio, en ondes seulement",
                     "{x} (accueil de la salle de sport, de 6 h à 22 h)",
                     "{n} : {x} (portable) – garde-pêche, connaît bien la rivière"],
           "sentence": ["Les membres du ciné-club peuvent réserver leur place pour la projection de vendredi en appelant "
                        "{n} au {x} jusqu'à jeudi soir.",
                        "Super séjour au gîte ! Quand l'eau chaude a lâché le deuxième jour, on a appelé la propriétaire au "
                        "{x} et le plombier est passé dans l'heure.",
                        "Bonjour {n}, le robinet de la cuisine fuit de nouveau ; si le plombier doit convenir d'un passage, "
                        "il peut me joindre directement au {x}.",
                        "Les donneurs qui ne peuvent pas venir le matin à la salle des fêtes sont attendus l'après-midi ; "
                        "pour réserver un créneau ou savoir si vous pouvez donner votre sang, composez le {x}.",
                        "Je cherche un ou une partenaire d'échange linguistique (mon français contre ton espagnol), un café "
                        "par semaine sur le Plateau – texte-moi au {x}, {n}.",
                        "Si l'aide-soignante n'est pas arrivée trente minutes après l'heure prévue, téléphonez à la "
                        "coordinatrice de garde au {x} et nous enverrons quelqu'un d'autre.",
                        "La déchetterie n'accepte plus les pots de peinture ni les bouteilles de gaz sans rendez-vous ; on "
                        "le prend au {x}."],
           "form": ["Nom du donneur : {n}\nDate de naissance : –\nPortable pour les rappels : {x}\nCourriel : {e}",
                    "Cours | Coach | Tél. du coach\nSpinning, lundi 6 h | {n} | {x}",
                    "Client : {n} · Année d'imposition : en cours · Numéro de rappel : {x} · Courriel : {e}",
                    "Commande au nom de : {n}\nRetrait : samedi 9 h\nArticles : 2 miches, 1 tarte aux pommes\nTél. : {x}",
                    "| Patrouille | Chef | Contact parents |\n|---|---|---|\n| Castors | {n} | {x} |",
                    "Personne à prévenir : {n}   Lien : fille   Tél. (jour/soir) : {x}",
                    "Demande de séance photo — Mariés : {n} — Lieu : {c} — Joignable au : {x} — Courriel : {e}"],
           "prose_no_cue": ["De très jolies fleurs pour l'anniversaire de maman, chez {n}, la petite boutique de la "
                            "Grand-Rue ({x}), je recommande.",
                            "Troc de plantes dimanche à la salle paroissiale, apportez ce dont vous n'avez plus besoin. "
                            "{n}, {x}.",
                            "Vers et mouches montées main chez {n}, à la cale, {x}, presque tous les matins dès l'aube.",
                            "Une place en trop pour la matinée de dimanche, rangée G, au prix coûtant – {n} {x}",
                            "Registre de condoléances : merci pour tous vos mots. {n} et sa famille · {x}",
                            "Partenaire de conversation recherché pour l'allemand ; {n}, {x}, le soir à Québec."]},
    "es": {"same_line": ["Taquilla del teatro (de martes a sábado desde las 12): {x}", "Control de enfermería, planta 4 – tel. {x}",
                         "Pasteles y roscones por encargo al {x}", "Jefa de manada (lobatos), {n}, móvil {x}",
                         "Naviera – información y reservas: {x}", "Cabina de la radio durante el programa: {x}",
                         "Florería {c} – envíos el mismo día {x}"],
           "line_above": ["{c}\nTaquilla y reservas para grupos\n{x}",
                          "Horario de visitas: de 13 a 20 h\nPara preguntar por un paciente, llame al control de planta\n{x}",
                          "Grupo Scout San Jorge\nJefe de grupo: {n}\nMóvil\n{x}",
                          "Panadería {c}\nEncargos con un día de antelación, antes de las 17 h\n{x}",
                          "Sociedad de pescadores – guarda de turno\n(permisos, pesca nocturna, avisos)\n{x}",
                          "{n}\nAsesora fiscal · Declaración de la renta\nTel.\n{x}\n{e}",
                          "Atención domiciliaria {c} – guardia de noche y fines de semana\n{x}"],
           "after": ["{x} (taquilla – fuera de horario salta el contestador)",
                     "{x} – control de enfermería, por favor no llamen durante el cambio de turno",
                     "{x} (cel. del scouter, mejor un mensaje los días de reunión)",
                     "{x}, es el fijo del obrador, no aceptamos encargos por WhatsApp",
                     "{x} – cabina, solo en directo",
                     "{x} (recepción del gimnasio, de 6 a 22 h)",
                     "{n}: {x} (móvil) – guarda del coto, conoce bien el río"],
           "sentence": ["Los socios del cineclub pueden reservar butaca para la sesión del viernes llamando a {n} al {x} "
                        "hasta el jueves por la noche.",
                        "¡Una semana genial en la casa rural! Cuando se fue el agua caliente el segundo día llamamos a la "
                        "dueña al {x} y en una hora ya estaba aquí el fontanero.",
                        "Hola {n}, el grifo de la cocina vuelve a gotear; si el fontanero necesita quedar para entrar, que "
                        "me llame directamente al {x}.",
                        "Quien no pueda venir a donar sangre por la mañana al centro cívico puede hacerlo por la tarde; "
                        "para pedir cita o consultar si puede donar, marque el {x}.",
                        "Busco intercambio de idiomas: mi español por tu inglés, un café a la semana por la Condesa – "
                        "mándame un mensaje al {x}, soy {n}.",
                        "Si la cuidadora no ha llegado media hora después de la hora prevista, llame a la coordinadora de "
                        "guardia al {x} y enviaremos a otra persona.",
                        "El punto limpio ya no acepta pinturas ni bombonas sin cita previa; puede pedirla llamando al {x}."],
           "form": ["Nombre del donante: {n}\nFecha de nacimiento: –\nMóvil para recordatorios: {x}\nCorreo: {e}",
                    "Clase | Monitor/a | Tel. monitor/a\nSpinning, lunes 7 h | {n} | {x}",
                    "Cliente: {n} · Ejercicio: en curso · Teléfono de contacto: {x} · Correo: {e}",
                    "Encargo a nombre de: {n}\nRecogida: sábado, 9 h\nArtículos: 2 hogazas, 1 rosca\nTel.: {x}",
                    "| Patrulla | Responsable | Contacto familias |\n|---|---|---|\n| Castores | {n} | {x} |",
                    "Familiar de contacto: {n}   Parentesco: hija   Tel. (mañana/tarde): {x}",
                    "Solicitud de sesión de fotos — Novios: {n} — Lugar: {c} — Número de contacto: {x} — Correo: {e}"],
           "prose_no_cue": ["Flores preciosas para el cumpleaños de mi madre, de la tiendita de {n} en la calle Mayor "
                            "({x}), repetiré.",
                            "Trueque de plantas el domingo en el salón parroquial, traed lo que ya no uséis. {n}, {x}.",
                            "Cebo fresco y moscas hechas a mano con {n} en el embarcadero, {x}, casi todas las mañanas.",
                            "Me sobra una entrada para la función del domingo, fila G, a precio de taquilla – {n} {x}",
                            "Libro de condolencias: gracias por tantas palabras de cariño. {n} y familia · {x}",
                            "Busco compañero de conversación en alemán; {n}, {x}, por las tardes en Guadalajara."]},
    "it": {"same_line": ["Botteghino del teatro (dal martedì al sabato dalle 12): {x}", "Infermeria di reparto – tel. {x}",
                         "Ordinazioni torte al {x}", "Akela (lupetti), {n}, cell. {x}",
                         "Traghetti – informazioni e biglietteria: {x}", "Linea ascoltatori durante la diretta: {x}",
                         "Fioreria {c} – consegne in giornata {x}"],
           "line_above": ["{c}\nBiglietteria e prenotazioni gruppi\n{x}",
                          "Orari di visita: 12:30–14 e 18–20\nPer notizie sui ricoverati chiamare la caposala\n{x}",
                          "Gruppo scout San Giorgio\nCapo gruppo: {n}\nCellulare\n{x}",
                          "Panificio {c}\nOrdinazioni entro le 17 del giorno prima\n{x}",
                          "Associazione pescatori – guardiapesca di turno\n(permessi, pesca notturna, segnalazioni)\n{x}",
                          "{n}\nCommercialista · 730 e dichiarazioni dei redditi\nTel.\n{x}\n{e}",
                          "Assistenza domiciliare {c} – reperibilità notturna e festiva\n{x}"],
           "after": ["{x} (botteghino – fuori orario risponde la segreteria)",
                     "{x} – infermeria, evitate di chiamare durante il cambio turno",
                     "{x} (cell. del capo reparto, meglio un messaggio le sere di riunione)",
                     "{x}, è il fisso del laboratorio, non prendiamo ordini su WhatsApp",
                     "{x} – regia, solo durante la diretta",
                     "{x} (reception della palestra, dalle 6 alle 22)",
                     "{n}: {x} (cell.) – guardiapesca, conosce bene il fiume"],
           "sentence": ["I soci del cineforum possono prenotare il posto per la proiezione di venerdì telefonando a {n} al "
                        "{x} entro giovedì sera.",
                        "Settimana splendida nel casale! Quando il secondo giorno è saltata l'acqua calda abbiamo chiamato "
                        "la proprietaria al {x} e nel giro di un'ora è arrivato l'idraulico.",
                        "Buongiorno {n}, il rubinetto della cucina perde di nuovo; se l'idraulico deve fissare un "
                        "appuntamento può chiamarmi direttamente al {x}.",
                        "Chi non riesce a venire a donare il sangue la mattina in sala parrocchiale può passare il "
                        "pomeriggio; per prenotare o chiedere se si è idonei, basta chiamare il {x}.",
                        "Cerco tandem linguistico: il mio italiano in cambio del tuo inglese, un caffè a settimana in zona "
                        "Porta Venezia – scrivimi un messaggio al {x}, sono {n}.",
                        "Se l'operatrice non è arrivata mezz'ora dopo l'orario previsto, chiamate la coordinatrice "
                        "reperibile al {x} e manderemo qualcun altro.",
                        "L'isola ecologica non ritira più vernici e bombole senza prenotazione: si prenota telefonando al {x}."],
           "form": ["Donatore: {n}\nData di nascita: –\nCellulare per i promemoria: {x}\nEmail: {e}",
                    "Corso | Istruttore | Cell. istruttore\nSpinning, lun. ore 7 | {n} | {x}",
                    "Cliente: {n} · Anno d'imposta: in corso · Recapito telefonico: {x} · PEC/email: {e}",
                    "Ordine a nome di: {n}\nRitiro: sabato ore 9\nArticoli: 2 filoni, 1 crostata\nTel.: {x}",
                    "| Squadriglia | Capo | Contatto genitori |\n|---|---|---|\n| Aquile | {n} | {x} |",
                    "Familiare di riferimento: {n}   Parentela: figlia   Tel. (giorno/sera): {x}",
                    "Richiesta servizio fotografico — Sposi: {n} — Location: {c} — Numero: {x} — Email: {e}"],
           "prose_no_cue": ["Fiori bellissimi per il compleanno della mamma, dal negozietto di {n} in via Roma ({x}), "
                            "consigliato.",
                            "Baratto di piante domenica nel salone dell'oratorio, portate quello che non vi serve. {n}, {x}.",
                            "Esche fresche e mosche fatte a mano da {n} allo scivolo delle barche, {x}, quasi tutte le "
                            "mattine.",
                            "Avanzo un biglietto per la pomeridiana di domenica, fila G, a prezzo di botteghino – {n} {x}",
                            "Libro delle condoglianze: grazie per le tante parole d'affetto. {n} e famiglia · {x}",
                            "Cerco partner di conversazione per il tedesco; {n}, {x}, la sera a Torino."]},
    "pt": {"same_line": ["Bilheteira do teatro (terça a sábado a partir das 12h): {x}", "Sala de enfermagem, piso 4 – tel. {x}",
                         "Encomendas de bolos pelo {x}", "Chefe de alcateia (lobitos), {n}, tlm. {x}",
                         "Ligações fluviais – informações ao público: {x}", "Linha dos ouvintes durante o programa: {x}",
                         "Florista {c} – entregas no próprio dia {x}"],
           "line_above": ["{c}\nBilheteira e reservas de grupo\n{x}",
                          "Horário de visitas: 15h–20h\nPara notícias de um doente, ligue para o serviço\n{x}",
                          "Agrupamento de escuteiros de São Vicente\nChefe de agrupamento: {n}\nTelemóvel\n{x}",
                          "Padaria {c}\nEncomendas até às 17h do dia anterior\n{x}",
                          "Clube de pesca – guarda de serviço\n(licenças, pesca noturna, ocorrências)\n{x}",
                          "{n}\nContabilista certificada · IRS e IRC\nTel.\n{x}\n{e}",
                          "Apoio domiciliário {c} – piquete noites e fins de semana\n{x}"],
           "after": ["{x} (bilheteira – fora de horas atende o gravador)",
                     "{x} – sala de enfermagem, evitem ligar na passagem de turno",
                     "{x} (tlm. do chefe, de preferência SMS nas noites de reunião)",
                     "{x}, é o fixo da padaria, não aceitamos encomendas por SMS",
                     "{x} – estúdio, só em direto",
                     "{x} (receção do ginásio, das 6h às 22h)",
                     "{n}: {x} (tlm.) – guarda-rios, conhece bem o rio"],
           "sentence": ["Os sócios do cineclube podem reservar lugar para a sessão de sexta ligando a {n} para o {x} até "
                        "quinta à noite.",
                        "Semana ótima na casa de campo! Quando a água quente falhou no segundo dia ligámos à senhoria para "
                        "o {x} e numa hora o canalizador estava cá.",
                        "Olá {n}, a torneira da cozinha voltou a pingar; se o canalizador precisar de combinar a visita, "
                        "pode ligar-me diretamente para o {x}.",
                        "Quem não puder vir dar sangue de manhã ao salão da junta pode vir à tarde; para marcar ou saber se "
                        "pode dar, ligue para o {x}.",
                        "Procuro parceiro de tandem: o meu português pelo teu inglês, um café por semana no Porto – manda-me "
                        "mensagem para o {x}, sou {n}.",
                        "Se a ajudante não tiver chegado meia hora depois da hora marcada, contacte a coordenadora de "
                        "piquete através do {x} e enviaremos outra pessoa.",
                        "O ecocentro já não aceita tintas nem botijas de gás sem marcação, que se faz pelo {x}."],
           "form": ["Nome do dador: {n}\nData de nascimento: –\nTelemóvel para lembretes: {x}\nE-mail: {e}",
                    "Aula | Instrutor(a) | Tlm. instrutor(a)\nCycling, 2.ª às 7h | {n} | {x}",
                    "Cliente: {n} · Ano fiscal: corrente · Contacto telefónico: {x} · E-mail: {e}",
                    "Encomenda em nome de: {n}\nLevantamento: sábado, 9h\nArtigos: 2 broas, 1 bolo-rei\nTel.: {x}",
                    "| Patrulha | Guia | Contacto dos pais |\n|---|---|---|\n| Lobos | {n} | {x} |",
                    "Familiar a contactar: {n}   Parentesco: filha   Tel. (dia/noite): {x}",
                    "Pedido de sessão fotográfica — Noivos: {n} — Local: {c} — Contacto: {x} — E-mail: {e}"],
           "prose_no_cue": ["Flores lindíssimas para os anos da minha mãe, da lojinha de {n} na Rua Direita ({x}), "
                            "recomendo.",
                            "Troca de plantas no domingo no salão paroquial, tragam o que já não usam. {n}, {x}.",
                            "Isco fresco e moscas feitas à mão com {n} junto à rampa dos barcos, {x}, quase todas as manhãs.",
                            "Sobra-me um bilhete para a matiné de domingo, fila G, a preço de bilheteira – {n} {x}",
                            "Livro de condolências: obrigado por todas as palavras. {n} e família · {x}",
                            "Procuro parceiro de conversação em alemão; {n}, {x}, à noite em Coimbra."]},
    "nl": {"same_line": ["Theaterkassa (di–za vanaf 12 u): {x}", "Verpleegpost afdeling 4B – tel. {x}",
                         "Taartbestellingen op {x}", "Takleiding Welpen, {n}, gsm {x}",
                         "Veerdienst – info en reservaties: {x}", "Studiolijn tijdens de uitzending: {x}",
                         "Bloemenwinkel {c} – levering dezelfde dag {x}"],
           "line_above": ["{c}\nTicketverkoop en groepsreservaties\n{x}",
                          "Bezoekuren: 14 tot 20 uur\nVoor nieuws over een patiënt belt u de verpleegpost\n{x}",
                          "Scouts Sint-Jan\nGroepsleiding: {n}\nGsm\n{x}",
                          "Bakkerij {c}\nBestellingen de dag voordien vóór 17 u\n{x}",
                          "Hengelclub – dienstdoende visserijwachter\n(vergunningen, nachtvissen, meldingen)\n{x}",
                          "{n}\nBoekhouder-fiscalist · personenbelasting\nTel.\n{x}\n{e}",
                          "Thuiszorg {c} – permanentie 's nachts en in het weekend\n{x}"],
           "after": ["{x} (kassa – buiten de openingsuren antwoordapparaat)",
                     "{x} – verpleegpost, liefst niet bellen tijdens de overdracht",
                     "{x} (gsm leiding, op vergaderavonden liever een sms)",
                     "{x}, dat is de vaste lijn van het bakhuis, bestellingen via sms nemen we niet aan",
                     "{x} – studio, enkel tijdens live-uitzendingen",
                     "{x} (onthaal fitness, van 6 tot 22 u)",
                     "{n}: {x} (gsm) – visserijwachter, kent de rivier goed"],
           "sentence": ["Leden van de filmclub kunnen een plaats reserveren voor de vertoning van vrijdag door tot "
                        "donderdagavond {n} te bellen op {x}.",
                        "Heerlijke week in het vakantiehuisje! Toen op dag twee het warm water uitviel, belden we de "
                        "eigenares op {x} en binnen het uur stond de loodgieter er.",
                        "Dag {n}, de keukenkraan druppelt opnieuw; als de loodgieter een afspraak wil maken, mag hij mij "
                        "rechtstreeks bellen op {x}.",
                        "Wie 's ochtends niet naar de bloedinzameling in de parochiezaal kan komen, is 's namiddags welkom; "
                        "om een afspraak te maken of te vragen of u bloed mag geven, belt u {x}.",
                        "Taalpartner gezocht: mijn Nederlands tegen jouw Spaans, één koffie per week in Gent – stuur me een "
                        "berichtje op {x}, ik ben {n}.",
                        "Is de verzorgende een halfuur na het afgesproken uur nog niet aangekomen, bel dan de coördinator "
                        "van wacht op {x} en we sturen iemand anders.",
                        "Het recyclagepark neemt verf en gasflessen enkel nog aan op afspraak; die maakt u via {x}."],
           "form": ["Naam donor: {n}\nGeboortedatum: –\nGsm voor herinneringen: {x}\nE-mail: {e}",
                    "Les | Coach | Gsm coach\nSpinning, ma 7 u | {n} | {x}",
                    "Klant: {n} · Aanslagjaar: lopend · Terugbelnummer: {x} · E-mail: {e}",
                    "Bestelling op naam van: {n}\nAfhalen: zaterdag 9 u\nArtikelen: 2 grijze broden, 1 rijsttaart\n"
                    "Tel.: {x}",
                    "| Patrouille | Leider | Contact ouders |\n|---|---|---|\n| Bevers | {n} | {x} |",
                    "Contactpersoon familie: {n}   Relatie: dochter   Tel. (dag/avond): {x}",
                    "Aanvraag fotoshoot — Koppel: {n} — Locatie: {c} — Bereikbaar op: {x} — E-mail: {e}"],
           "prose_no_cue": ["Prachtige bloemen voor de verjaardag van mama, uit het winkeltje van {n} in de Kerkstraat "
                            "({x}), aanrader.",
                            "Plantenruil zondag in de parochiezaal, breng mee wat je niet meer gebruikt. {n}, {x}.",
                            "Vers aas en zelfgebonden vliegen bij {n} aan de botenhelling, {x}, bijna elke ochtend.",
                            "Eén ticket over voor de matinee van zondag, rij G, aan kassaprijs – {n} {x}",
                            "Rouwregister: bedankt voor alle lieve woorden. {n} en familie · {x}",
                            "Conversatiepartner gezocht voor Duits; {n}, {x}, 's avonds in Leuven."]},
}
for _lang, _t in _PHONE_P.items():
    PHONE_T[_lang]["P"] = _t
ADDRESS_T["P"] = ["{n}\n{c}\n{a}\n\n{x} – {e}", "{a}\n{n}\n{x}\n{e}", "{e}\n{x}\n{n}\n{c}\n{a}",
                  "{c}, {n}\n{a}\n{x} · {e}", "{a}\n{x} ({n})", "{n} | {c}\n{x}\n{a}"]
for _lang, _t in {"en": ["Box office questions that aren't urgent can go to {e}.",
                         "Scans of your receipts for the tax return → {e}",
                         "Visiting rota swaps: email the ward clerk, {e}",
                         "{n}\nCubs leader\n{e}"],
                  "de": ["Nicht dringende Fragen zum Kartenvorverkauf gern per Mail an {e}.",
                         "Belege für die Steuererklärung bitte eingescannt an {e}",
                         "Änderungen im Besuchsplan per Mail ans Stationssekretariat: {e}",
                         "{n}\nWölflingsleitung\n{e}"],
                  "fr": ["Pour les questions non urgentes sur la billetterie, écrivez-nous à {e}.",
                         "Justificatifs pour la déclaration, scannés, à envoyer à {e}",
                         "Changements au planning des visites : un courriel à la secrétaire du service, {e}",
                         "{n}\nChef de meute\n{e}"],
                  "es": ["Las consultas no urgentes sobre entradas, mejor por correo a {e}.",
                         "Escaneen los justificantes para la renta y mándenlos a {e}",
                         "Cambios en el turno de visitas: correo a la secretaria de planta, {e}",
                         "{n}\nJefa de manada\n{e}"],
                  "it": ["Per domande non urgenti sui biglietti scriveteci a {e}.",
                         "Scansioni dei documenti per il 730 → {e}",
                         "Cambi nei turni di visita: una mail alla segreteria di reparto, {e}",
                         "{n}\nCapo branco\n{e}"],
                  "pt": ["Dúvidas não urgentes sobre bilhetes, de preferência por e-mail para {e}.",
                         "Digitalize os recibos para o IRS e envie para {e}",
                         "Trocas no horário de visitas: e-mail para a secretária do serviço, {e}",
                         "{n}\nChefe de alcateia\n{e}"],
                  "nl": ["Niet-dringende vragen over tickets mail je best naar {e}.",
                         "Scans van je fiscale attesten graag naar {e}",
                         "Wijzigingen in het bezoekrooster: mail het secretariaat van de afdeling, {e}",
                         "{n}\nTakleiding Welpen\n{e}"]}.items():
    EMAIL_T[_lang]["P"] = _t
DISTRACTOR_T["P"] = [
    "Booking ref. {ord} · Row G, seats 14–15 · Matinee {date} · {price} – call the box office if you need wheelchair space.",
    "Cinema club membership {cid} runs until {date}; {big} tickets were sold in the {year} season – phone the secretary "
    "to renew.",
    "Tax return {year}/{year2}: refund of {price} expected, taxpayer reference {ref}; our office will ring you if the "
    "revenue asks for anything else.",
    "Donor no. {cid}: thank you for giving blood on {date} – we'll text you when you're able to donate again.",
    "Ferry booking {ord}, vehicle and two passengers, fare {price}, sailing on {date}; ring the terminal if you'll miss "
    "check-in.",
    "Route {minutes} timetable changes from {date}, services {time}; the customer contact centre can't reserve seats by "
    "phone.",
    "Gym membership {cid}: direct debit of {price} on {date} from {iban} – call reception to freeze your plan.",
    "Recycling centre permit {ref}, valid until {date}, for vans up to {minutes} cm high; phone bookings {time}.",
    "Fishing permit {ord2}, season {year}, beat {minutes}; the bailiff may call to check your catch return by {date}.",
    "Photo order {ord}: {minutes} prints, {price}, ready for collection on {date} – we'll text you when they're done.",
    "Florist order {inv}: wreath delivered to the funeral home on {date}, {price} charged to card; call us with any changes.",
    "Bakery order {ord2}: three dozen rolls for {date}, {price} paid; phone orders close at noon the day before.",
    "Scout camp fee {price} for {year}, payable to {iban} quoting member no. {cid}; ring the treasurer with questions.",
    "Ward visiting, bed {minutes}: patient ref. {ref}; nursing staff can't give test results over the phone.",
    "Our community station reached {big} listeners in {year}; the request line is open {time} on weekdays.",
    "Cottage booking {ord}, arriving {date}, balance of {price} to {iban}; the owners will ring the day before with the "
    "key-safe code.",
    "Rent receipt {inv}: {price} received on {date} for the flat at postcode {post} – tenants should call the landlord, "
    "not the agent, about repairs.",
    "Language exchange meetup no. {minutes}: {time} at the library, postcode {post}; text the organiser if you're "
    "bringing friends.",
    "Home care invoice {inv}: {minutes} hours at {price}, period ending {date}; call the office to query a visit.",
    "Online condolence book {ref}: {big} messages were left between {date} and the funeral; the family thanks everyone "
    "who phoned.",
    "Fee note {inv} from your tax adviser: {price} for the {year} return, client no. {cid}; we'll call when it's lodged.",
    "ISBN {isbn} – the theatre's centenary history, {price} at the box office, or phone to order a signed copy.",
    "Charity five-a-side at the gym: final score {score}, {big} raised for the blood service – text the organiser for "
    "photos.",
]


# Set Q (heldout16): written after heldout15's score by a writer who read only this file, not the rules.
_PHONE_Q = {
    "en": {"same_line": ["Escape room bookings (groups of 2–6): {x}", "Driving lessons – manual & automatic – text {x}",
                         "Lost property at the laundrette? Ring {x}", "Ski school meeting point & lesson changes: {x}",
                         "Site manager (out of hours): {x}", "Hut warden, bunk reservations – mob. {x}"],
           "line_above": ["{c}\nAlterations · hems · zips while you wait\nGive us a ring\n{x}",
                          "Eastside Chess Club – Thursdays, church hall\nJunior section, ask for {n}\nCell\n{x}",
                          "CONSIDERATE CONSTRUCTOR – 24 hr emergency contact\nIf you have a concern about this site please call\n"
                          "{x}",
                          "Youth Orchestra – rehearsal cancellations\nListen out for a text from\n{x}\n(that's {n}, the "
                          "orchestra manager)",
                          "{n}, B.Phty\nAppointments & cancellations\nPh.\n{x}",
                          "{c} Brewery – taproom & growler fills\nTap room landline:\n{x}\n{e}"],
           "after": ["{x} (ask for {n} – I do the lessons myself, cash or bank transfer)",
                     "{x} ← print shop, leave a voicemail if we're on the press",
                     "{x} (my mobile, not the optician's main number)",
                     "{x} - landline at the hut, only answered 7–9am and 6–8pm",
                     "{x} cell, texts are fine, I'm usually on the slopes",
                     "{n} {x} (after-hours on-call physio)"],
           "sentence": ["Got an old sofa or a broken washing machine going to waste? My nephew and I have a ute and can "
                        "take it to the tip for a koha – just flick me a text on {x}.",
                        "Carpool from Hamilton to the Saturday tournament: leaving 7am, room for three and a board bag, "
                        "message {n} on {x} if you want a seat.",
                        "Before issuing a claim in the small claims track, I wrote to you on two occasions and tried to "
                        "reach your accounts department by telephone on {x}, without any response.",
                        "If you can't get to your polling station on the day, your local electoral office can tell you about "
                        "advance voting – phone them on {x} or drop in.",
                        "Our maths tutor {n} covers GCSE and A-level, and parents can book a free first session by "
                        "ringing her directly on {x} after school hours.",
                        "Prescription glasses ready for collection at {c}; if the frames need adjusting, give the shop a "
                        "call at {x} and we'll fit you in."],
           "form": ["Room | Players | Lead booker | Contact\nThe Vault | 5 | {n} | {x}",
                    "Learner: {n}\nLicence type: Class 1L\nBest no. to reach you: {x}\nEmail: {e}",
                    "Item(s) for collection: fridge, 2 mattresses · Name: {n} · Cell #: {x} · Access: side gate",
                    "Section    Name                 Mob.\nViolas     {n}          {x}",
                    "Claimant: {n}\nDefendant: {c}\nClaimant's telephone: {x}\nClaimant's email: {e}",
                    "Plot holder – {n} / plot 14B / daytime tel {x} / {e}"],
           "prose_no_cue": ["Chess sets left in the hall after Thursday's match – {n}, {x}, has the key.",
                            "Spare lift to Wanaka on Friday, leaving from the Caltex, {n} {x}.",
                            "Hems taken up in a day, zips replaced, {n}'s little shop behind the station: {x}.",
                            "Bottle share at the brewery this Sunday, bring something weird! {n} — {x}",
                            "Apples from the orchard, free to a good home, pick your own. {n}: {x}",
                            "Lovely patient teacher, my daughter passed first time – {n}, {x}, highly recommend."]},
    "de": {"same_line": ["Escape Room – Buchung für Gruppen: {x}", "Fahrschule {c}, Büro Mo–Fr: {x}",
                         "Schachklub Jugendtraining, Infos bei {n} – Handy {x}", "Skischule Kursbüro Tel.Nr. {x}",
                         "Bauleitung (Notfälle, auch nachts): {x}", "Hüttenwirt Reservierung ☎ {x}"],
           "line_above": ["Änderungsschneiderei {c}\nKürzen · Reißverschlüsse · Expressservice\nRufen Sie uns an\n{x}",
                          "Jugendorchester – Probenausfall\nKurzfristige Infos per WhatsApp von\n{x}",
                          "BAUSTELLE – Ansprechpartner bei Beschwerden\nBauleiter {n}\nMobil\n{x}",
                          "Physiotherapie {n}\nTermine & Absagen (bitte 24 h vorher)\nTel.\n{x}",
                          "Sperrmüll? Wir holen ab!\nEinfach anrufen oder SMS an\n{x}\n{n}",
                          "Kleinbrauerei {c} – Rampenverkauf\nBestellungen Fassbier\nFestnetz:\n{x}"],
           "after": ["{x} (Fahrlehrer {n}, bitte nicht während der Fahrstunden anrufen)",
                     "{x} – Copyshop, Anrufbeantworter läuft wenn wir drucken",
                     "{x} (mein Handy, nicht die Nummer vom Optikergeschäft)",
                     "{x} – Hüttentelefon, nur 7–9 und 18–20 Uhr besetzt",
                     "{x} Handy, SMS passt, bin meistens auf der Piste",
                     "{n} {x} (Vertretung Physio, nur dringende Fälle)"],
           "sentence": ["Alte Couch oder kaputte Waschmaschine im Keller? Mein Bruder und ich haben einen Anhänger und "
                        "bringen das Zeug für ein kleines Trinkgeld zum Mistplatz – ruf einfach an unter {x}.",
                        "Fahrgemeinschaft zum Schachturnier nach Linz: Abfahrt 7 Uhr, noch drei Plätze frei, bei Interesse "
                        "bitte {n} unter {x} Bescheid geben.",
                        "Bevor ich das Mahnverfahren einleite, habe ich Sie zweimal angeschrieben und mehrfach versucht, Ihre "
                        "Buchhaltung telefonisch unter {x} zu erreichen – leider ohne Erfolg.",
                        "Wer am Wahlsonntag verhindert ist, kann beim Wahlamt eine Wahlkarte beantragen; Auskünfte gibt es "
                        "auch telefonisch unter {x}.",
                        "Mathe-Nachhilfe für Unterstufe und Matura: {n} bietet eine kostenlose Probestunde an, Eltern "
                        "erreichen sie nachmittags unter {x}.",
                        "Ihre neue Brille ist abholbereit; sollte der Bügel drücken, melden Sie sich einfach bei uns unter "
                        "{x}, wir richten das sofort."],
           "form": ["Raum | Spieler | Gebucht von | Rückruf\nDas Labor | 4 | {n} | {x}",
                    "Fahrschüler/in: {n}\nFührerscheinklasse: B\nErreichbar unter: {x}\nE-Mail: {e}",
                    "Abzuholen: Kühlschrank, 2 Matratzen · Name: {n} · Handynr.: {x} · Zufahrt: Hof",
                    "Register    Name                 Mobil\nBratschen   {n}          {x}",
                    "Kläger/in: {n}\nBeklagte/r: {c}\nTelefonnummer Kläger/in: {x}\nE-Mail: {e}",
                    "Parzelle 14B – Pächter: {n} / tagsüber Tel. {x} / {e}"],
           "prose_no_cue": ["Schachbretter nach dem Donnerstagsturnier im Saal vergessen – {n}, {x}, hat den Schlüssel.",
                            "Freitag noch ein Platz frei nach Innsbruck, Abfahrt Westbahnhof, {n} {x}.",
                            "Hosen kürzen am selben Tag, Reißverschlüsse tauschen, {n}s kleiner Laden beim Bahnhof: {x}.",
                            "Bierverkostung in der Brauerei am Sonntag, bringt was Ausgefallenes mit! {n} — {x}",
                            "Äpfel von der Streuobstwiese zu verschenken, selbst pflücken. {n}: {x}",
                            "Sehr geduldiger Fahrlehrer, meine Tochter hat beim ersten Mal bestanden – {n}, {x}, absolut "
                            "empfehlenswert."]},
    "fr": {"same_line": ["Escape game – réservations pour groupes : {x}", "Auto-école {c}, secrétariat : {x}",
                         "Club d'échecs, section jeunes, renseignements auprès de {n} – natel {x}",
                         "École de ski, bureau des cours : tél. {x}", "Conducteur de travaux (urgences, même la nuit) : {x}",
                         "Gardien du refuge – réservations ☎ {x}"],
           "line_above": ["Retouches {c}\nOurlets · fermetures éclair · service express\nPassez-nous un coup de fil\n{x}",
                          "Orchestre des jeunes – annulation de répétition\nInfos de dernière minute par SMS depuis le\n{x}",
                          "CHANTIER – interlocuteur pour les riverains\nChef de chantier : {n}\nPortable\n{x}",
                          "{n}, physiothérapeute\nRendez-vous et annulations (24 h à l'avance)\nTél.\n{x}",
                          "Débarras d'encombrants – on vient chercher !\nAppel ou SMS au\n{x}\n{n}",
                          "Brasserie artisanale {c} – vente à la propriété\nCommandes de fûts\nFixe :\n{x}"],
           "after": ["{x} (moniteur {n}, merci de ne pas appeler pendant les leçons)",
                     "{x} – imprimerie, laissez un message si on est sur la machine",
                     "{x} (mon portable, pas le numéro du magasin d'optique)",
                     "{x} – téléphone du refuge, répond de 7 h à 9 h et de 18 h à 20 h",
                     "{x} natel, les SMS ça joue, je suis souvent sur les pistes",
                     "{n} {x} (remplaçante, kiné, urgences uniquement)"],
           "sentence": ["Un vieux canapé ou un lave-linge en panne qui encombre la cave ? Avec mon beau-frère on a une "
                        "remorque et on l'emmène à la déchetterie contre un petit pourboire, il suffit de m'appeler au {x}.",
                        "Covoiturage pour le tournoi d'échecs à Lausanne : départ 7 h de la gare, trois places libres, "
                        "contactez {n} au {x} si ça vous intéresse.",
                        "Avant de saisir le juge de proximité, je vous ai adressé deux courriers et j'ai tenté à plusieurs "
                        "reprises de joindre votre service comptable au {x}, sans succès.",
                        "Les électeurs absents le jour du scrutin peuvent voter par procuration ; la mairie renseigne aussi "
                        "par téléphone au {x}.",
                        "Cours particuliers de maths, du collège au bac : {n} propose un premier cours d'essai gratuit, les "
                        "parents peuvent la joindre l'après-midi au {x}.",
                        "Vos nouvelles lunettes sont prêtes ; si la monture vous serre, appelez simplement la boutique au "
                        "{x} et on vous l'ajuste tout de suite."],
           "form": ["Salle | Joueurs | Réservé par | Rappel\nLe Laboratoire | 4 | {n} | {x}",
                    "Élève conducteur : {n}\nPermis : B\nJoignable au : {x}\nCourriel : {e}",
                    "À enlever : frigo, 2 matelas · Nom : {n} · N° de portable : {x} · Accès : par la cour",
                    "Pupitre     Nom                  Natel\nAltos       {n}          {x}",
                    "Demandeur : {n}\nDéfendeur : {c}\nTéléphone du demandeur : {x}\nAdresse électronique : {e}",
                    "Parcelle 14B – jardinier : {n} / tél. journée {x} / {e}"],
           "prose_no_cue": ["Échiquiers oubliés dans la salle après le tournoi de jeudi – {n}, {x}, a la clé.",
                            "Encore une place vendredi pour Verbier, départ de la gare, {n} {x}.",
                            "Ourlets faits dans la journée, fermetures changées, la petite boutique de {n} derrière la gare : "
                            "{x}.",
                            "Dégustation à la brasserie dimanche, apportez quelque chose d'original ! {n} — {x}",
                            "Pommes du verger à donner, cueillette sur place. {n} : {x}",
                            "Monitrice très patiente, ma fille a eu le permis du premier coup – {n}, {x}, je recommande."]},
    "es": {"same_line": ["Escape room – reservas para grupos: {x}", "Autoescuela {c}, oficina de lunes a viernes: {x}",
                         "Club de ajedrez, escuela infantil, pregunten por {n} – cel. {x}",
                         "Escuela de esquí, oficina de cursillos: tfno. {x}", "Jefe de obra (urgencias, también de noche): {x}",
                         "Guarda del refugio – reservas de litera ☎ {x}"],
           "line_above": ["Arreglos de ropa {c}\nBajos · cremalleras · servicio exprés\nLlámenos sin compromiso\n{x}",
                          "Orquesta juvenil – suspensión de ensayos\nAvisos de última hora por WhatsApp desde el\n{x}",
                          "OBRA EN CURSO – atención a vecinos\nJefe de obra: {n}\nCelular\n{x}",
                          "{n}, fisioterapeuta colegiada\nCitas y anulaciones (con 24 h de antelación)\nTfno.\n{x}",
                          "Recogida de muebles y trastos viejos\nLlámame o mándame un wasap al\n{x}\n{n}",
                          "Cervecería artesanal {c} – venta en fábrica\nPedidos de barriles\nFijo:\n{x}"],
           "after": ["{x} (profesor {n}, no llamar durante las clases prácticas, gracias)",
                     "{x} – imprenta, dejen mensaje si estamos con la máquina",
                     "{x} (mi celular, no el número de la óptica)",
                     "{x} – teléfono del refugio, solo se atiende de 7 a 9 y de 18 a 20 h",
                     "{x} móvil, mejor por mensaje que estoy casi siempre en pistas",
                     "{n} {x} (fisio de guardia, solo urgencias)"],
           "sentence": ["¿Tienes un sofá viejo o una lavadora rota ocupando el trastero? Mi cuñado y yo tenemos furgoneta y "
                        "lo llevamos al punto limpio por la voluntad, solo tienes que llamarme al {x}.",
                        "Comparto carro al torneo de ajedrez en Medellín: salgo a las 6 de la mañana, quedan tres puestos, "
                        "escríbanle a {n} al {x} si les sirve.",
                        "Antes de presentar la demanda en el juicio verbal le envié dos burofaxes y llamé varias veces a su "
                        "departamento de contabilidad al {x} sin obtener respuesta alguna.",
                        "Si el día de las elecciones no puede acudir a su mesa electoral, infórmese sobre el voto por correo "
                        "en la oficina del censo o llamando al {x}.",
                        "Clases particulares de matemáticas para ESO y bachillerato: {n} ofrece la primera clase gratis y "
                        "los padres pueden contactarla por las tardes en el {x}.",
                        "Sus gafas nuevas ya están listas; si la montura le molesta, llame a la óptica al {x} y se la "
                        "ajustamos en el momento."],
           "form": ["Sala | Jugadores | Reserva a nombre de | Tel. de contacto\nEl Búnker | 5 | {n} | {x}",
                    "Alumno/a: {n}\nPermiso: B\nTeléfono donde localizarle: {x}\nCorreo: {e}",
                    "Para recoger: nevera, 2 colchones · Nombre: {n} · Cel.: {x} · Acceso: por el patio",
                    "Sección     Nombre               Móvil\nViolas      {n}          {x}",
                    "Demandante: {n}\nDemandado: {c}\nTeléfono del demandante: {x}\nCorreo electrónico: {e}",
                    "Huerto 14B – hortelano: {n} / tel. de día {x} / {e}"],
           "prose_no_cue": ["Tableros olvidados en el salón después del torneo del jueves – {n}, {x}, tiene la llave.",
                            "Me queda un puesto el viernes para Sierra Nevada, salgo de la estación, {n} {x}.",
                            "Bajos de pantalón en el día, cremalleras, el tallercito de {n} detrás de la estación: {x}.",
                            "Cata en la cervecería este domingo, ¡traed algo raro! {n} — {x}",
                            "Regalo manzanas del huerto, vengan a recogerlas. {n}: {x}",
                            "Profesora pacientísima, mi hija aprobó a la primera – {n}, {x}, muy recomendable."]},
    "it": {"same_line": ["Escape room – prenotazioni per gruppi: {x}", "Autoscuola {c}, segreteria lun–ven: {x}",
                         "Circolo scacchistico, corsi ragazzi, chiedere di {n} – cell. {x}",
                         "Scuola sci, ufficio corsi: tel. {x}", "Direttore dei lavori (emergenze, anche di notte): {x}",
                         "Gestore del rifugio – prenotazione posti letto ☎ {x}"],
           "line_above": ["Sartoria {c}\nOrli · cerniere · riparazioni express\nChiamateci pure\n{x}",
                          "Orchestra giovanile – prove annullate\nAvvisi dell'ultimo minuto su WhatsApp dal\n{x}",
                          "CANTIERE – referente per i residenti\nCapocantiere: {n}\nCellulare\n{x}",
                          "Dott.ssa {n}, fisioterapista\nAppuntamenti e disdette (con 24 ore di anticipo)\nTel.\n{x}",
                          "Sgombero cantine e ritiro ingombranti\nChiamami o scrivimi su WhatsApp al\n{x}\n{n}",
                          "Birrificio artigianale {c} – spaccio aziendale\nOrdini di fusti\nFisso:\n{x}"],
           "after": ["{x} (istruttore {n}, per favore non chiamate durante le guide)",
                     "{x} – tipografia, lasciate un messaggio se siamo in macchina",
                     "{x} (il mio cellulare, non il numero del negozio di ottica)",
                     "{x} – telefono del rifugio, si risponde dalle 7 alle 9 e dalle 18 alle 20",
                     "{x} cell., meglio un messaggio, sono quasi sempre sulle piste",
                     "{n} {x} (fisioterapista reperibile, solo urgenze)"],
           "sentence": ["Avete un vecchio divano o una lavatrice rotta in cantina? Io e mio cognato abbiamo il furgone e li "
                        "portiamo all'isola ecologica per una piccola offerta, basta chiamarmi al {x}.",
                        "Passaggio in macchina per il torneo di scacchi a Bologna: partenza alle 7 dal casello, tre posti "
                        "liberi, chi è interessato contatti {n} al {x}.",
                        "Prima di rivolgermi al giudice di pace le ho inviato due raccomandate e ho tentato più volte di "
                        "contattare il vostro ufficio amministrativo al numero {x}, senza alcun riscontro.",
                        "Gli elettori che il giorno del voto saranno fuori comune possono informarsi presso l'ufficio "
                        "elettorale, anche telefonicamente al {x}.",
                        "Ripetizioni di matematica per medie e superiori: {n} offre la prima lezione gratuita, i genitori "
                        "possono sentirla il pomeriggio al {x}.",
                        "I suoi occhiali nuovi sono pronti; se la montatura le stringe basta fare un colpo di telefono al "
                        "negozio, {x}, e gliela sistemiamo subito."],
           "form": ["Stanza | Giocatori | Prenotato da | Recapito\nIl Caveau | 5 | {n} | {x}",
                    "Allievo/a: {n}\nPatente: B\nRecapito telefonico: {x}\nE-mail: {e}",
                    "Da ritirare: frigorifero, 2 materassi · Nome: {n} · Cell.: {x} · Accesso: dal cortile",
                    "Sezione     Nome                 Cellulare\nViole       {n}          {x}",
                    "Attore: {n}\nConvenuto: {c}\nTelefono dell'attore: {x}\nPEC/e-mail: {e}",
                    "Orto n. 14B – assegnatario: {n} / tel. diurno {x} / {e}"],
           "prose_no_cue": ["Scacchiere dimenticate nel salone dopo il torneo di giovedì – {n}, {x}, ha le chiavi.",
                            "Venerdì ho ancora un posto per Cortina, parto dalla stazione, {n} {x}.",
                            "Orli in giornata, cerniere sostituite, la piccola bottega di {n} dietro la stazione: {x}.",
                            "Degustazione al birrificio domenica, portate qualcosa di strano! {n} — {x}",
                            "Regalo mele del frutteto, venite a raccoglierle. {n}: {x}",
                            "Istruttrice pazientissima, mia figlia ha passato l'esame al primo colpo – {n}, {x}, "
                            "consigliatissima."]},
    "pt": {"same_line": ["Escape room – reservas para grupos: {x}", "Autoescola {c}, secretaria seg. a sex.: {x}",
                         "Clube de xadrez, turma infantil, falar com {n} – cel. {x}",
                         "Lavanderia self-service, achados e perdidos: fone {x}",
                         "Engenheiro responsável pela obra (emergências, inclusive à noite): {x}",
                         "Aluguel de caiaques e barcos a remo – reservas pelo zap {x}"],
           "line_above": ["Costureira {n}\nBarras · zíperes · ajustes na hora\nMe liga\n{x}",
                          "Orquestra jovem – ensaio cancelado\nAvisos de última hora no WhatsApp do\n{x}",
                          "OBRA – atendimento à vizinhança\nMestre de obras: {n}\nCelular\n{x}",
                          "{n} – Fisioterapeuta, CREFITO 3\nAgendamentos e desmarcações (24 h de antecedência)\nTel.\n{x}",
                          "Retiro entulho, móveis velhos e sofá\nLiga ou manda mensagem\n{x}\n{n}",
                          "Cervejaria artesanal {c} – venda na fábrica\nPedidos de barril\nFixo:\n{x}"],
           "after": ["{x} (instrutor {n}, por favor não liguem durante as aulas práticas)",
                     "{x} – gráfica, deixem recado se estivermos na impressora",
                     "{x} (meu celular, não é o número da ótica)",
                     "{x} – telefone do abrigo, atendemos das 7 às 9 e das 18 às 20h",
                     "{x} zap, prefiro mensagem, quase sempre estou no barco",
                     "{n} {x} (fisio de plantão, só urgência)"],
           "sentence": ["Tem um sofá velho ou uma máquina de lavar quebrada ocupando espaço? Eu e meu cunhado temos uma "
                        "caminhonete e levamos pro ecoponto por um valor camarada, é só me chamar no {x}.",
                        "Carona para o torneio de xadrez em Campinas: saio às 6h do metrô Tietê, três lugares livres, quem "
                        "quiser fala com {n} no {x}.",
                        "Antes de ingressar no Juizado Especial Cível, enviei duas notificações e tentei diversas vezes "
                        "falar com o setor financeiro de vocês pelo {x}, sem qualquer retorno.",
                        "Quem estiver fora do domicílio eleitoral no dia da votação deve justificar; o cartório eleitoral "
                        "tira dúvidas também pelo telefone {x}.",
                        "Aulas particulares de matemática para fundamental e vestibular: {n} oferece a primeira aula grátis, "
                        "os pais podem ligar para ela à tarde no {x}.",
                        "Seus óculos novos já estão prontos; se a armação apertar, é só dar uma ligada pra ótica no {x} "
                        "que a gente ajusta na hora."],
           "form": ["Sala | Jogadores | Reserva em nome de | Contato\nO Cofre | 5 | {n} | {x}",
                    "Aluno(a): {n}\nCategoria: B\nTelefone para contato: {x}\nE-mail: {e}",
                    "Para retirar: geladeira, 2 colchões · Nome: {n} · Cel./WhatsApp: {x} · Acesso: pelos fundos",
                    "Naipe       Nome                 Celular\nViolas      {n}          {x}",
                    "Reclamante: {n}\nReclamada: {c}\nTelefone do reclamante: {x}\nE-mail: {e}",
                    "Lote 14B da horta comunitária – responsável: {n} / tel. {x} / {e}"],
           "prose_no_cue": ["Tabuleiros esquecidos no salão depois do torneio de quinta – {n}, {x}, tem a chave.",
                            "Sobrou uma vaga na sexta pra Campos do Jordão, saio da rodoviária, {n} {x}.",
                            "Barra de calça no mesmo dia, troca de zíper, o ateliê da {n} atrás da estação: {x}.",
                            "Degustação na cervejaria domingo, tragam algo diferente! {n} — {x}",
                            "Dou mangas do pomar, é só vir buscar. {n}: {x}",
                            "Instrutora super paciente, minha filha passou de primeira – {n}, {x}, recomendo demais."]},
    "nl": {"same_line": ["Escaperoom – reserveren voor groepen: {x}", "Rijschool {c}, kantoor ma–vr: {x}",
                         "Schaakclub jeugdtraining, vraag naar {n} – mob. {x}",
                         "Wasserette, gevonden voorwerpen: tel.nr. {x}",
                         "Uitvoerder bouwplaats (spoed, ook 's nachts): {x}",
                         "Sloepverhuur – reserveren via app of bel {x}"],
           "line_above": ["Kleermakerij {c}\nZomen · ritsen · klaar terwijl u wacht\nBel ons gerust\n{x}",
                          "Jeugdorkest – repetitie vervalt\nLast-minute berichten via WhatsApp van\n{x}",
                          "BOUWPLAATS – aanspreekpunt voor omwonenden\nUitvoerder: {n}\nMobiel\n{x}",
                          "{n}, fysiotherapeut\nAfspraken en afmelden (24 uur van tevoren)\nTel.\n{x}",
                          "Grofvuil weg? Ik haal het op met de aanhanger!\nBellen of appen naar\n{x}\n{n}",
                          "Ambachtelijke brouwerij {c} – verkoop aan huis\nBestellingen fusten\nVast nummer:\n{x}"],
           "after": ["{x} (instructeur {n}, graag niet bellen tijdens de lessen)",
                     "{x} – drukkerij, spreek in als we aan de pers staan",
                     "{x} (mijn mobiel, niet het nummer van de opticien)",
                     "{x} – vaste lijn van de botenverhuur, bereikbaar van 9 tot 18 uur",
                     "{x} mob., liever appen, ik zit meestal op het water",
                     "{n} {x} (fysio van dienst, alleen spoed)"],
           "sentence": ["Staat er een oude bank of een kapotte wasmachine in de schuur? Mijn zwager en ik hebben een "
                        "aanhanger en brengen het voor een klein bedrag naar de milieustraat, bel me even op {x}.",
                        "Meerijden naar het schaaktoernooi in Wijk aan Zee: vertrek 7 uur vanaf het station, nog drie "
                        "plekken vrij, laat het {n} weten via {x}.",
                        "Voordat ik naar de kantonrechter stap: ik heb u twee aangetekende brieven gestuurd en meermaals "
                        "geprobeerd uw administratie telefonisch te bereiken op {x}, zonder resultaat.",
                        "Kunt u op de verkiezingsdag niet zelf stemmen, dan kunt u iemand machtigen; het stembureau-"
                        "informatienummer van de gemeente is {x}.",
                        "Bijles wiskunde voor onderbouw en examenklassen: {n} geeft de eerste les gratis, ouders kunnen haar "
                        "'s middags bellen op {x}.",
                        "Uw nieuwe bril ligt klaar; knelt het montuur, bel dan even met de winkel op {x} en we stellen "
                        "hem meteen bij."],
           "form": ["Kamer | Spelers | Geboekt door | Terugbellen op\nDe Kluis | 5 | {n} | {x}",
                    "Leerling: {n}\nRijbewijs: B\nBereikbaar op: {x}\nE-mail: {e}",
                    "Op te halen: koelkast, 2 matrassen · Naam: {n} · 06-nummer: {x} · Toegang: via de achterom",
                    "Sectie      Naam                 Mobiel\nAltviolen   {n}          {x}",
                    "Eiser: {n}\nGedaagde: {c}\nTelefoonnummer eiser: {x}\nE-mailadres: {e}",
                    "Volkstuin 14B – tuinder: {n} / tel. overdag {x} / {e}"],
           "prose_no_cue": ["Schaakborden vergeten in de zaal na het toernooi van donderdag – {n}, {x}, heeft de sleutel.",
                            "Vrijdag nog een plekje vrij naar Texel, vertrek vanaf het station, {n} {x}.",
                            "Broeken inkorten op dezelfde dag, ritsen vervangen, het winkeltje van {n} achter het station: {x}.",
                            "Proeverij bij de brouwerij zondag, neem iets geks mee! {n} — {x}",
                            "Appels uit de boomgaard gratis af te halen, zelf plukken. {n}: {x}",
                            "Superrustige instructeur, mijn dochter slaagde in één keer – {n}, {x}, echt een aanrader."]},
}
for _lang, _t in _PHONE_Q.items():
    PHONE_T[_lang]["Q"] = _t
ADDRESS_T["Q"] = ["{c}\nattn. {n}\n{a}\n{x}\n{e}", "{n} · {a} · {x}", "{a}\n—\n{n}\n{x} / {e}",
                  "{c}\n{a}\n\n{n}\n{x}", "{n}\n{e}\n{x}\n\n{a}"]
for _lang, _t in {"en": ["Send your lesson preferences for the term to {e} and I'll sort a timetable.",
                         "Print files (PDF, 3 mm bleed please) → {e}",
                         "Hut bookings are confirmed by email only: {e}",
                         "{n}\nJunior coordinator, chess club\n{e}"],
                  "de": ["Wunschtermine für die Fahrstunden bitte per Mail an {e}, ich melde mich.",
                         "Druckdaten (PDF, 3 mm Beschnitt) bitte an {e}",
                         "Hüttenreservierungen werden nur per E-Mail bestätigt: {e}",
                         "{n}\nJugendwart Schachklub\n{e}"],
                  "fr": ["Envoyez vos disponibilités pour les leçons de conduite à {e}, je fais le planning.",
                         "Fichiers d'impression (PDF, fonds perdus 3 mm) à {e}",
                         "Les réservations au refuge sont confirmées uniquement par courriel : {e}",
                         "{n}\nResponsable jeunes, club d'échecs\n{e}"],
                  "es": ["Mándame tus horarios para las prácticas de conducir a {e} y te organizo las clases.",
                         "Archivos para imprenta (PDF, sangrado 3 mm) a {e}",
                         "Las reservas del refugio se confirman solo por correo: {e}",
                         "{n}\nCoordinadora de la escuela de ajedrez\n{e}"],
                  "it": ["Mandatemi le vostre disponibilità per le guide a {e} e preparo il calendario.",
                         "File per la stampa (PDF, abbondanza 3 mm) a {e}",
                         "Le prenotazioni del rifugio si confermano solo via mail: {e}",
                         "{n}\nReferente settore giovanile, circolo scacchi\n{e}"],
                  "pt": ["Me mande seus horários livres para as aulas de direção no {e} que eu monto a agenda.",
                         "Arquivos para impressão (PDF, sangria de 3 mm) → {e}",
                         "Reservas de caiaque são confirmadas só por e-mail: {e}",
                         "{n}\nCoordenadora da escolinha de xadrez\n{e}"],
                  "nl": ["Stuur je voorkeursdagen voor de rijlessen naar {e}, dan maak ik een rooster.",
                         "Drukbestanden (pdf, 3 mm afloop) graag naar {e}",
                         "Reserveringen voor de sloepen bevestigen we alleen per mail: {e}",
                         "{n}\nJeugdleider schaakclub\n{e}"]}.items():
    EMAIL_T[_lang]["Q"] = _t
DISTRACTOR_T["Q"] = [
    "Escape room booking {ord}: {minutes} minutes, {price} for the group on {date}; call us if you're running late.",
    "Driving lesson package, pupil no. {cid}: ten lessons for {price}, paid to {iban}; text your instructor to move a slot.",
    "Ski school season {year}/{year2}: {big} lessons given, lift pass ref. {ref}; phone the office for private tuition.",
    "Print job {inv}: {big} flyers, {price}, ready on {date} – we'll ring when it's off the press.",
    "Bulky waste collection {ord2} booked for {date}, between {time}; the crew will call ahead, fee {price}.",
    "Chess club grading list {year}: rating {minutes}0, member ID {cid}; contact the secretary to query a result.",
    "Youth orchestra tour fee {price}, due {date}, reference {ref}; ring the manager about instalments.",
    "Laundrette card {cid} topped up with {price} on {date}; the number on the machine is for faults only.",
    "Tailoring ticket {ord2}: hem and zip, {price}, collect after {date}; call the shop if you can't make it.",
    "Lens order {ord} for frame model {ref}, dispatched {date} – your optician will phone when it arrives.",
    "Physio claim {inv}: {minutes} sessions at {price}, ACC number {ref}; contact reception with any questions.",
    "Polling district {ord2}: {big} registered voters, turnout in {year} was {minutes} per cent; call the electoral office for your station.",
    "Planning application {year}/{ref}, site notice dated {date}; working hours {time}, complaints line number on the hoarding.",
    "Boat rental voucher {ord}, valid until {date}, deposit {price}; phone the jetty to book a slot.",
    "Hut night {date}: bunk {minutes}, half board {price}, booking no. {ord2}; ring ahead if the pass is closed.",
    "Brewery batch {inv}, bottled {date}, {big} litres – contact us with the batch number if anything tastes off.",
    "Maths tutoring receipt {inv}: {minutes} minutes on {date}, {price}; text me for next week's time.",
    "Small claims case no. {ref}: claim of {price} filed on {date}, hearing {time}; the court cannot give legal advice by phone.",
    "Orchard association levy {year}: {price} per tree, pay to {iban} quoting plot {ord2}; ring the treasurer if unsure.",
    "Carpool scheme member {cid}: {big} km shared since {year}; message the driver, not the office, about pickups.",
    "Match report: the chess team drew {score} away from home; for openings the captain recommends ISBN {isbn} – call him to borrow it.",
    "Parcel for the print shop, tracking {ord}, postcode {post}; the courier texts a delivery window {time}.",
]


# Set R (heldout17): written after heldout16's score by a writer who read only this file, not the rules.
_PHONE_R = {
    "en": {"same_line": ["Town Hall – Clerk's Office (Mon–Thu 8:30–4:30, closed Fridays): {x}",
                         "Emergency dentist, weekends & bank holidays → {x}",
                         "Guitar lessons, all ages, acoustic/electric – call or text {x}",
                         "Window cleaning, gutters & conservatory roofs · mob {x}",
                         "Lane bookings & birthday parties (bowling): {x}",
                         "Karaoke booth reservations – phone/WhatsApp {x}"],
           "line_above": ["Happy Paws Animal Shelter\nWant to adopt or foster? Ring the kennels\n{x}\n(open to visitors 11–3)",
                          "SCHOOL CANTEEN – NOTICE TO PARENTS\nAllergy forms and dinner money queries to {n}, catering manager\n"
                          "Direct line\n{x}",
                          "{c} Bridal\nFittings by appointment only\nTel\n{x}\n{e}",
                          "PC & laptop repairs · virus removal · screen replacement\nNo fix, no fee\nCall {n}:\n{x}",
                          "Duty pharmacy this Sunday\n{c}\n{a}\nPhone\n{x}",
                          "Campsite reception\nClosed 12–2 for lunch – if it's urgent\nring the warden on\n{x}"],
           "after": ["{x} (that's the kennel office, not the vet)",
                     "{x} ← bridal boutique, we're closed Mondays",
                     "{x} — my mobile, the shop landline is always busy",
                     "{x} text only please, I'm up a ladder most of the day",
                     "{x} is the after-hours dental line, you'll get a recorded message first",
                     "{n}: {x} (cellar door, weekends only)"],
           "sentence": ["The town hall will be closed on Monday for the public holiday, but if a pipe bursts or a tree comes "
                        "down you can still reach the duty officer on {x}.",
                        "Our kindergarten waiting list for September is now full; if you would like your child added to the "
                        "reserve list, please give {n} a ring at {x} between 9 and 11.",
                        "We sell strawberries, sweet corn and fresh eggs from the stall at the end of the lane – honesty box, "
                        "and if it's empty shoot me a message at {x} and I'll restock.",
                        "Hey all, the hackerspace door code changed again, if you're locked out just call whoever is on "
                        "keyholder duty tonight, that's {n}, cell is {x}.",
                        "For repairs to built-in wardrobes, stairs or sash windows, {c} is the local carpenter most people "
                        "use, and he'll usually pick up if you try {x} before 8am.",
                        "Students moving into the halls this term: if your key card doesn't work, the residence assistant "
                        "can be reached on {x} at any hour."],
           "form": ["Day | Pharmacy | Address | Tel.\nSat | {c} | {a} | {x}",
                    "Child's name: {n}\nPreferred start date: Sept\nParent/guardian daytime phone: {x}\nEmail: {e}",
                    "Pitch no. 23 · Arrival Fri · Surname {n} · Contact mobile {x} · Vehicle reg. on request",
                    "Teacher       Instrument     Ph\n{n}      guitar         {x}",
                    "ROOM WANTED\nName ........ {n}\nCourse ...... Mech. Eng., 2nd year\nCell ........ {x}",
                    "Adopter: {n} | Dog: Biscuit (ID on collar) | Home tel: {x} | Email: {e}"],
           "prose_no_cue": ["Free-range eggs and plums at the gate, pay what you can, {n} {x}.",
                            "Sunday karaoke winners pick up your voucher at the bar or sort it with {n} – {x}.",
                            "Lost: grey tabby, answers to Mouse, last seen near the bowling alley. {n}, {x}.",
                            "Spare room in a quiet student house, bills included, five minutes from campus – {n} {x}",
                            "Did our stairs last spring, lovely tidy work, {c}: {x}.",
                            "Windows done every fourth Tuesday, {n}, {x}, very reasonable."]},
    "de": {"same_line": ["Rathaus Bürgerbüro (Mo–Do 8–16 Uhr, Fr 8–12 Uhr): {x}",
                         "Zahnärztlicher Notdienst am Wochenende ☏ {x}",
                         "Gitarrenunterricht für Anfänger und Fortgeschrittene – Anruf oder SMS an {x}",
                         "Fensterputzer {n}, auch Wintergärten · Handy: {x}",
                         "Bahnreservierung Kegelbahn/Bowling, Kindergeburtstage: {x}",
                         "Karaoke-Kabinen vorbestellen unter Tel.-Nr. {x}"],
           "line_above": ["Tierheim {c}\nGassigeher gesucht! Bitte vorher anrufen\n{x}\n(Besuchszeiten Mi–So 14–17 Uhr)",
                          "MITTEILUNG DER SCHULMENSA\nFragen zu Essensgeld und Allergien an Frau {n}, Küchenleitung\n"
                          "Durchwahl\n{x}",
                          "Brautmoden {c}\nAnproben nur nach Terminvereinbarung\nFon\n{x}\n{e}",
                          "PC-Notdienst · Datenrettung · Displaytausch\nKeine Reparatur, keine Kosten\nEinfach {n} anrufen:\n{x}",
                          "Notdienst-Apotheke heute\n{c}\n{a}\nTelefon\n{x}",
                          "Rezeption Campingplatz\nMittagspause 12–14 Uhr – in dringenden Fällen\nPlatzwart anrufen unter\n{x}"],
           "after": ["{x} (Tierheim-Büro, nicht die Tierarztpraxis)",
                     "{x} – Brautmodengeschäft, montags Ruhetag",
                     "{x} ist mein Handy, im Laden ist immer besetzt",
                     "{x} bitte nur SMS, stehe den ganzen Tag auf der Leiter",
                     "{x} = zahnärztliche Notfallnummer, zuerst kommt eine Bandansage",
                     "{n}: {x} (Weinkeller, Ab-Hof-Verkauf Sa/So)"],
           "sentence": ["Das Rathaus bleibt am Montag wegen des Feiertags geschlossen, bei Rohrbruch oder umgestürzten "
                        "Bäumen erreichen Sie den Bereitschaftsdienst aber weiterhin unter {x}.",
                        "Die Warteliste unserer Kita für September ist voll; wer sein Kind auf die Nachrückerliste setzen "
                        "lassen möchte, meldet sich bitte zwischen 9 und 11 Uhr bei {n} unter {x}.",
                        "Erdbeeren, Zuckermais und frische Eier gibt's am Stand vorne an der Straße, Kasse des Vertrauens, "
                        "und wenn was fehlt, schreib mir kurz auf {x}, dann füll ich nach.",
                        "Leute, der Türcode vom Hackerspace ist schon wieder neu – wer heute Abend draußen steht, ruft "
                        "einfach den Schlüsseldienst vom Verein an, das ist {n}, Handy {x}.",
                        "Für Einbauschränke, Treppen und Kastenfenster geht hier im Viertel eigentlich jeder zur Tischlerei "
                        "{c}, und vor 8 Uhr früh ist der Meister meistens unter {x} zu erwischen.",
                        "Neue Bewohnerinnen und Bewohner im Studentenwohnheim: Wenn der Transponder nicht geht, ist der "
                        "Hausmeister rund um die Uhr unter {x} erreichbar."],
           "form": ["Datum | Apotheke | Anschrift | Tel.\nSa | {c} | {a} | {x}",
                    "Name des Kindes: {n}\nGewünschter Beginn: 1.9.\nTelefonisch erreichbar (tagsüber): {x}\nE-Mail: {e}",
                    "Stellplatz 23 · Anreise Fr · Nachname {n} · Handynr. {x} · Kfz-Kennzeichen folgt",
                    "Lehrkraft     Instrument     Tel.\n{n}      Gitarre        {x}",
                    "SUCHE WG-ZIMMER\nName ........ {n}\nStudiengang .. Maschinenbau, 3. Sem.\nMobil ....... {x}",
                    "Adoptant/in: {n} | Hund: Krümel (Chip-Nr. im Pass) | Tel. privat: {x} | E-Mail: {e}"],
           "prose_no_cue": ["Eier vom Hof und Zwetschgen an der Einfahrt, zahl was du magst, {n} {x}.",
                            "Karaoke-Gewinner vom Sonntag holen ihren Gutschein an der Bar ab oder klären das mit {n} – {x}.",
                            "Vermisst: graue Tigerkatze, hört auf Maus, zuletzt bei der Bowlingbahn gesehen. {n}, {x}.",
                            "Zimmer in ruhiger Studenten-WG frei, warm, fünf Minuten zur Uni – {n} {x}",
                            "Hat uns letztes Frühjahr die Treppe gemacht, super saubere Arbeit, {c}: {x}.",
                            "Fenster alle vier Wochen dienstags, {n}, {x}, sehr fair im Preis."]},
    "fr": {"same_line": ["Mairie – accueil et état civil (lun.–jeu. 8 h 30–16 h 30) : {x}",
                         "Dentiste de garde, dimanches et jours fériés → {x}",
                         "Cours de guitare tous niveaux, à domicile – appel ou texto au {x}",
                         "Laveur de vitres, vérandas et gouttières · cell. {x}",
                         "Réservation de pistes (bowling) et anniversaires : {x}",
                         "Cabines de karaoké – réservez au {x}"],
           "line_above": ["Refuge SPA {c}\nPour adopter ou devenir famille d'accueil, appelez le refuge\n{x}\n(visites "
                          "de 14 h à 17 h)",
                          "AVIS AUX PARENTS – CANTINE SCOLAIRE\nPAI, allergies et tickets repas : {n}, responsable de la "
                          "restauration\nLigne directe\n{x}",
                          "{c} Mariage\nEssayages uniquement sur rendez-vous\nTél\n{x}\n{e}",
                          "Dépannage informatique · virus · écrans cassés\nPas réparé, pas payé\nJoindre {n} au\n{x}",
                          "Pharmacie de garde ce dimanche\n{c}\n{a}\nTéléphone\n{x}",
                          "Accueil du camping\nFermé de 12 h à 14 h – en cas d'urgence\ncomposez le\n{x}"],
           "after": ["{x} (c'est le bureau du refuge, pas le vétérinaire)",
                     "{x} ← boutique de robes de mariée, fermée le lundi",
                     "{x}, mon cell, la ligne de l'atelier sonne toujours occupé",
                     "{x} par texto svp, je suis sur l'échelle toute la journée",
                     "{x} : numéro d'urgence dentaire, un message enregistré vous répondra d'abord",
                     "{n} : {x} (caveau, vente directe le week-end)"],
           "sentence": ["La mairie sera fermée lundi pour le jour férié ; en cas de fuite sur la voie publique ou d'arbre "
                        "tombé, l'élu d'astreinte reste joignable au {x}.",
                        "La liste d'attente de la garderie pour septembre est complète ; pour inscrire votre enfant sur la "
                        "liste complémentaire, appelez {n} au {x} entre 9 h et 11 h.",
                        "Fraises, maïs sucré et œufs frais au kiosque au bout du rang, on paie dans la boîte, et si c'est "
                        "vide, écrivez-moi au {x} et je remplis.",
                        "Salut la gang, le code de la porte du hackerspace a encore changé ; si vous êtes dehors ce soir, "
                        "appelez {n} qui a les clés, son cell c'est le {x}.",
                        "Pour les placards sur mesure, les escaliers ou les fenêtres anciennes, tout le quartier passe par "
                        "la menuiserie {c}, et le patron décroche en général au {x} avant 8 h.",
                        "Nouveaux résidents de la résidence étudiante : si votre badge ne marche pas, le gardien répond au "
                        "{x} jour et nuit."],
           "form": ["Jour | Pharmacie | Adresse | Tél.\nSam. | {c} | {a} | {x}",
                    "Nom de l'enfant : {n}\nEntrée souhaitée : septembre\nTéléphone (en journée) : {x}\nCourriel : {e}",
                    "Emplacement 23 · Arrivée ven. · Nom {n} · Portable {x} · Immatriculation à compléter",
                    "Professeur     Instrument     Tél.\n{n}      guitare        {x}",
                    "CHERCHE CHAMBRE EN COLOC\nNom ......... {n}\nÉtudes ...... génie mécanique, 2e année\nCell. ....... "
                    "{x}",
                    "Adoptant : {n} | Chien : Biscotte (puce n° sur le carnet) | Tél. domicile : {x} | Courriel : {e}"],
           "prose_no_cue": ["Œufs de la ferme et prunes au portail, vous payez ce que vous voulez, {n} {x}.",
                            "Gagnants du karaoké de dimanche : votre bon est au bar, sinon voyez avec {n} – {x}.",
                            "Perdu : chat tigré gris, répond à Souris, vu près du bowling. {n}, {x}.",
                            "Chambre libre dans une coloc étudiante calme, charges comprises, à cinq minutes du campus – {n} {x}",
                            "Ils ont refait notre escalier au printemps, travail très propre, {c} : {x}.",
                            "Vitres faites un mardi sur quatre, {n}, {x}, prix honnête."]},
    "es": {"same_line": ["Ayuntamiento – Registro y atención ciudadana (L a J de 8:30 a 14:30): {x}",
                         "Dentista de urgencia, sábados, domingos y feriados → {x}",
                         "Clases de guitarra criolla y eléctrica, todas las edades – llamá o mandá WhatsApp al {x}",
                         "Limpieza de vidrios, cerramientos y canaletas · cel. {x}",
                         "Reserva de pistas de bolos y cumpleaños infantiles: {x}",
                         "Karaoke – reservá tu sala al {x}"],
           "line_above": ["Refugio de animales {c}\n¿Querés adoptar o transitar? Llamá al refugio\n{x}\n(visitas de 11 a 15)",
                          "COMEDOR ESCOLAR – AVISO A LAS FAMILIAS\nDietas especiales y recibos del comedor: {n}, "
                          "encargada de cocina\nLínea directa\n{x}",
                          "{c} Novias\nPruebas de vestido solo con cita previa\nTel\n{x}\n{e}",
                          "Servicio técnico de PC y notebooks · virus · pantallas rotas\nSi no se arregla, no se cobra\n"
                          "Preguntá por {n}:\n{x}",
                          "Farmacia de guardia este domingo\n{c}\n{a}\nTeléfono\n{x}",
                          "Recepción del camping\nCerrado de 13 a 16 h – si es urgente\nllamá al encargado al\n{x}"],
           "after": ["{x} (es la oficina del refugio, no la veterinaria)",
                     "{x} ← tienda de novias, los lunes cerramos",
                     "{x}, mi celu, el fijo del taller siempre da ocupado",
                     "{x} solo mensajes por favor, me paso el día arriba de la escalera",
                     "{x} es la línea de urgencias dentales, primero sale una grabación",
                     "{n}: {x} (bodega, venta directa fines de semana)"],
           "sentence": ["El ayuntamiento permanecerá cerrado el lunes por ser festivo local, aunque ante cualquier avería en "
                        "la vía pública el retén de guardia sigue atendiendo en el {x}.",
                        "La lista de espera del jardín de infantes para marzo ya está completa; si querés anotar a tu hijo "
                        "en la lista de suplentes, llamá a {n} al {x} de 9 a 11.",
                        "Frutillas, choclos y huevos de campo en el puesto de la ruta, dejás la plata en la caja, y si no "
                        "queda nada mandame un mensaje al {x} y repongo.",
                        "Che, cambiaron otra vez el código de la puerta del hackerspace; si quedaste afuera esta noche "
                        "llamalo a {n}, que tiene las llaves, su celu es {x}.",
                        "Para placares a medida, escaleras o ventanas de madera, en el barrio todos van a la carpintería {c}, "
                        "y el dueño suele atender en el {x} antes de las 8.",
                        "Nuevos residentes de la residencia universitaria: si la tarjeta no abre, el conserje atiende en "
                        "el {x} las 24 horas."],
           "form": ["Día | Farmacia | Dirección | Tel.\nSáb. | {c} | {a} | {x}",
                    "Nombre del niño/a: {n}\nIngreso deseado: marzo\nTeléfono de contacto (de día): {x}\nCorreo: {e}",
                    "Parcela 23 · Llegada vie. · Apellido {n} · Móvil {x} · Matrícula del vehículo: pendiente",
                    "Profesor/a     Instrumento    Tel.\n{n}      guitarra       {x}",
                    "BUSCO HABITACIÓN EN PISO COMPARTIDO\nNombre ...... {n}\nCarrera ..... Ing. Mecánica, 2.º año\n"
                    "Cel. ........ {x}",
                    "Adoptante: {n} | Perro: Galleta (n.º de chip en la libreta) | Tel. particular: {x} | Mail: {e}"],
           "prose_no_cue": ["Huevos de campo y ciruelas en la tranquera, pagá lo que quieras, {n} {x}.",
                            "Ganadores del karaoke del domingo: el vale está en la barra, si no arreglen con {n} – {x}.",
                            "Se perdió gato atigrado gris, se llama Ratón, visto cerca de la bolera. {n}, {x}.",
                            "Habitación libre en piso de estudiantes tranquilo, gastos incluidos, a cinco minutos de la facu – "
                            "{n} {x}",
                            "Nos hicieron la escalera la primavera pasada, un trabajo impecable, {c}: {x}.",
                            "Vidrios cada cuatro martes, {n}, {x}, muy buen precio."]},
    "it": {"same_line": ["Comune – Ufficio anagrafe (lun–gio 8:30–12:30, mar anche 15–17): {x}",
                         "Guardia medica odontoiatrica festiva → {x}",
                         "Lezioni di chitarra classica ed elettrica, tutte le età – chiamate o scrivete al {x}",
                         "Pulizia vetri, verande e grondaie · cell. {x}",
                         "Prenotazione piste bowling e feste di compleanno: {x}",
                         "Karaoke – prenota la saletta al nr. {x}"],
           "line_above": ["Canile rifugio {c}\nPer adozioni e stalli chiamate il canile\n{x}\n(visite dalle 14 alle 17)",
                          "AVVISO ALLE FAMIGLIE – MENSA SCOLASTICA\nDiete speciali e buoni pasto: sig.ra {n}, referente "
                          "della ristorazione\nNumero diretto\n{x}",
                          "Atelier sposa {c}\nProve abito solo su appuntamento\nTel\n{x}\n{e}",
                          "Riparazione PC e portatili · virus · schermi rotti\nSe non si ripara non si paga\nChiedere di "
                          "{n}:\n{x}",
                          "Farmacia di turno domenica\n{c}\n{a}\nTelefono\n{x}",
                          "Reception del campeggio\nChiuso 12:30–15 – per urgenze\nchiamate il custode al\n{x}"],
           "after": ["{x} (è l'ufficio del canile, non il veterinario)",
                     "{x} ← atelier da sposa, il lunedì siamo chiusi",
                     "{x}, il mio cellulare, il fisso del negozio dà sempre occupato",
                     "{x} solo messaggi per favore, sono sulla scala tutto il giorno",
                     "{x} è la linea per le urgenze dentistiche, prima risponde una segreteria",
                     "{n}: {x} (cantina, vendita diretta sabato e domenica)"],
           "sentence": ["Lunedì il municipio resterà chiuso per la festa del patrono; per guasti alla rete idrica o alberi "
                        "caduti il reperibile del comune risponde comunque al {x}.",
                        "La lista d'attesa dell'asilo nido per settembre è chiusa; per inserire vostro figlio tra le riserve "
                        "telefonate a {n} al {x} dalle 9 alle 11.",
                        "Fragole, pannocchie e uova fresche al banchetto in fondo alla strada, si paga nella cassetta, e se "
                        "è finito tutto mandatemi un messaggio al {x} che rifornisco.",
                        "Ragazzi, hanno cambiato di nuovo il codice della porta dell'hackerspace: chi stasera resta fuori "
                        "chiami {n} che ha le chiavi, il cell è {x}.",
                        "Per armadi a muro, scale o finestre in legno qui in zona vanno tutti dalla falegnameria {c}, e "
                        "prima delle 8 il titolare di solito risponde al {x}.",
                        "Nuovi ospiti della residenza universitaria: se il badge non apre, il portiere è reperibile al {x} "
                        "giorno e notte."],
           "form": ["Giorno | Farmacia | Indirizzo | Tel.\nSab. | {c} | {a} | {x}",
                    "Nome del bambino: {n}\nInserimento richiesto: settembre\nRecapito telefonico diurno: {x}\nE-mail: {e}",
                    "Piazzola 23 · Arrivo ven. · Cognome {n} · Cellulare {x} · Targa: da comunicare",
                    "Insegnante    Strumento      Tel.\n{n}      chitarra       {x}",
                    "CERCO STANZA IN APPARTAMENTO CONDIVISO\nNome ........ {n}\nCorso ....... Ing. meccanica, II anno\n"
                    "Cell. ....... {x}",
                    "Adottante: {n} | Cane: Biscotto (microchip sul libretto) | Tel. casa: {x} | E-mail: {e}"],
           "prose_no_cue": ["Uova della fattoria e susine al cancello, offerta libera, {n} {x}.",
                            "Vincitori del karaoke di domenica: il buono è al bancone, altrimenti sentite {n} – {x}.",
                            "Smarrito gatto tigrato grigio, si chiama Topo, visto vicino al bowling. {n}, {x}.",
                            "Stanza libera in appartamento di studenti tranquillo, spese incluse, a cinque minuti "
                            "dall'università – {n} {x}",
                            "Ci hanno rifatto la scala la primavera scorsa, lavoro pulitissimo, {c}: {x}.",
                            "Vetri ogni quattro martedì, {n}, {x}, prezzi onesti."]},
    "pt": {"same_line": ["Prefeitura – Protocolo geral (seg. a qui., 8h às 14h): {x}",
                         "Dentista 24 horas, plantão de fim de semana e feriados → {x}",
                         "Aulas de violão e guitarra para todas as idades – liga ou chama no zap {x}",
                         "Limpeza de vidros, fachadas e calhas · cel. {x}",
                         "Reserva de pistas de boliche e festas de aniversário: {x}",
                         "Karaokê – reserve sua cabine pelo tel. {x}"],
           "line_above": ["Abrigo de animais {c}\nQuer adotar ou ser lar temporário? Ligue para o abrigo\n{x}\n(visitas "
                          "das 11h às 15h)",
                          "COMUNICADO AOS PAIS – CANTINA DA ESCOLA\nCardápio especial e pagamentos da merenda: {n}, "
                          "nutricionista\nRamal direto\n{x}",
                          "{c} Noivas\nProvas de vestido somente com hora marcada\nTel\n{x}\n{e}",
                          "Conserto de PC e notebook · vírus · tela quebrada\nSe não consertar, não paga\nFalar com {n}:\n{x}",
                          "Farmácia de plantão neste domingo\n{c}\n{a}\nTelefone\n{x}",
                          "Recepção do camping\nFechada das 12h às 14h – se for urgente\nligue para o zelador\n{x}"],
           "after": ["{x} (é o escritório do abrigo, não a clínica veterinária)",
                     "{x} ← loja de noivas, às segundas estamos fechados",
                     "{x}, meu celular, o fixo da loja vive ocupado",
                     "{x} só mensagem por favor, passo o dia em cima da escada",
                     "{x} é o plantão odontológico, primeiro atende uma gravação",
                     "{n}: {x} (vinícola, venda direta sábado e domingo)"],
           "sentence": ["A prefeitura não abre na segunda-feira por causa do feriado municipal, mas em caso de vazamento na "
                        "rua ou árvore caída a Defesa Civil atende pelo {x}.",
                        "A lista de espera da creche para fevereiro já está fechada; quem quiser colocar o filho no cadastro "
                        "reserva deve ligar para {n} no {x} das 9h às 11h.",
                        "Morango, milho verde e ovo caipira na barraca da beira da estrada, pague na caixinha, e se acabar "
                        "me manda mensagem no {x} que eu reponho.",
                        "Galera, mudaram de novo a senha da porta do hackerspace; quem ficar pra fora hoje liga pro {n}, que "
                        "está com a chave, o celular dele é {x}.",
                        "Pra armário embutido, escada ou janela de madeira, todo mundo aqui do bairro chama a marcenaria "
                        "{c}, e o dono costuma atender no {x} antes das 8h.",
                        "Calouros da moradia estudantil: se o cartão não abrir a porta, o porteiro atende no {x} 24 horas "
                        "por dia."],
           "form": ["Dia | Farmácia | Endereço | Tel.\nSáb. | {c} | {a} | {x}",
                    "Nome da criança: {n}\nInício desejado: fevereiro\nTelefone para contato (horário comercial): {x}\n"
                    "E-mail: {e}",
                    "Área 23 · Chegada sex. · Sobrenome {n} · Celular {x} · Placa do carro: a informar",
                    "Professor(a)   Instrumento    Tel.\n{n}      violão         {x}",
                    "PROCURO QUARTO EM REPÚBLICA\nNome ........ {n}\nCurso ....... Eng. Mecânica, 2º ano\nCel. ........ {x}",
                    "Adotante: {n} | Cão: Biscoito (microchip na carteirinha) | Tel. residencial: {x} | E-mail: {e}"],
           "prose_no_cue": ["Ovos caipiras e ameixas no portão, pague quanto quiser, {n} {x}.",
                            "Ganhadores do karaokê de domingo: o vale está no balcão, senão acertem com {n} – {x}.",
                            "Perdeu-se gato rajado cinza, atende por Rato, visto perto do boliche. {n}, {x}.",
                            "Vaga em república tranquila, contas incluídas, a cinco minutos do campus – {n} {x}",
                            "Fizeram nossa escada na primavera passada, serviço caprichado, {c}: {x}.",
                            "Vidros limpos a cada quatro terças, {n}, {x}, preço justo."]},
    "nl": {"same_line": ["Gemeentehuis – dienst burgerzaken (ma–do 8u30–12u, do ook 16u–19u): {x}",
                         "Tandarts van wacht, weekend en feestdagen → {x}",
                         "Gitaarles voor jong en oud, akoestisch en elektrisch – bel of sms {x}",
                         "Glazenwasser {n}, ook veranda's en dakgoten · gsm {x}",
                         "Bowlingbanen reserveren en kinderfeestjes: {x}",
                         "Karaokebox – reserveer je box via tel. {x}"],
           "line_above": ["Dierenasiel {c}\nAdopteren of opvanggezin worden? Bel het asiel\n{x}\n(bezoekuren 14u–17u)",
                          "BERICHT AAN DE OUDERS – SCHOOLREFTER\nAllergieën en maaltijdfacturen: {n}, verantwoordelijke "
                          "keuken\nRechtstreeks nummer\n{x}",
                          "Bruidsmode {c}\nPassen enkel op afspraak\nTel\n{x}\n{e}",
                          "Computerherstelling · virussen · kapotte schermen\nNiet gemaakt, niet betaald\nVraag naar {n}:\n{x}",
                          "Apotheek van wacht deze zondag\n{c}\n{a}\nTelefoon\n{x}",
                          "Onthaal camping\nGesloten van 12u tot 14u – bij dringende zaken\nbel de beheerder op\n{x}"],
           "after": ["{x} (dat is het bureau van het asiel, niet de dierenarts)",
                     "{x} ← bruidswinkel, op maandag gesloten",
                     "{x}, mijn gsm, de vaste lijn van het atelier is altijd bezet",
                     "{x} liefst een sms'je, ik sta de hele dag op de ladder",
                     "{x} is de wachtdienst voor tandartsen, eerst hoort u een bandje",
                     "{n}: {x} (wijnkelder, verkoop aan huis in het weekend)"],
           "sentence": ["Het gemeentehuis is maandag gesloten wegens de feestdag, maar bij een lek op de openbare weg of een "
                        "omgevallen boom kan je de permanentie nog altijd bereiken op {x}.",
                        "De wachtlijst van de kinderopvang voor september is volzet; wie zijn kindje op de reservelijst wil, "
                        "belt tussen 9 en 11 uur naar {n} op {x}.",
                        "Aardbeien, suikermaïs en verse eieren aan het kraampje aan de steenweg, betalen in het busje, en is "
                        "het op, stuur me dan een berichtje op {x} dan vul ik aan.",
                        "Mannekes, de deurcode van de hackerspace is weer veranderd; wie vanavond buiten staat belt {n}, die "
                        "heeft de sleutel, zijn gsm is {x}.",
                        "Voor ingemaakte kasten, trappen of houten ramen gaat heel de wijk naar schrijnwerkerij {c}, en voor "
                        "8 uur neemt de baas meestal op via {x}.",
                        "Nieuwe bewoners van het studentenhome: werkt je badge niet, dan is de huisbewaarder dag en nacht "
                        "bereikbaar op {x}."],
           "form": ["Dag | Apotheek | Adres | Tel.\nZa | {c} | {a} | {x}",
                    "Naam van het kind: {n}\nGewenste startdatum: september\nTelefoon overdag: {x}\nE-mail: {e}",
                    "Standplaats 23 · Aankomst vr · Familienaam {n} · Gsm-nr. {x} · Nummerplaat volgt",
                    "Leerkracht    Instrument     Tel.\n{n}      gitaar         {x}",
                    "GEZOCHT: KOT\nNaam ........ {n}\nRichting ..... burg. ir. werktuigkunde, 2de bach\nGsm ......... {x}",
                    "Adoptant: {n} | Hond: Koekje (chipnummer in het paspoort) | Tel. thuis: {x} | E-mail: {e}"],
           "prose_no_cue": ["Hoeve-eieren en pruimen aan het hek, betaal wat je wil, {n} {x}.",
                            "Winnaars van de karaoke van zondag: jullie bon ligt aan de toog, anders even regelen met {n} – {x}.",
                            "Vermist: grijze gestreepte kat, luistert naar Muis, gezien bij de bowling. {n}, {x}.",
                            "Kot vrij in rustig studentenhuis, kosten inbegrepen, vijf minuten van de campus – {n} {x}",
                            "Hebben vorig voorjaar onze trap gemaakt, heel proper werk, {c}: {x}.",
                            "Ramen om de vier dinsdagen, {n}, {x}, zeer schappelijk."]},
}
for _lang, _t in _PHONE_R.items():
    PHONE_T[_lang]["R"] = _t
ADDRESS_T["R"] = ["{c}\n{a}\n{x} · {e}\n\n{n}", "{n}\n{a}\n\n{x}", "{e}\n{n} ({c})\n{a}\n{x}",
                  "{a}\n{x}", "{c} — {n}\n{a}\n\n{x}\n{e}"]
for _lang, _t in {"en": ["Adoption applications go to {e} – please attach a photo of your garden.",
                         "Canteen menu requests for the spring term: {e}",
                         "Quote for window cleaning? Drop me a line at {e} with your postcode.",
                         "{c}\nBridal fittings & alterations\n{e}"],
                  "de": ["Adoptionsanfragen bitte an {e}, gern mit einem Foto vom Garten.",
                         "Wünsche zum Speiseplan der Mensa fürs Frühjahr: {e}",
                         "Angebot fürs Fensterputzen? Kurze Mail mit PLZ an {e}.",
                         "{c}\nBrautmoden & Änderungen\n{e}"],
                  "fr": ["Les demandes d'adoption sont à envoyer à {e}, avec une photo de votre jardin svp.",
                         "Suggestions pour les menus de la cantine ce printemps : {e}",
                         "Un devis pour le lavage de vitres? Écrivez-moi à {e} avec votre code postal.",
                         "{c}\nRobes de mariée & retouches\n{e}"],
                  "es": ["Las solicitudes de adopción van a {e}, si podés mandá una foto del patio.",
                         "Sugerencias para el menú del comedor este cuatrimestre: {e}",
                         "¿Presupuesto para limpiar vidrios? Escribime a {e} con tu código postal.",
                         "{c}\nVestidos de novia y arreglos\n{e}"],
                  "it": ["Le richieste di adozione vanno inviate a {e}, possibilmente con una foto del giardino.",
                         "Proposte per il menù della mensa in primavera: {e}",
                         "Preventivo per la pulizia vetri? Scrivetemi a {e} indicando il CAP.",
                         "{c}\nAbiti da sposa e sartoria\n{e}"],
                  "pt": ["Pedidos de adoção pelo {e}, se puder mande uma foto do quintal.",
                         "Sugestões para o cardápio da cantina neste semestre: {e}",
                         "Orçamento de limpeza de vidros? Me escreve no {e} com o seu CEP.",
                         "{c}\nVestidos de noiva e ajustes\n{e}"],
                  "nl": ["Adoptieaanvragen graag naar {e}, liefst met een foto van je tuin.",
                         "Suggesties voor het menu van de refter dit voorjaar: {e}",
                         "Offerte voor de ramen? Mail me even op {e} met je postcode.",
                         "{c}\nBruidsmode & retouches\n{e}"]}.items():
    EMAIL_T[_lang]["R"] = _t
DISTRACTOR_T["R"] = [
    "Animal shelter adoption file {ord}: microchip registered {date}, fee {price}; call the kennels before visiting.",
    "School canteen statement for pupil {cid}: {minutes} meals this term, balance {price}; contact the office with "
    "questions.",
    "Bridal order {ord2}: gown style {ref}, deposit {price} paid on {date} – we'll ring you when it's in for a fitting.",
    "Computer repair ticket {inv}: laptop serial {ref}, data backed up on {date}; text us for the pickup time.",
    "Kindergarten waiting list position {minutes}, application {ord2} received {date}; please don't phone to ask about "
    "your place.",
    "Guitar exam result {year}: {minutes} marks out of 150, candidate number {cid}; call your teacher for the report.",
    "Emergency dental appointment {ord}, {date}, {time}; treatment code {ref}, fee {price}.",
    "Wine cellar tasting {date}: vintage {year}, lot {ord2}, {big} bottles; ring the bell at the gate, no phone needed.",
    "Pharmacy rota {year}: weekend duty schedule ref. {ref}, opening {time}; the number to call is on the door.",
    "Campsite receipt {inv}: pitch {minutes}, arrival {date}, total {price}; contact reception to extend your stay.",
    "Hackerspace membership {cid}, dues {price} per month to {iban}; message the treasurer, not the mailing list.",
    "Bowling league table {year}/{year2}: team score {score}, high game {minutes} on {date}; call the alley to book "
    "lanes.",
    "Karaoke night {date}: {big} songs sung since {year}, booking ref. {ord}; text the bar for a table.",
    "Student housing contract {inv}, room {ord2}, rent {price}, deposit to {iban}; ring the housing office about repairs.",
    "Window cleaning round invoice {inv}: {minutes} houses on {date}, {price}; text me if you're away that week.",
    "Town hall agenda item {year}/{ref}: budget {big}, meeting {date} at {time}; contact the clerk for the minutes.",
    "Fruit stand tally for {date}: {big} punnets, takings {price}; call it a good week.",
    "Carpentry quote {ord2}: oak stairs, {price} incl. VAT, valid until {date}; phone to confirm the measurements.",
    "The shelter's fun run raised {big} in {year}; the guide to dog training, ISBN {isbn}, is on sale – contact us to "
    "order.",
    "Parcel for the guitar shop, tracking {ord}, postcode {post}; the driver will text a delivery window of {time}.",
    "Bowling tournament final {score} on {date}; the winner's number {cid} is engraved on the trophy.",
]


# --------------------------------------------------------------------------- values


def own_national(rng: random.Random) -> str:
    """A national number in one of issue 30's shapes, random digits."""
    def d(n: int, lead: str = "123456789") -> str:
        return rng.choice(lead) + "".join(rng.choice("0123456789") for _ in range(n - 1))

    shapes = [
        lambda: f"{d(3)} {d(4, '0123456789')}",                      # ddd dddd
        lambda: f"{d(2)} {d(2, '0123456789')} {d(2, '0123456789')}",  # dd dd dd
        lambda: f"{d(3)} {d(3, '0123456789')} {d(3, '0123456789')}",  # ddd ddd ddd
        lambda: f"{d(2)} {d(6, '0123456789')}",                      # dd dddddd
        lambda: f"0{d(1)}-{d(8, '0123456789')}",                     # dd-dddddddd
        lambda: f"0{d(3)}-{d(7, '0123456789')}",                     # dddd-ddddddd
        lambda: d(10),                                               # ten bare digits
        lambda: f"({d(3)}) {d(3, '0123456789')} {d(4, '0123456789')}",
        lambda: f"{d(3)}.{d(3, '0123456789')}.{d(4, '0123456789')}",
        lambda: f"0{d(2)} {d(7, '0123456789')}",
        lambda: f"0{d(1)} {d(2, '0123456789')} {d(2, '0123456789')} {d(2, '0123456789')} {d(2, '0123456789')}",
        lambda: f"(0{d(3)}) {d(6, '0123456789')}",
    ]
    return rng.choice(shapes)()


def faker_national(fake, rng: random.Random) -> str | None:
    for _ in range(30):
        n = fake.phone_number()
        if n.startswith(("+", "00", "(+")) or "x" in n.lower() or "ext" in n.lower():
            continue
        if sum(c.isdigit() for c in n) < 6:
            continue
        return n
    return None


def national_number(fake, rng: random.Random) -> str:
    if rng.random() < 0.5:
        n = faker_national(fake, rng)
        if n:
            return n
    return own_national(rng)


def obfuscate(email: str, form: str) -> str:
    local, domain = email.split("@")
    labels = domain.split(".")
    if form == "plain":
        return email
    if form == "paren":
        return f"{local}(at){domain}"
    if form == "bracket_dot":
        return f"{local} [at] " + " [dot] ".join(labels)
    if form == "paren_dot":
        return f"{local} (at) " + " (dot) ".join(labels)
    if form == "spelled":
        return f"{local} at " + " dot ".join(labels)
    if form == "spelled_upper":
        return f"{local} AT " + " DOT ".join(labels).upper()
    raise ValueError(form)


def distractor_values(fake, rng: random.Random) -> dict[str, str]:
    def digits(n: int) -> str:
        return "".join(rng.choice("0123456789") for _ in range(n))

    year = rng.randint(1950, 2030)
    return {
        "ord": rng.choice((f"{digits(3)}-{digits(7)}-{digits(7)}", f"#{digits(8)}", f"{digits(2)}-{digits(5)}",
                           f"{rng.randint(100000, 999999)}")),
        "ord2": f"{rng.randint(100000, 999999)}",
        "isbn": rng.choice((fake.isbn13(), fake.isbn10())),
        "inv": rng.choice((f"{year}-{digits(6)}", f"INV-{digits(7)}", f"{year}/{digits(4)}")),
        "date": rng.choice(tuple(fake.date(pattern=p, end_datetime=DATES_UNTIL)
                                 for p in ("%d.%m.%Y", "%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y"))),
        "price": rng.choice((fake.pricetag(), f"€ {rng.randint(1, 999)} {rng.randint(100, 999)}",
                             f"{rng.randint(1, 99)} {rng.randint(100, 999)},{digits(2)} €", f"${rng.randint(1, 999):,}.{digits(2)}")),
        "score": rng.choice((f"{rng.randint(0, 5)}-{rng.randint(0, 5)}", f"{rng.randint(60, 130)}-{rng.randint(60, 130)}",
                             f"{rng.randint(0, 5)}:{rng.randint(0, 5)}")),
        "minutes": str(rng.randint(80, 125)),
        "cid": rng.choice((f"{digits(3)} {digits(4)}", f"C-{digits(6)}", f"{digits(8)}")),
        "time": rng.choice((f"{rng.randint(6, 11)}:{rng.choice(('00', '30'))}-{rng.randint(12, 20)}:{rng.choice(('00', '30'))}",
                            f"{rng.randint(6, 11)}.00 - {rng.randint(12, 20)}.30")),
        "year": str(year), "year2": str(year + rng.randint(1, 10)),
        "post": fake.postcode(),
        "iban": fake.iban() if hasattr(fake, "iban") else f"DE{digits(20)}",
        "ref": rng.choice((f"{digits(4)} {digits(4)} {digits(4)}", f"RX{digits(9)}", f"{digits(2)}/{digits(6)}")),
        "big": rng.choice((f"{rng.randint(1, 999)} {rng.randint(100, 999)}", f"{rng.randint(1, 999):,}",
                           f"{rng.randint(1, 9)}.{rng.randint(100, 999)}.{rng.randint(100, 999)}")),
    }


# --------------------------------------------------------------------------- real sentences with digit groups

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
_DIGIT_GROUP = re.compile(r"[0-9](?:[0-9 ,.\-/:()]{0,3}[0-9]){5,}")
# Real sentences that hold real contact details are PII, not distractors: a North American number
# (ddd-ddd-dddd, 1-800-...), or the words fax / e-mail / (at) (the New York Times Syndicate's contact line
# in the news articles). Found by this rule, which knows nothing of the recognizers, and left out.
_REAL_CONTACT = re.compile(r"\b(?:1-)?[0-9]{3}-[0-9]{3}-[0-9]{4}\b|\bfax\b|e-mail|\(at\)", re.IGNORECASE)


def _digit_sentences(texts, limit_per_source: int = 4000) -> list[str]:
    out, seen = [], set()
    for text in texts:
        for s in _SENTENCE.split(text):
            s = s.strip()
            if (20 <= len(s) <= 600 and _DIGIT_GROUP.search(s) and "@" not in s and not _REAL_CONTACT.search(s)
                    and s not in seen):
                seen.add(s)
                out.append(s)
                if len(out) >= limit_per_source:
                    return out
    return out


def real_number_sentences(mirror: Path) -> dict[str, list[str]]:
    """Real sentences holding a digit group of 6+ digits (separators allowed), per source."""
    gsm = pl.gsm8k_train(mirror) + [json.loads(x)["question"] + "\n" + json.loads(x)["answer"]
                                    for x in (mirror / GSM8K_TEST).read_text().splitlines() if x]
    with zipfile.ZipFile(mirror / ABC) as z:
        abc = [io.TextIOWrapper(z.open(n), encoding="latin-1").read() for n in ("abc/rural.txt", "abc/science.txt")]
    with zipfile.ZipFile(mirror / STATE_UNION) as z:
        sou = [io.TextIOWrapper(z.open(n), encoding="latin-1").read() for n in sorted(z.namelist()) if n.endswith(".txt")]
    lee = (mirror / LEE).read_text(encoding="latin-1").splitlines()
    articles = [line.split(" ", 1)[-1] for line in (mirror / ARTICLES).read_text(encoding="latin-1").splitlines()]
    return {"GSM8K": _digit_sentences([line for t in gsm for line in t.split("\n")]),
            "ABC-news": _digit_sentences(abc), "Lee-news": _digit_sentences(lee),
            "news-articles": _digit_sentences(articles), "WikiText-2": _digit_sentences(pl.wikitext(mirror)),
            "State-of-the-Union": _digit_sentences(sou)}


BOOLQ = "454ff101e614370bb1807fe7ebbda6fdb57e794b9662cc1ccae211bf1ff626c8"
LAMBADA = "411bfbe5b9054346b6a19299c0242670adbefb9162efd958593cbc0290b8c9dc"


def other_real_sentences(mirror: Path) -> dict[str, list[str]]:
    """heldout3's real sentences: BoolQ's Wikipedia passages and LAMBADA's book passages."""
    boolq = [json.loads(x)["query"] for x in (mirror / BOOLQ).read_text().splitlines() if x]
    lambada = [json.loads(x)["context"] for x in (mirror / LAMBADA).read_text().splitlines() if x]
    return {"BoolQ": _digit_sentences(boolq), "LAMBADA": _digit_sentences(lambada)}


def _parity(s: str) -> int:
    return hashlib.sha256(s.encode()).digest()[0] % 4


# --------------------------------------------------------------------------- documents


def _fill(template: str, values: dict[str, str]) -> tuple[str, list[tuple[int, int, str]]]:
    """template with values put in; spans of the gold keys ({x} PHONE, {e} EMAIL)."""
    out, spans, pos = [], [], 0
    for m in re.finditer(r"\{(\w+)\}", template):
        out.append(template[pos:m.start()])
        start = sum(map(len, out))
        value = values[m.group(1)]
        out.append(value)
        kind = {"x": "PHONE", "e": "EMAIL"}.get(m.group(1))
        if kind:
            spans.append((start, start + len(value), kind))
        pos = m.end()
    out.append(template[pos:])
    return "".join(out), spans


def build_split(mirror: Path, split: str, per_locale: int = PER_LOCALE) -> list[dict]:
    import faker

    if faker.VERSION != pl.FAKER_VERSION:
        print(f"warning: Faker {faker.VERSION} != pinned {pl.FAKER_VERSION}; the set will differ", file=sys.stderr)
    cfg = SPLITS[split]
    tset = cfg["templates"]
    docs = []
    for li, locale in enumerate(cfg["locales"]):
        lang = locale.split("_")[0]
        fake = faker.Faker(locale)
        fake.seed_instance(cfg["seed"] * 1000 + li)
        rng = random.Random(f"hard:{split}:{locale}:{cfg['seed']}")
        carrier = pl.lingua_sentences(mirror, lang)
        kinds = [("PHONE", c) for c in PHONE_CATEGORIES] * 2 + [("EMAIL", f) for f in EMAIL_FORMS] + [("NONE", "distractor")] * 2
        for k in range(per_locale):
            kind, category = kinds[k % len(kinds)]
            email = rng.choice((fake.email(), fake.free_email(), fake.company_email()))
            values = {"n": fake.name(), "c": fake.company(), "a": fake.address(), "x": national_number(fake, rng),
                      "e": email}
            if kind == "PHONE":
                pool = ADDRESS_T[tset] if category == "address" else PHONE_T[lang][tset][category]
            elif kind == "EMAIL":
                values["e"] = obfuscate(email, category)
                pool = EMAIL_T[lang][tset]
            else:
                values.update(distractor_values(fake, rng))
                pool = DISTRACTOR_T[tset]
            item, spans = _fill(rng.choice(pool), values)  # gold: the number and any e-mail address
            # a third of the documents also carry a distractor (and every distractor document two)
            extra = []
            if kind == "NONE" or rng.random() < 1 / 3:
                dvals = distractor_values(fake, rng)
                extra.append(_fill(rng.choice(DISTRACTOR_T[tset]), dvals)[0])
            before = " ".join(rng.choice(carrier) for _ in range(rng.randint(1, 2)))
            after = " ".join(rng.choice(carrier) for _ in range(rng.randint(0, 1)))
            block = "\n" in item
            sep = "\n\n" if block else " "
            text = before + sep
            offset = len(text)
            text += item
            for e in extra:
                text += ("\n" if block else " ") + e
            if after:
                text += sep + after
            gold = [[s + offset, e + offset, t] for s, e, t in spans]
            docs.append({"id": f"hard:{split}:{locale}:{k}", "split": split, "locale": locale,
                         "category": category if kind != "NONE" else "distractor", "kind": kind,
                         "text": text, "spans": gold})
    real = real_number_sentences(mirror) if cfg["parity"] is not None else other_real_sentences(mirror)
    for source, sentences in real.items():
        parity = cfg["parity"] if isinstance(cfg["parity"], tuple) else (cfg["parity"],)
        mine = [s for s in sentences if cfg["parity"] is None or _parity(s) in parity]
        for i, s in enumerate(mine):
            docs.append({"id": f"hard:{split}:real:{source}:{i}", "split": split, "locale": "en", "category": f"real:{source}",
                         "kind": "NONE", "text": s, "spans": []})
    return docs


# --------------------------------------------------------------------------- scoring


def _overlap(a, b) -> bool:
    return a[2] == b[2] and a[0] < b[1] and b[0] < a[1]


def score(docs: list[dict], params, show_errors: bool = False) -> dict:
    """Per category: gold phones/e-mails found, predicted spans of each type and how many are true."""
    from corpus.pii.scrub import find_spans

    cat = defaultdict(Counter)
    errors = []
    for d in docs:
        pred = find_spans(d["text"], params)
        gold = [tuple(s) for s in d["spans"]]
        c = cat[d["category"]]
        c["docs"] += 1
        for g in gold:
            hit = any(_overlap(g, p) for p in pred)
            c[f"{g[2]}_gold"] += 1
            c[f"{g[2]}_found"] += hit
            if not hit:
                errors.append(("FN", d, g))
        for p in pred:
            if p[2] not in ("PHONE", "EMAIL"):
                continue
            hit = any(_overlap(p, g) for g in gold)
            c[f"{p[2]}_pred"] += 1
            c[f"{p[2]}_true"] += hit
            if not hit:
                errors.append(("FP", d, p))
    if show_errors:
        for what, d, (s, e, t) in errors:
            text = d["text"]
            print(f"  {what} {d['id']:32} {d['category']:14} {t:5} {text[s:e]!r} in {text[max(0, s - 60):e + 40]!r}")
    return {k: dict(v) for k, v in sorted(cat.items())}


def summarise(per_cat: dict, categories) -> dict:
    total = Counter()
    for c, v in per_cat.items():
        if categories is None or c in categories:
            total.update(v)
    out = {"docs": total["docs"]}
    for t in ("PHONE", "EMAIL"):
        g, f, p, tr = total[f"{t}_gold"], total[f"{t}_found"], total[f"{t}_pred"], total[f"{t}_true"]
        out[t] = {"gold": g, "found": f, "predicted": p, "true": tr,
                  "recall": f / g if g else None, "precision": tr / p if p else None}
    return out


def evaluate(docs: list[dict], params, show_errors: bool) -> dict:
    per_cat = score(docs, params, show_errors)
    phone_docs = [c for c in per_cat if c in PHONE_CATEGORIES]
    # precision of the hard part: every phone predicted in its documents and in the distractor and
    # real-sentence documents (where every phone is false)
    negatives = [c for c in per_cat if c == "distractor" or c.startswith("real:")]
    return {
        "per_category": per_cat,
        "all": summarise(per_cat, None),
        "hard": summarise(per_cat, set(HARD_CATEGORIES) | set(negatives)),
        "phone_categories_with_label": summarise(per_cat, set(phone_docs) - {"prose_no_cue"}),
        "email": summarise(per_cat, set(EMAIL_FORMS)),
        "negatives": summarise(per_cat, set(negatives)),
    }


def fmt(x) -> str:
    return "  n/a" if x is None else f"{x:.3f}"


def print_report(name: str, ev: dict) -> None:
    print(f"\n{name}")
    print(f"  {'category':26} {'docs':>5} {'ph gold':>7} {'recall':>6} {'ph pred':>7} {'prec':>6} {'em gold':>7} {'recall':>6} {'em pred':>7}")
    for c, v in ev["per_category"].items():
        g, p = v.get("PHONE_gold", 0), v.get("PHONE_pred", 0)
        eg, ep = v.get("EMAIL_gold", 0), v.get("EMAIL_pred", 0)
        print(f"  {c:26} {v['docs']:5d} {g:7d} {fmt(v.get('PHONE_found', 0) / g if g else None):>6} {p:7d} "
              f"{fmt(v.get('PHONE_true', 0) / p if p else None):>6} {eg:7d} {fmt(v.get('EMAIL_found', 0) / eg if eg else None):>6} {ep:7d}")
    for part in ("hard", "phone_categories_with_label", "email", "negatives"):
        s = ev[part]
        print(f"  {part:28} phone recall {fmt(s['PHONE']['recall'])} precision {fmt(s['PHONE']['precision'])} "
              f"({s['PHONE']['found']}/{s['PHONE']['gold']}, {s['PHONE']['true']}/{s['PHONE']['predicted']});"
              f" e-mail recall {fmt(s['EMAIL']['recall'])} precision {fmt(s['EMAIL']['precision'])}")


def check_targets(ev: dict) -> list[str]:
    fails = []
    hard = ev["hard"]["PHONE"]
    if (hard["recall"] or 0) < 0.95:
        fails.append(f"hard phone recall {hard['recall']:.3f} < 0.95")
    if (hard["precision"] or 0) < 0.95:
        fails.append(f"hard phone precision {hard['precision']:.3f} < 0.95")
    email = ev["email"]["EMAIL"]
    if (email["recall"] or 0) < 0.99:
        fails.append(f"e-mail recall {email['recall']:.3f} < 0.99")
    return fails


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", type=Path, default=mirror_dir())
    ap.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    ap.add_argument("--show-errors", action="store_true")
    ap.add_argument("--dump", type=Path, help="write <split>.jsonl here and stop")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    splits = tuple(SPLITS) if args.split == "all" else (args.split,)
    sets = {s: build_split(args.mirror, s) for s in splits}
    shas = {}
    for s, docs in sets.items():
        blob = "".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in docs).encode()
        shas[s] = hashlib.sha256(blob).hexdigest()
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            (args.dump / f"{s}.jsonl").write_bytes(blob)
    if args.dump:
        print(json.dumps({s: {"docs": len(sets[s]), "sha256": shas[s]} for s in sets}, indent=1))
        return 0
    from corpus.pii.scrub import PiiParams

    params = PiiParams()
    context = getattr(params, "phone_context", None)  # None: a checkout from before issue 30
    fig = {"params": {"entities": params.entities, "phone_regions": params.phone_regions,
                      "phone_context_window": context.window if context else None,
                      "phone_address_blocks": context.address_blocks if context else None,
                      "obfuscated_email": getattr(params, "obfuscated_email", None)},
           "sets": {s: {"docs": len(sets[s]), "sha256": shas[s], "locales": SPLITS[s]["locales"],
                        "seed": SPLITS[s]["seed"], "templates": SPLITS[s]["templates"]} for s in sets},
           "first_shots": FIRST_SHOTS, "results": {}}
    for s, docs in sets.items():
        ev = evaluate(docs, params, args.show_errors)
        print_report(s, ev)
        fig["results"][s] = ev
    fig["target_failures"] = {}
    for s in ("heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7",
              "heldout8", "heldout9", "heldout10", "heldout11", "heldout12", "heldout13",
              "heldout14", "heldout15", "heldout16", "heldout17"):
        if s in fig["results"]:
            fig["target_failures"][s] = check_targets(fig["results"][s])
            print(f"\ntargets ({s}, hard part, now):", "NOT MET" if fig["target_failures"][s] else "PASS",
                  fig["target_failures"][s] or "")
            first = FIRST_SHOTS.get(s)
            if first:  # the split's errors have been read since: only its first score is a held-out figure
                met = first["phone_recall"] >= 0.95 and first["phone_precision"] >= 0.95 and first["email_recall"] >= 0.99
                print(f"  its one held-out score (rules of {first['rules_commit']}): phone recall {first['phone_recall']:.3f}, "
                      f"precision {first['phone_precision']:.3f}, e-mail recall {first['email_recall']:.3f}: "
                      f"{'PASS' if met else 'NOT MET'}")
    write_results(args.json, fig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
