"""A PDF's first pages (their lines in reading order, rag.corpus.pdf_layout) -> its abstract: the text under an
"Abstract" heading, else the first paragraph of prose, without the sidebars, notices, author and affiliation lines
a first page sets around it. No PDF library is needed here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.corpus.pdf_layout import heading_title, paragraph_text

_ABSTRACT_RE = re.compile(r"^\s*(?:abstract|a b s t r a c t|summary)\s*(?:[.:—–|-]\s*|\s+|$)(.*)$", re.IGNORECASE)
_STOP_RE = re.compile(
    r"^\s*[*†]?\s*(keywords|key words|author keywords|acm classification|index terms|ccs concepts|acm reference format"
    r"|categories and subject descriptors|authors? for correspondence|electronic supplementary material"
    r"|general terms|received|accepted|published|citation|editor|academic editor|correspondence|copyright|©"
    r"|(?-i:Subjects?|Subject areas|\d?\s*Department of)|how to cite|full list of author information"
    r"|funding|competing interests|data availability|author summary|open access|https?://doi\.org|doi:"
    r"|this is an open access article|licensed under|corresponding author|specialty section"
    r"|this article was submitted to|(?:med|bio)rxiv preprint|it is made available under"
    r"|(?:preprint\s+)?the copyright holder for this|\(which was not certified by peer review\))",
    re.IGNORECASE,
)  # what ends an abstract: keywords, an ACM or journal first page's dates, licence, correspondence, DOI
# the labels of a structured abstract's parts
_LABELS = ("background", "introduction", "context", "objectives?", "aims?", "purpose", "design", "setting",
           "participants", "methods?", "methodology", "results?", "findings", "conclusions?", "interpretation",
           "significance")  # fmt: skip
# a label on a line of its own ("Background", "Methods", "Results and conclusions")
_PART_LABEL_RE = re.compile(
    rf"^\s*(?:{'|'.join(_LABELS)}|discussion)(?:\s+and\s+(?:methods?|findings|conclusions?|results?|discussion))?"
    r"\s*:?\s*$",
    re.IGNORECASE,
)
# the last labelled part of a structured abstract; the body may follow in the same column without a heading
_LAST_PART_RE = re.compile(r"^\s*(?:conclusions?|interpretation|significance)\b\s*[.:]?\s", re.IGNORECASE)
_FUNCTION_WORDS = frozenset("the a an of and to in for on with by we is are was were that this from as our it".split())
MIN_PROSE_SHARE = 0.12  # share of function words in a paragraph of prose; author lists and affiliations have fewer
SHORT_LINE = 0.85  # a paragraph's last line against the median line of the text before it
MIN_ABSTRACT_WORDS = 25  # a paragraph taken as the abstract without a heading saying so
SIDEBAR_LINES = 60  # lines of a sidebar an abstract's sentence may be read past
MIN_HEADED_ABSTRACT_WORDS = 8  # under an explicit "Abstract" heading: short abstracts exist (issue 23)


def _prose(text: str) -> bool:
    """A paragraph of sentences, not an author list, affiliations or licence text."""
    words = re.findall(r"[A-Za-z]+", text.lower())
    return bool(words) and sum(w in _FUNCTION_WORDS for w in words) >= MIN_PROSE_SHARE * len(words)


_AFFILIATION = re.compile(
    r"(?<![A-Za-z])(?:Universit(?:y|é|ät|at|à)|Institut(?:e|o)?|Department|Dept\.|School of|Centre|Center"
    r"|Laborator(?:y|ies)"
    r"|College|Hospital|Faculty|Academy)\b|@|\b\d{4}-\d{4}-\d{4}-\d{3}[\dX]\b"
)  # an affiliation, an e-mail address or an ORCID iD
_NAME = re.compile(r"^[A-Z][\w'’.-]*[\d*†‡§]*,?$")  # "Stowell1," "Lisa" "M." in an author list


def _front_matter(line: str) -> bool:
    """An author list or an affiliation line, as a first page sets them above an abstract without a heading."""
    if _AFFILIATION.search(line):
        return True
    words = [w for w in re.split(r"[\s|;]+", line) if w and w.lower() not in ("and", "&")]
    return len(words) >= 2 and all(_NAME.match(w) for w in words)


def _text_without_front_matter(lines: Sequence[str]) -> str:
    """A paragraph's text without the author and affiliation lines it opens with (no blank line kept them apart),
    when what is left is still an abstract's paragraph of prose; else the whole paragraph's text."""
    start = 0
    while start < len(lines) and _front_matter(lines[start]):
        start += 1
    rest = paragraph_text(lines[start:])
    if start == 0 or len(rest.split()) >= MIN_ABSTRACT_WORDS and _prose(rest):
        return rest
    return paragraph_text(lines)


_INLINE_LABEL_RE = re.compile(
    rf"(?:(?<=^)|(?<=[.!?] ))({'|'.join(label.capitalize() for label in _LABELS)})(?: and [A-Za-z]+)? (?=[A-Z][a-z])"
)  # a structured abstract's label set in the line, without a colon: "Background Reduced inhibitory control is ..."


def _finish(text: str) -> str:
    text = _INLINE_LABEL_RE.sub(lambda m: m.group(0).rstrip() + ": ", text)  # "Background Reduced" -> "Background: ..."
    return re.sub(r"(?<=[a-z][.!?])\d{1,2}$", "", text)  # a footnote mark after the last full stop: "code.1"


def _first_line(lines: Sequence[str]) -> str:
    return next((line for line in lines if line), "")


def _last_line(lines: Sequence[str]) -> str:
    return next((line for line in reversed(lines) if line), "")


def _sentence_goes_on(body: Sequence[str], rest: Sequence[str]) -> bool:
    """A blank line in mid-sentence (a sidebar beside the abstract left a gap): the text before it does not end
    a sentence and the next line starts in lower case."""
    last, following = _last_line(body), _first_line(rest)
    return bool(last) and not last.rstrip().endswith((".", "!", "?", ":")) and following[:1].islower()


def _paragraph_ends(body: Sequence[str]) -> bool:
    """The last line closes a sentence and stops well short of the lines before it: a paragraph's last line."""
    widths = sorted(len(line) for line in body if line)
    last = body[-1].rstrip()
    return len(widths) >= 3 and last.endswith((".", "!", "?")) and len(last) < SHORT_LINE * widths[len(widths) // 2]


def _after_sidebar(body: Sequence[str], lines: Sequence[str], j: int) -> int | None:
    """Where the abstract's sentence goes on past a run of sidebar lines (affiliations, correspondence, dates) that
    starts at line j: its last line ends mid-sentence and, within SIDEBAR_LINES, a line after a blank one starts in
    lower case. None: the abstract ends here."""
    last = _last_line(body)
    if not last or last.rstrip().endswith((".", "!", "?", ":")):
        return None
    for k in range(j + 1, min(len(lines), j + SIDEBAR_LINES)):
        if not lines[k - 1] and lines[k][:1].islower():
            return k
    return None


def find_abstract(
    lines: Sequence[str], skip: int = 0, headed: bool = False, own_line: bool = False
) -> tuple[str, int] | None:
    """(abstract, index after it): the text under an "Abstract" heading (at least MIN_HEADED_ABSTRACT_WORDS
    words; with `own_line`, only a heading on a line of its own, not "Summary statistics are ..."), or else (unless
    `headed`) the first paragraph of at least MIN_ABSTRACT_WORDS words after the first `skip` lines."""
    for i, line in enumerate(lines):
        m = _ABSTRACT_RE.match(line)
        if not m or own_line and m.group(1):
            continue
        body = [m.group(1)] if m.group(1) else []
        last_part = False  # in a structured abstract's last labelled part ("Conclusions:"): it ends with its paragraph
        structured = False  # its parts labelled on lines of their own: the labels go on to the next part
        j = i + 1
        while j < len(lines):
            line = lines[j]
            words = len(paragraph_text(body).split())
            label = bool(_PART_LABEL_RE.match(line))
            structured = structured or label and not words
            if structured and label:
                body.append(line.strip().rstrip(":") + ":")  # "Methods" -> "Methods:", as a labelled part reads
                j += 1
                continue
            if structured and not line and any(_PART_LABEL_RE.match(x) for x in (_last_line(body),
                                                                                 _first_line(lines[j + 1 :]))):
                pass  # the blank line before or after a part's label
            elif words and _front_matter(line) and (resume := _after_sidebar(body, lines, j)) is not None:
                j = resume  # a sidebar's affiliations set between two lines of one sentence: read past them
                continue
            elif _STOP_RE.match(line) or (heading_title(line) and words) or (not line and words >= 40
                                                                          and not _sentence_goes_on(body, lines[j:])):
                break
            body.append(line)
            j += 1
            last_part = last_part or bool(_LAST_PART_RE.match(line))
            if last_part and _paragraph_ends(body):
                break
        text = paragraph_text(body)
        if len(text.split()) >= MIN_HEADED_ABSTRACT_WORDS:
            return _finish(text), j
    if headed:
        return None
    paragraph: list[str] = []
    in_notice = False  # inside a licence, copyright or dates notice: it runs to the end of its sentence
    padded = [*lines, ""]
    for i, line in enumerate(padded):
        if i < skip:
            continue
        if not line and paragraph and _sentence_goes_on(paragraph, padded[i + 1 :]):
            continue  # a gap in mid-sentence (a sidebar beside the abstract): the paragraph goes on
        if in_notice:
            in_notice = bool(line) and not line.rstrip().endswith((".", "!", "?"))
            continue
        if line and not heading_title(line) and not _STOP_RE.match(line):
            paragraph.append(line)
            continue
        in_notice = bool(line) and bool(_STOP_RE.match(line)) and not line.rstrip().endswith((".", "!", "?"))
        text = _text_without_front_matter(paragraph)
        if len(text.split()) >= MIN_ABSTRACT_WORDS and _prose(text):
            return _finish(text), i
        paragraph = []
    return None
