"""Prompts are files under prompts/ with declared variables.

Each file starts with `<!-- variables: a, b -->`; the body uses `$a`, `$b` (string.Template). Rendering
fails on a missing or an undeclared variable, so prompts and code cannot drift apart silently. Every
Answer records `name@sha` of the prompts that produced it.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rag.errors import ConfigError
from rag.text import pages_label
from rag.types import Hit

_HEADER = re.compile(r"\A<!--\s*variables:\s*(?P<names>[\w,\s]*)-->\s*\n")


@dataclass(frozen=True)
class Prompt:
    name: str
    template: str
    variables: frozenset[str]

    @property
    def sha(self) -> str:
        return hashlib.sha256(self.template.encode("utf-8")).hexdigest()[:12]

    def render(self, **values: str) -> str:
        given = set(values)
        if given != self.variables:
            missing, extra = self.variables - given, given - self.variables
            raise ConfigError(f"prompt '{self.name}': missing {sorted(missing)}, undeclared {sorted(extra)}")
        return string.Template(self.template).substitute(values).strip()


@lru_cache(maxsize=64)
def _load(path: Path) -> Prompt:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise ConfigError(f"prompt file not found: {path}") from None
    header = _HEADER.match(text)
    if not header:
        raise ConfigError(f"prompt {path} must start with '<!-- variables: ... -->'")
    declared = frozenset(n.strip() for n in header["names"].split(",") if n.strip())
    body = text[header.end() :]
    used = set(string.Template(body).get_identifiers())
    if used != declared:
        raise ConfigError(f"prompt {path.name}: uses {sorted(used)} but declares {sorted(declared)}")
    return Prompt(path.stem, body, declared)


def load_prompt(prompts_dir: Path, name: str) -> Prompt:
    return _load(prompts_dir / f"{name}.md")


def prompt_id(*prompts: Prompt) -> str:
    """`answer_system+answer_user@<sha>`: names and one hash over their texts."""
    h = hashlib.sha256("\0".join(p.template for p in prompts).encode()).hexdigest()[:12]
    return "+".join(p.name for p in prompts) + "@" + h


def format_sources(hits: Sequence[Hit]) -> str:
    """The numbered source list shown to the model."""
    blocks = []
    for n, h in enumerate(hits, 1):
        p = h.paper
        meta = ", ".join(
            x
            for x in (
                "; ".join(p.authors[:6]) + (" et al." if len(p.authors) > 6 else ""),
                p.venue or "",
                str(p.year or ""),
            )
            if x
        )
        links = " ".join(x for x in (p.url or "", f"code: {p.code_url}" if p.code_url else "") if x)
        where = pages_label(h.page, h.page_end)
        where = f", {where}" + (f", section {h.section}" if h.section else "") if where else ""
        header = f"[{n}] {p.title}" + (f" ({meta})" if meta else "") + where + (f"\n{links}" if links else "")
        blocks.append(f"{header}\n{h.text}")
    return "\n\n".join(blocks)
