"""Secrets and user names in text from outside: one filter for pasted text, every output made from it, and the
environment; the user names that redaction removes.

A paste in a public issue can hold a token that its author did not mean to publish; the doctor never repeats one.
Each shape below is the issuer's documented format, matched whole so that ordinary words are left alone.
"""

import re

REDACTED = "REDACTED"
# A name that says its value is a credential (HF_TOKEN, AWS_SECRET_ACCESS_KEY, PIP_PASSWORD, OPENAI_API_KEY).
CREDENTIAL_NAME = re.compile(r"TOKEN|PASSW|SECRET|_KEY$|^KEY$|KEY_|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|_PAT$|APIKEY",
                             re.IGNORECASE)
# user:password@ (or a bare token@) in a URL, as in https://user:token@index.example/simple (RFC 3986 userinfo).
# Up to the last @ of the word: a token pasted unencoded may hold / # ? (base64 has /), and so may what precedes @.
URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{0,30}://)(?:[^\s@]{0,512}@)+")
# A query parameter whose name looks like a credential (?token=, &api_key=, &sig= of a signed URL).
URL_QUERY_SECRET = re.compile(r"([?&;]([^=&#\s]+)=)([^&#\s]*)")
SIGNATURE = re.compile(r"^(SIG|SIGNATURE|X-AMZ-SIGNATURE|X-AMZ-CREDENTIAL)$", re.IGNORECASE)
TOKEN_SHAPES = re.compile("|".join((
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",                    # GitHub tokens (github.blog 2021-04-05, token formats)
    r"\bgithub_pat_[A-Za-z0-9_]{40,}",                  # GitHub fine-grained personal access tokens
    r"\bhf_[A-Za-z0-9]{30,}",                           # Hugging Face user access tokens
    r"\bpypi-[A-Za-z0-9_-]{40,}",                       # PyPI API tokens (a macaroon, base64)
    r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",         # AWS access key ids (IAM identifiers, unique id prefixes)
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",                 # Slack tokens
    r"\bsk-(?:proj-|ant-|live_|test_)?[A-Za-z0-9_-]{20,}",  # OpenAI and Anthropic keys, Stripe secret keys
    r"\bglpat-[A-Za-z0-9_-]{20,}",                      # GitLab personal access tokens
    r"\bnpm_[A-Za-z0-9]{36}\b",                         # npm access tokens
    r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}",  # JSON Web Tokens (RFC 7519, base64url)
)))
# NAME=value, NAME: value and "NAME": "value" where NAME ends in a word that says secret (export lines, .env files,
# YAML, JSON, env dumps); `==` is a version pin (tokenizers==0.15), not an assignment. The match starts at that word:
# what comes before it in NAME is kept either way, and a pattern that scanned back over NAME from every word boundary
# cost 64 steps a character on text like "a.a.a." (benchmarks/paste_cost.py, "dotted words").
NAMED_SECRET = re.compile(r"""(?i)((?:token|passwd|password|secret|api[_-]?key|access[_-]?key|private[_-]?key"""
                          r"""|secret[_-]?key|credentials?|session[_-]?id|cookie)["']?[ \t]{0,8}(?:=(?!=)|:)[ \t]{0,8})(["']?)"""
                          r"""([^\s"',;&`\\]+)""")
# Command-line options that take a credential: --password X, --token=X, -p X of some tools is too ambiguous to take.
OPTION_SECRET = re.compile(r"(?i)(--(?:[\w-]*token|[\w-]*password|[\w-]*secret|api-key|auth)(?:=|\s+))([^\s\"'`\\]+)")
# A block scrub() already replaced (its header then says REDACTED) is left as it is: scrubbing twice changes nothing.
PRIVATE_KEY = re.compile(r"-----BEGIN ([A-Z ]*PRIVATE KEY(?: BLOCK)?)-----(?! REDACTED(?:\n|$)).*?(?:-----END \1-----|\Z)",
                         re.DOTALL)


def without_userinfo(value: str, replacement: str = "") -> str:
    """VALUE with the user:password@ part of every URL in it replaced (by REPLACEMENT + '@', or removed), and
    credential-named query values blanked."""
    value = URL_USERINFO.sub(lambda m: m.group(1) + (replacement + "@" if replacement else ""), value)
    return URL_QUERY_SECRET.sub(lambda m: m.group(1) + (REDACTED if CREDENTIAL_NAME.search(m.group(2)) or
                                                        SIGNATURE.match(m.group(2)) else m.group(3)), value)


def private_key_lines(match) -> str:
    """A private key block as its first line and REDACTED lines, so that line numbers after it stay true."""
    return "-----BEGIN %s----- %s" % (match.group(1), REDACTED) + "\n" * match.group().count("\n")


def scrub(text: str) -> str:
    """TEXT with every secret it holds replaced by REDACTED: private keys, known token shapes, URL credentials,
    credential-named values and options. Line breaks are kept, so line numbers still point at the same lines."""
    if "PRIVATE KEY" in text:
        text = PRIVATE_KEY.sub(private_key_lines, text)
    text = TOKEN_SHAPES.sub(REDACTED, text)
    text = without_userinfo(text, REDACTED)
    text = NAMED_SECRET.sub(lambda m: m.group(1) + m.group(2) + (m.group(3) if m.group(3) == REDACTED else REDACTED),
                            text)
    return OPTION_SECRET.sub(lambda m: m.group(1) + REDACTED, text)


def scrub_values(value):
    """VALUE (parsed JSON) with scrub() applied to every string value in it; keys are names, kept as they are."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {key: scrub_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub_values(item) for item in value]
    return value


# Account names that are words of a report itself; redacting them would garble it and hide nothing personal.
SYSTEM_USERS = ("root", "runner", "admin", "user", "ubuntu")
# Home folders as they appear in pasted text: /Users/NAME (macOS), /home/NAME (Linux), C:\Users\NAME and C:/Users/NAME
# (Windows, also with doubled backslashes from a repr or JSON), %2FUsers%2FNAME (URL-encoded, as in file URLs and
# pip's cache keys), and ~NAME/ (a shell's home-of-user). A name with spaces (Windows and macOS allow them) runs up to
# the next separator; one at the end of a path is taken up to the next space.
HOME_PREFIX = r"(?:/Users/|/home/|[A-Za-z]:(?:\\{1,2}|/)Users(?:\\{1,2}|/)|%2F(?:Users|home)%2F|(?<![\w/~])~(?=\w))"
HOME_PATH = re.compile(r"(?i)%s([^/\\\s'\"%%<>:]{1,64}(?: [^/\\\s'\"%%<>:]{1,64}){0,3}(?=[/\\]|%%2F)|[^/\\\s'\"%%<>:]{1,64})"
                       % HOME_PREFIX)


def home_user_names(text: str) -> list:
    """The user names of the home folders in TEXT, the first one first, without system accounts."""
    names = []
    for match in HOME_PATH.finditer(text):
        name = match.group(1)
        if len(name) > 1 and name.lower() not in SYSTEM_USERS and name not in names and name.lower() != "shared":
            names.append(name)
    return names


