"""Untrusted text and URLs made safe to show, copy and export. Pure functions, standard library only.

A model's answer and a paper's metadata are attacker-controlled: a Markdown image whose URL carries what is on
the page to another host (`![x](http://host/?d=...)`), a link that runs script (`[click](javascript:...)`,
`<javascript:...>`), a raw `<script>` or `<img onerror=...>`. Every output format goes through these:

    safe_url(url)             the URL when it is an absolute http(s) URL, in a form that cannot end the Markdown
                              link or HTML attribute it is put in (credentials dropped, brackets, apostrophes and
                              non-ASCII percent-encoded); else None, also for a space, `"`, `<` or `>` inside.
                              Browsers' tricks are undone before the check: entities (`&#106;avascript:`), tabs
                              and newlines anywhere (`java\\tscript:`), spaces and controls at the ends, upper
                              case (`JaVaScRiPt:`)
    domain(url)               "arxiv.org": what a link shows, so a reader sees where it goes
    md_link(url)              "[arxiv.org](https://arxiv.org/abs/...)" for an http(s) URL, else None
    md_escape(text)           metadata (a title, a name) as literal Markdown: nothing in it is markup
    neutralise_markdown(text) model text keeps its ordinary Markdown (paragraphs, lists, emphasis, code, [n]
                              markers) but loses images, raw HTML, autolinks and reference definitions; an inline
                              link stays only for an http(s) URL and then shows its domain:
                              "see [the paper](https://arxiv.org/abs/1)" -> "see the paper ([arxiv.org](...))"
    strip_active_html(text)   tags that can load or run something removed (for formats that cannot escape them)
    invisible_chars(text)     the invisible format characters in it, named: ("U+200B ZERO WIDTH SPACE",)
    show_invisible(text)      each of them written as its escape ("icml2025\\u200b"), so a reader sees it

Text without `<`, `](`, or a `[label]:` at the start of a line comes out of `neutralise_markdown` unchanged.
"""

from __future__ import annotations

import html
import re
import unicodedata
from urllib.parse import quote, urlsplit

_URL_DROPPED = re.compile(r"[\t\n\r]")  # a browser drops these anywhere in a URL
_URL_EDGES = "".join(chr(c) for c in range(0x21))  # and C0 controls and spaces at either end
_URL_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f\\\"<>`]")  # never unencoded in a URL: not one we emit
_URL_KEEP = re.compile(r"[^A-Za-z0-9\-._~:/?#@!$&*+,;=%]")  # anything else is percent-encoded
_HOST = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?|[0-9a-f:.]+")


# what most URLs look like, already in the form safe_url writes (no port, entity, credentials, upper case or odd
# character): one regex (~1 µs) instead of the parse (~6 µs, half again the time to read a 100k-row CSV)
_PLAIN_URL = re.compile(r"https?://(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
                        r"(?:[/?#][A-Za-z0-9\-._~:/?#@!$*+,;=%]*)?")  # fmt: skip


def safe_url(url: object) -> str | None:
    """`url` as an absolute http(s) URL safe to put in a link, or None (see the module docstring)."""
    if not isinstance(url, str) or not url:
        return None
    return url if _PLAIN_URL.fullmatch(url) else checked_url(url)


def checked_url(url: str) -> str | None:
    """safe_url the long way: decode, parse, check and rewrite."""
    text = _URL_DROPPED.sub("", html.unescape(url)).strip(_URL_EDGES)
    if not text or _URL_CONTROL.search(text):
        return None
    try:
        parts = urlsplit(text)
        port = parts.port
        host = parts.hostname or ""
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except (ValueError, UnicodeError):
        return None
    if parts.scheme.lower() not in ("http", "https") or not _HOST.fullmatch(host):
        return None
    netloc = (f"[{host}]" if ":" in host else host) + (f":{port}" if port is not None else "")
    after = text.partition("//")[2]  # path, query and fragment as written (an empty "?" or "#" too)
    rest = after[min((i for i in map(after.find, "/?#") if i >= 0), default=len(after)) :]
    rest = _URL_KEEP.sub(lambda m: quote(m.group(), safe=""), rest)
    return f"{parts.scheme.lower()}://{netloc}{rest}"


def domain(url: str) -> str:
    """The host of an http(s) URL (as `safe_url` gives it): what a link shows."""
    return urlsplit(url).hostname or ""


_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|])")


def md_escape(text: str) -> str:
    """Text that renders as itself in Markdown, on one line (no emphasis, links, images or HTML)."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def md_link(url: object) -> str | None:
    """`[domain](url)` for an http(s) URL, else None."""
    safe = safe_url(url)
    return None if safe is None else f"[{md_escape(domain(safe))}]({safe})"


_UNESCAPED = r"(?<!\\)((?:\\\\)*)"  # what follows is not escaped by a backslash
# an inline link or image: [label](destination "title"), one level of brackets in the label and of parentheses
# in the destination, as CommonMark allows
_INLINE = re.compile(
    _UNESCAPED + r"(!?)\[((?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*)\]"
    r"\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
# [label]: destination, at a line's start or inside block quotes and list items ("> [1]: javascript:x", "1. [1]: x")
_DEFINITION = re.compile(r"^((?:[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]))*[ \t]*)\[(?=(?:[^\[\]\\\n]|\\.)+\]:)",
                         re.MULTILINE)  # fmt: skip
_AUTOLINK = re.compile(_UNESCAPED + r"<([A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*)>")
_EMAIL = re.compile(_UNESCAPED + r"<([^\s<>@]+@[^\s<>]+)>")
# "<" and a scheme left after the autolinks were taken apart: a link put back later would close it into an autolink
# ("<javascript:<https://a.example>>" -> "<javascript:[a.example](https://a.example)>")
_SCHEME_START = re.compile(_UNESCAPED + r"<(?=[A-Za-z][A-Za-z0-9+.\-]{1,31}:)")
# where HTML starts: a tag name and a boundary (CommonMark's inline tags and the starts of its HTML blocks), a
# comment, a processing instruction, a declaration, CDATA
_HTML_START = re.compile(_UNESCAPED + r"<(?=/?[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|!--|\?|![A-Za-z]|!\[CDATA\[)",
                         re.MULTILINE)  # fmt: skip
_LINK_SYNTAX = re.compile(_UNESCAPED + r"\]\(")
_MARKER_LABEL = re.compile(r"\d+")
_SLOT = re.compile("\ue000(\\d+)\ue001")  # a link made here, put back at the end
_BANG = re.compile(_UNESCAPED + "!(?=\ue000)")  # "!" before a link would make it an image


class _Links:
    """The http(s) links a neutralised text keeps, held aside while the rest of the text is escaped."""

    def __init__(self) -> None:
        self.links: list[str] = []

    def slot(self, url: object) -> str | None:
        link = md_link(url)
        if link is None:
            return None
        self.links.append(link)
        return f"\ue000{len(self.links) - 1}\ue001"

    def inline(self, m: re.Match[str]) -> str:
        return m.group(1) + self._inline(m.group(2), m.group(3), m.group(4))

    def _inline(self, image: str, label: str, dest: str) -> str:
        label = self.neutral(label).strip()
        if image:
            return f"(image not shown{': ' + label if label else ''})"
        dest = dest[1:-1] if dest.startswith("<") else dest
        slot = self.slot(dest)
        if slot is None:
            return f"[{label}]" if _MARKER_LABEL.fullmatch(label) else label
        safe = safe_url(dest) or ""
        if _MARKER_LABEL.fullmatch(label):
            return f"[{label}] ({slot})"  # a citation marker stays one
        return slot if not label or label in (dest, safe, domain(safe)) else f"{label} ({slot})"

    def neutral(self, text: str) -> str:
        text = _INLINE.sub(self.inline, text)
        text = _DEFINITION.sub(r"\1\\[", text)
        text = _AUTOLINK.sub(lambda m: m.group(1) + (self.slot(m.group(2)) or "(link removed)"), text)
        text = _SCHEME_START.sub(r"\1\\<", text)
        text = _EMAIL.sub(r"\1\\<\2>", text)
        text = _HTML_START.sub(r"\1\\<", text)
        return _LINK_SYNTAX.sub(r"\1\\](", text)  # a link the patterns above did not take apart is no link either


def neutralise_markdown(text: str) -> str:
    """Model text as Markdown that shows no image, runs and loads nothing, and links only to http(s) URLs,
    each showing its domain (see the module docstring)."""
    if "<" not in text and "](" not in text and "]:" not in text:
        return text
    links = _Links()
    text = links.neutral(text.replace("\ue000", "").replace("\ue001", ""))
    text = _BANG.sub(r"\1\\!", text)
    return _SLOT.sub(lambda m: links.links[int(m.group(1))], text)


# tags that load, run or navigate, and any tag with attributes (an event handler, a style, a src)
_ACTIVE_TAG = re.compile(
    r"</?(?:script|style|iframe|frame|frameset|object|embed|applet|img|image|svg|math|video|audio|source|track|"
    r"picture|link|meta|base|form|input|button|textarea|select|option|a|area|map|body|html|head|template|portal|"
    r"noscript|xml|xss)\b[^<>]*>?|<[A-Za-z][A-Za-z0-9-]*\s+[^<>]*=[^<>]*>?|<!--.*?(?:-->|$)|<\?[^>]*>?",
    re.IGNORECASE | re.DOTALL,
)


def strip_active_html(text: str) -> str:
    """The text without tags that can load or run something; inert ones (`<i>`, `<sub>`, `<unk>`) stay. Until
    nothing changes: taking `<script>` out of `<scr<script>ipt>` leaves another."""
    while "<" in text and (stripped := _ACTIVE_TAG.sub("", text)) != text:
        text = stripped
    return text


# Unicode's format characters (category Cf): zero-width spaces and joiners, bidi marks, overrides and isolates, the
# byte-order mark, tags ... They show as nothing, so "icml2025\u200b" reads as "icml2025". A regex class (building
# it from unicodedata at import would take a third of a second); tests check it against unicodedata.
FORMAT_CHARS = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
                "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
                "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")  # fmt: skip


def _invisible(c: str) -> bool:
    return unicodedata.category(c) == "Cf"


def invisible_chars(text: str) -> tuple[str, ...]:
    """The invisible format characters (Unicode category Cf) in `text`, each once, in order, as "U+XXXX NAME"."""
    return tuple(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, 'FORMAT CHARACTER')}"
                               for c in text if _invisible(c)))  # fmt: skip


def show_invisible(text: str) -> str:
    """`text` with each invisible format character written as its Python escape (\\u200b, \\U000e0041)."""
    if text.isascii():
        return text
    return "".join((f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}") if _invisible(c) else c
                   for c in text)  # fmt: skip
