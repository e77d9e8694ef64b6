"""Build the labelled PII evaluation set and the false-positive sets for bench/pii_eval.py.

    python bench/pii_labelled.py [--out DIR] [--mirror DIR]     # writes labelled.jsonl, prints its sha256

Labelled documents (``{"id", "set", "locale", "text", "spans": [[start, end, type], ...]}``):

* ``presidio``: presidio-research's generated_small.json, its EMAIL/PHONE/CARD/IP spans.
* ``dev`` and ``heldout``: documents written here. Each is 1-3 real sentences of the locale's
  language (lingua test sentences where the language has them, else EnterprisePII passages
  labelled "no sensitive information"), one sentence carrying a PII value from Faker (seeded,
  pinned version) in a template of that language, and 1-2 more real sentences. The PII value's
  offsets are known by construction. Phones are Faker's ``phone_number()`` of the locale; cards
  every Faker brand (Visa 13/16/19, Mastercard 51-55 and 2221-2720, Amex, Discover, Diners, JCB
  15/16, Maestro) written with and without separators; IPs IPv4 and IPv6; keys are generated in
  the formats of corpus.pii (random bodies) inside code-like lines. About one phone in six sits in
  a template without any phone word ("Jana Nováková, 604 115 244"), as in contact lists.
  ``dev`` locales were looked at while writing the recognizers; ``heldout`` locales (other
  languages, other templates) were not, and are what the targets are judged on.

False-positive sets (documents that hold no PII; every span found is a false redaction):
TinyStories (train head and validation), GSM8K train (question + answer), WikiText-2 test
paragraphs, and code-like lines of NLTK webtext (``=``, ``;``, ``{``, ``()``, ``://`` or paths).

Everything is a pure function of the mirror files and the seeds: run it twice, get the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import re
import string
import sys
import zipfile
from pathlib import Path

from common import mirror_dir

FAKER_VERSION = "40.54.0"  # Faker's output for a seed changes between versions: pin it

GENERATED_SMALL = "ebc4d2e49907678d65e38ed7b9efc267f6e3c1b6761af9de30aef6fa7e11c1e4"
ENTERPRISE_PII = "de3a638feb3285dd45d54dddbc21fb26ecf1a89ef18e63582434e6e2eda2d14a"
TINYSTORIES = "c56cfd24fb1c542b141a396184b822a4db3672abdb4c49c6aa843171c5e822a5"
TINYSTORIES_VAL = "5fc1fb0113df62b567fb271806cd645ce8d75f59c58ca0b764c03d3b6ff34ca6"
GSM8K_TRAIN = "17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465"
WIKITEXT_TEST = "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c"
WEBTEXT = "9e32dbae4879464b8f420a0dc721855bb26167b720d7695588d2ca2aeadf501a"
LINGUA = {
    "en": "195259adae0739723879223bba45420b530a5de0e6ca130904a1d67aba648e4f",
    "fr": "4dda6acddb10fc8f03b2fa71cd066880d6c3b00206bdb34fc654155776435150",
    "de": "a8982aaa6ec4af7bd80995550bbed5cd8b4ec17daa9a7fe04ad7c16944218da9",
    "es": "c1805c5967a99996a51d6f79dcdc5f7ef8f9ef95746ede44825e76758e861507",
    "it": "df5f243297e8308d0dc5aa9d7fa311e0b1df4400ad8abc59e8364e03940cb921",
    "pt": "7e683fdba7429a14b5a9b9883712dbb670c35dc5ed26b0cb312fb29ec3416ce1",
    "nl": "93abdc6602f52a9c49dd292416703c23db4c2e6ce4189f9a281c884d518108a9",
    "ru": "4548ddee2db72b5c504914f198bc3a30a22e8b862a3ff19437f6017e84a2d57a",
    "zh": "0706f6ae1617819c2cfc1ee26af9c079e55e1818204bc5e039dec38857922777",
    "ja": "d536d84db175344dfed21279e9dc4418e2a76bd6eb3009e92466b211e9b0cc9d",
    "pl": "2eb682cdccb47b44a3feff4db6e997710985d7c741d6ac6260f99bbdf77a669f",
    "tr": "f0f1b45555a7ca151eb6e9f3118bee4da97d325c922b514868be5305a802421c",
    "sv": "b1f35579e2d15ddc619c708c3c4098c74115b8593f4da34f4ff324b85e35d740",
}
TYPE_OF_LABEL = {"EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE", "CREDIT_CARD": "CARD", "IP_ADDRESS": "IP"}

DEV_LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL")
HELDOUT_LOCALES = ("pl_PL", "ru_RU", "sv_SE", "tr_TR", "cs_CZ", "da_DK", "fi_FI", "ja_JP", "zh_CN", "el_GR",
                   "ro_RO", "hu_HU", "pt_PT", "en_AU", "en_IN", "en_NZ", "fr_CH", "de_AT", "es_MX", "ko_KR",
                   "uk_UA", "he_IL", "id_ID", "sk_SK", "hr_HR", "es_CO", "es_AR", "de_CH", "en_CA", "bg_BG")

# Templates per language: {x} is the PII value, {n} a person's name. "phone" templates name the
# phone in the words of the language; "bare" ones do not (contact-list style).
T = {
    "en": {"phone": ["Call me at {x} if anything changes.", "Phone: {x}", "You can reach our office on {x} during business hours.",
                     "My mobile is {x}.", "Tel. {x} (reception)", "For bookings ring {x}.", "Contact {n} on {x}."],
           "email": ["Write to {x} for details.", "E-mail: {x}", "Send the signed form to {x} by Friday."],
           "card": ["My card number is {x}.", "Please charge it to {x}.", "Card on file: {x}, expires 09/27."],
           "ip": ["The server at {x} stopped responding.", "Login attempt from IP {x} was blocked.", "ping {x}"]},
    "de": {"phone": ["Rufen Sie mich unter {x} an.", "Telefon: {x}", "Tel. {x}", "Mobil: {x}",
                     "Sie erreichen uns unter der Nummer {x}.", "Bei Fragen bitte {n} anrufen: {x}"],
           "email": ["Schreiben Sie an {x}.", "E-Mail: {x}"],
           "card": ["Meine Kreditkartennummer lautet {x}.", "Karte: {x}"],
           "ip": ["Der Server {x} antwortet nicht.", "Zugriff von der IP-Adresse {x}."]},
    "fr": {"phone": ["Appelez-moi au {x}.", "Téléphone : {x}", "Tél. {x}", "Vous pouvez joindre {n} au {x}.",
                     "Portable : {x}", "Notre numéro est le {x}."],
           "email": ["Écrivez-nous à {x}.", "Courriel : {x}"],
           "card": ["Mon numéro de carte est {x}.", "Carte bancaire : {x}"],
           "ip": ["Le serveur {x} ne répond plus.", "Connexion depuis l'adresse IP {x}."]},
    "es": {"phone": ["Llámame al {x}.", "Teléfono: {x}", "Tel. {x}", "Puede contactar con {n} en el {x}.", "Móvil: {x}"],
           "email": ["Escríbenos a {x}.", "Correo: {x}"],
           "card": ["Mi número de tarjeta es {x}.", "Tarjeta: {x}"],
           "ip": ["El servidor {x} no responde.", "Acceso desde la IP {x}."]},
    "it": {"phone": ["Chiamami al {x}.", "Telefono: {x}", "Tel. {x}", "Cellulare: {x}", "Per informazioni contattare {n} al {x}."],
           "email": ["Scrivete a {x}.", "Email: {x}"],
           "card": ["Il numero della mia carta è {x}.", "Carta: {x}"],
           "ip": ["Il server {x} non risponde.", "Accesso dall'indirizzo IP {x}."]},
    "pt": {"phone": ["Ligue para {x}.", "Telefone: {x}", "Tel. {x}", "Celular: {x}", "Fale com {n} pelo {x}."],
           "email": ["Escreva para {x}.", "E-mail: {x}"],
           "card": ["O número do meu cartão é {x}.", "Cartão: {x}"],
           "ip": ["O servidor {x} não responde.", "Acesso a partir do IP {x}."]},
    "nl": {"phone": ["Bel me op {x}.", "Telefoon: {x}", "Tel. {x}", "Mobiel: {x}", "U kunt {n} bereiken op {x}."],
           "email": ["Mail naar {x}.", "E-mail: {x}"],
           "card": ["Mijn kaartnummer is {x}.", "Creditcard: {x}"],
           "ip": ["De server {x} reageert niet.", "Inlog vanaf IP-adres {x}."]},
    # held-out languages
    "pl": {"phone": ["Zadzwoń do mnie pod numer {x}.", "Tel. {x}", "Telefon kontaktowy: {x}", "Proszę dzwonić do {n}: {x}"],
           "email": ["Napisz na adres {x}.", "E-mail: {x}"],
           "card": ["Numer mojej karty to {x}.", "Karta: {x}"],
           "ip": ["Serwer {x} nie odpowiada.", "Logowanie z adresu IP {x}."]},
    "ru": {"phone": ["Позвоните мне по номеру {x}.", "Телефон: {x}", "Тел.: {x}", "Звоните {n} по телефону {x}."],
           "email": ["Пишите на {x}.", "Эл. почта: {x}"],
           "card": ["Номер моей карты {x}.", "Карта: {x}"],
           "ip": ["Сервер {x} не отвечает.", "Вход с IP-адреса {x}."]},
    "uk": {"phone": ["Телефонуйте за номером {x}.", "Тел.: {x}", "Мобільний: {x}"],
           "email": ["Пишіть на {x}."], "card": ["Номер картки: {x}."], "ip": ["Сервер {x} не відповідає."]},
    "sv": {"phone": ["Ring mig på {x}.", "Telefon: {x}", "Tel. {x}", "Du når {n} på mobil {x}."],
           "email": ["Skriv till {x}.", "E-post: {x}"], "card": ["Mitt kortnummer är {x}."], "ip": ["Servern {x} svarar inte."]},
    "da": {"phone": ["Ring til mig på {x}.", "Telefon: {x}", "Tlf. {x}", "Mobil: {x}"],
           "email": ["Skriv til {x}."], "card": ["Mit kortnummer er {x}."], "ip": ["Serveren {x} svarer ikke."]},
    "fi": {"phone": ["Soita minulle numeroon {x}.", "Puhelin: {x}", "Puh. {x}"],
           "email": ["Kirjoita osoitteeseen {x}."], "card": ["Korttini numero on {x}."], "ip": ["Palvelin {x} ei vastaa."]},
    "tr": {"phone": ["Telefon: {x}", "Tel: {x}", "Cep telefonu {x}", "Bize {x} numarasından ulaşabilirsiniz."],
           "email": ["{x} adresine yazın."], "card": ["Kart numaram {x}."], "ip": ["{x} sunucusu yanıt vermiyor."]},
    "cs": {"phone": ["Zavolejte mi na číslo {x}.", "Tel.: {x}", "Telefon: {x}", "Mobil: {x}"],
           "email": ["Pište na {x}."], "card": ["Číslo mé karty je {x}."], "ip": ["Server {x} neodpovídá."]},
    "sk": {"phone": ["Zavolajte mi na číslo {x}.", "Tel.: {x}", "Telefón: {x}"],
           "email": ["Píšte na {x}."], "card": ["Číslo mojej karty je {x}."], "ip": ["Server {x} neodpovedá."]},
    "hr": {"phone": ["Nazovite me na {x}.", "Tel.: {x}", "Mobitel: {x}"],
           "email": ["Pišite na {x}."], "card": ["Broj moje kartice je {x}."], "ip": ["Poslužitelj {x} ne odgovara."]},
    "bg": {"phone": ["Обадете се на {x}.", "Тел.: {x}", "Телефон: {x}"],
           "email": ["Пишете на {x}."], "card": ["Номерът на картата ми е {x}."], "ip": ["Сървърът {x} не отговаря."]},
    "el": {"phone": ["Τηλέφωνο: {x}", "Τηλ. {x}", "Καλέστε με στο {x}."],
           "email": ["Γράψτε στο {x}."], "card": ["Ο αριθμός της κάρτας μου είναι {x}."], "ip": ["Ο διακομιστής {x} δεν απαντά."]},
    "ro": {"phone": ["Sunați-mă la {x}.", "Telefon: {x}", "Tel. {x}", "Mobil: {x}"],
           "email": ["Scrieți la {x}."], "card": ["Numărul cardului meu este {x}."], "ip": ["Serverul {x} nu răspunde."]},
    "hu": {"phone": ["Hívjon a {x} számon.", "Telefon: {x}", "Tel.: {x}", "Mobil: {x}"],
           "email": ["Írjon a {x} címre."], "card": ["A kártyám száma {x}."], "ip": ["A(z) {x} szerver nem válaszol."]},
    "ja": {"phone": ["電話番号は{x}です。", "TEL: {x}", "携帯：{x}", "お問い合わせは電話{x}まで。"],
           "email": ["メールは{x}までお送りください。"], "card": ["カード番号は{x}です。"], "ip": ["サーバー{x}が応答しません。"]},
    "zh": {"phone": ["电话：{x}", "请拨打{x}联系我们。", "手机号码是{x}。"],
           "email": ["请发邮件至{x}。"], "card": ["我的卡号是{x}。"], "ip": ["服务器{x}没有响应。"]},
    "ko": {"phone": ["전화번호는 {x}입니다.", "연락처: {x}", "휴대폰 {x}"],
           "email": ["{x}로 메일을 보내 주세요."], "card": ["카드 번호는 {x}입니다."], "ip": ["서버 {x}가 응답하지 않습니다."]},
    "he": {"phone": ["טלפון: {x}", "נייד: {x}", "התקשרו אלינו ב-{x}"],
           "email": ["כתבו ל-{x}"], "card": ["מספר הכרטיס שלי הוא {x}."], "ip": ["השרת {x} אינו מגיב."]},
    "id": {"phone": ["Hubungi saya di {x}.", "Telepon: {x}", "Telp. {x}", "HP: {x}"],
           "email": ["Kirim email ke {x}."], "card": ["Nomor kartu saya {x}."], "ip": ["Server {x} tidak merespons."]},
}
BARE_PHONE = ["{n}, {x}", "{n} — {x}", "{n}\n{x}"]
KEY_LINES = [
    "export {name}={x}", '{name} = "{x}"', "{name}: {x}", '"{name}": "{x}",', "curl -H 'Authorization: Bearer {x}' https://api.example.com/v1",
    "client = Client(api_key='{x}')", "set {name}={x}",
]


def mirror_path(mirror: Path, sha: str) -> Path:
    return mirror / sha


# Carrier sentences must hold no PII of their own (some real ones carry an e-mail or a phone):
# drop any with an "@", a run of 6+ digits (separators allowed) or a dotted quad -- a rule that
# knows nothing of the recognizers being evaluated.
_MAYBE_PII = re.compile(r"@|[0-9](?:[\s().\-/]{0,2}[0-9]){5}|[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+")


def clean(sentences: list[str]) -> list[str]:
    return [s for s in sentences if not _MAYBE_PII.search(s)]


def lingua_sentences(mirror: Path, lang: str) -> list[str]:
    return clean([line.strip() for line in mirror_path(mirror, LINGUA[lang]).read_text().splitlines() if line.strip()])


def enterprise_clean_passages(mirror: Path) -> list[str]:
    """EnterprisePII passages labelled as holding no sensitive information (gold 0)."""
    out = []
    for line in mirror_path(mirror, ENTERPRISE_PII).read_text().splitlines():
        row = json.loads(line)
        if row["gold"] == 0:
            passage = row["query"].split("'''", 2)[1].strip()
            out.append(passage)
    return clean(out)


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def make_key(rng: random.Random) -> tuple[str, str]:
    """(variable name, key) in one of the formats corpus.pii recognizes, with a random body."""
    alnum, hexd = string.ascii_letters + string.digits, "0123456789abcdef"

    def mixed(n: int) -> str:
        while True:
            body = _rand(rng, alnum, n)
            if any(c.islower() for c in body) and any(c.isupper() for c in body) and any(c.isdigit() for c in body):
                return body

    kinds = [
        ("AWS_ACCESS_KEY_ID", lambda: "AKIA" + _rand(rng, string.ascii_uppercase + string.digits, 16)),
        ("GITHUB_TOKEN", lambda: "ghp_" + mixed(36)),
        ("GITLAB_TOKEN", lambda: "glpat-" + mixed(20)),
        ("SLACK_BOT_TOKEN", lambda: f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-{mixed(24)}"),
        ("GOOGLE_API_KEY", lambda: "AIza" + mixed(35)),
        ("OPENAI_API_KEY", lambda: "sk-proj-" + mixed(rng.choice((48, 64, 120)))),
        ("ANTHROPIC_API_KEY", lambda: "sk-ant-api03-" + mixed(60)),
        ("STRIPE_SECRET_KEY", lambda: rng.choice(("sk_live_", "sk_test_", "rk_live_")) + mixed(24)),
        ("STRIPE_WEBHOOK_SECRET", lambda: "whsec_" + mixed(32)),
        ("HF_TOKEN", lambda: "hf_" + _mixed_letters(rng, 34)),
        ("TWILIO_ACCOUNT_SID", lambda: "AC" + _rand(rng, hexd, 32)),
        ("TWILIO_API_KEY", lambda: "SK" + _rand(rng, hexd, 32)),
        ("NPM_TOKEN", lambda: "npm_" + mixed(36)),
        ("SENDGRID_API_KEY", lambda: "SG." + mixed(22) + "." + mixed(43)),
        ("SHOPIFY_TOKEN", lambda: "shpat_" + _rand(rng, hexd, 32)),
        ("DO_TOKEN", lambda: "dop_v1_" + _rand(rng, hexd, 64)),
        ("AZURE_STORAGE_CONNECTION_STRING", lambda: "DefaultEndpointsProtocol=https;AccountName=acct{};AccountKey={}==;"
                                                    "EndpointSuffix=core.windows.net".format(rng.randrange(100), mixed(86))),
        ("DATABASE_URL", lambda: f"postgres://app:{mixed(14)}@db{rng.randrange(10)}.internal:5432/prod"),
        ("DB_PASSWORD", lambda: mixed(rng.randrange(10, 20))),
    ]
    name, make = kinds[rng.randrange(len(kinds))]
    return name, make()


def _mixed_letters(rng: random.Random, n: int) -> str:
    while True:
        body = _rand(rng, string.ascii_letters, n)
        if any(c.islower() for c in body) and any(c.isupper() for c in body):
            return body


def _key_span(name: str, value: str) -> tuple[int, int]:
    """Offsets of the secret inside ``value`` (connection strings: the key after AccountKey=;
    URLs: user:password@host)."""
    if name == "AZURE_STORAGE_CONNECTION_STRING":
        start = value.index("AccountKey=") + len("AccountKey=")
        return start, value.index(";", start)
    if name == "DATABASE_URL":
        start = value.index("://") + 3
        return start, value.index(":5432")
    return 0, len(value)


def card_text(rng: random.Random, digits: str) -> str:
    style = rng.randrange(4)
    if style == 0 or len(digits) < 13:
        return digits
    sep = " " if style in (1, 3) else "-"
    if len(digits) == 15 and rng.random() < 0.5:
        return sep.join((digits[:4], digits[4:10], digits[10:]))
    return sep.join(digits[i:i + 4] for i in range(0, len(digits), 4))


def synthetic_docs(mirror: Path, split: str, locales: tuple[str, ...], per_locale: int, seed: int) -> list[dict]:
    import faker

    if faker.VERSION != FAKER_VERSION:
        print(f"warning: Faker {faker.VERSION} != pinned {FAKER_VERSION}; the set will differ", file=sys.stderr)
    carriers_en = enterprise_clean_passages(mirror)
    docs = []
    for li, locale in enumerate(locales):
        lang = locale.split("_")[0]
        fake = faker.Faker(locale)
        fake.seed_instance(seed * 1000 + li)
        rng = random.Random(f"{split}:{locale}:{seed}")
        carrier = lingua_sentences(mirror, lang) if lang in LINGUA else carriers_en
        templates = T.get(lang, T["en"])
        for k in range(per_locale):
            kind = ("PHONE", "PHONE", "PHONE", "EMAIL", "CARD", "IP", "KEY")[k % 7]
            before = " ".join(rng.choice(carrier) for _ in range(rng.randint(1, 2)))
            after = " ".join(rng.choice(carrier) for _ in range(rng.randint(0, 2)))
            name = fake.name()
            if kind == "KEY":
                var, value = make_key(rng)
                line = rng.choice(KEY_LINES)
                while ("Bearer" in line or "api_key=" in line) and var in ("DB_PASSWORD", "DATABASE_URL",
                                                                           "AZURE_STORAGE_CONNECTION_STRING"):
                    var, value = make_key(rng)  # an opaque password is a secret only by its name
                sentence_t = line.replace("{name}", var)
                k0, k1 = _key_span(var, value)
            else:
                if kind == "PHONE":
                    value = fake.phone_number()
                    pool = BARE_PHONE if rng.random() < 1 / 6 else templates["phone"]
                elif kind == "EMAIL":
                    value, pool = rng.choice((fake.email(), fake.free_email(), fake.company_email())), templates["email"]
                elif kind == "CARD":
                    brand = rng.choice(sorted(fake.provider("faker.providers.credit_card").credit_card_types))
                    value, pool = card_text(rng, fake.credit_card_number(brand)), templates["card"]
                else:
                    value = rng.choice((fake.ipv4(), fake.ipv4_public(), fake.ipv6(), fake.ipv4_private()))
                    pool = templates["ip"]
                sentence_t = rng.choice(pool).replace("{n}", name)
                k0, k1 = 0, len(value)
            prefix_t, suffix_t = sentence_t.split("{x}")
            text = before + " " + prefix_t
            start = len(text) + k0
            text += value + suffix_t
            end = start + (k1 - k0)
            if after:
                text += " " + after
            docs.append({"id": f"{split}:{locale}:{k}", "set": split, "locale": locale, "text": text,
                         "spans": [[start, end, kind]]})
    return docs


def presidio_docs(mirror: Path) -> list[dict]:
    rows = json.loads(mirror_path(mirror, GENERATED_SMALL).read_text())
    out = []
    for i, row in enumerate(rows):
        spans = [[s["start_position"], s["end_position"], TYPE_OF_LABEL[s["entity_type"]]]
                 for s in row["spans"] if s["entity_type"] in TYPE_OF_LABEL]
        out.append({"id": f"presidio:{i}", "set": "presidio", "locale": "en_US", "text": row["full_text"], "spans": spans})
    return out


def labelled_set(mirror: Path, per_locale: int = 70) -> list[dict]:
    return (presidio_docs(mirror) + synthetic_docs(mirror, "dev", DEV_LOCALES, per_locale, seed=1)
            + synthetic_docs(mirror, "heldout", HELDOUT_LOCALES, per_locale, seed=2))


# --------------------------------------------------------------------------- false-positive sets


def tinystories(mirror: Path) -> list[str]:
    train = [s for s in re.split(r"(?<!\n)\n(?!\n)", mirror_path(mirror, TINYSTORIES).read_text()) if s.strip()]
    val = [s.strip() for s in re.split(r"\n\s*\n", mirror_path(mirror, TINYSTORIES_VAL).read_text()) if s.strip()]
    return train + val


def gsm8k_train(mirror: Path) -> list[str]:
    rows = [json.loads(line) for line in mirror_path(mirror, GSM8K_TRAIN).read_text().splitlines() if line]
    return [r["question"] + "\n" + r["answer"] for r in rows]


def wikitext(mirror: Path) -> list[str]:
    text = mirror_path(mirror, WIKITEXT_TEST).read_text().replace("\r\n", "\n")
    return [p.strip() for p in text.split("\n") if len(p.strip()) > 40 and not p.strip().startswith("=")]


CODE_LIKE = re.compile(r"[=;{}]|\w\(|://|[\\/]\w+[\\/]|\w\.\w+\(|--\w")


def webtext_code_lines(mirror: Path) -> list[str]:
    with zipfile.ZipFile(mirror_path(mirror, WEBTEXT)) as z:
        lines = []
        for member in sorted(z.namelist()):
            if member.endswith(".txt"):
                text = io.TextIOWrapper(z.open(member), encoding="latin-1").read()
                lines += [line.strip() for line in text.splitlines() if CODE_LIKE.search(line)]
    return lines


def false_positive_sets(mirror: Path) -> dict[str, list[str]]:
    return {"TinyStories": tinystories(mirror), "GSM8K-train": gsm8k_train(mirror),
            "WikiText-2": wikitext(mirror), "webtext-code-lines": webtext_code_lines(mirror)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirror", type=Path, default=mirror_dir())
    ap.add_argument("--out", type=Path, help="write labelled.jsonl here")
    args = ap.parse_args(argv)
    docs = labelled_set(args.mirror)
    blob = "".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in docs).encode()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "labelled.jsonl").write_bytes(blob)
    counts: dict[str, int] = {}
    for d in docs:
        for *_, t in d["spans"]:
            counts[f"{d['set']}/{t}"] = counts.get(f"{d['set']}/{t}", 0) + 1
    print(json.dumps({"docs": len(docs), "spans": counts, "sha256": hashlib.sha256(blob).hexdigest()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
