"""Search filters as plain values. Each store adapter translates what it can filter itself (the year range);
`accepts` checks a paper against all of them."""

from __future__ import annotations

from dataclasses import dataclass

from rag.types import Paper


@dataclass(frozen=True)
class Filters:
    year_min: int | None = None
    year_max: int | None = None
    venue: str | None = None  # case-insensitive substring
    author: str | None = None  # case-insensitive substring of any author

    def accepts(self, paper: Paper) -> bool:
        if self.year_min is not None and (paper.year is None or paper.year < self.year_min):
            return False
        if self.year_max is not None and (paper.year is None or paper.year > self.year_max):
            return False
        if self.venue and self.venue.lower() not in (paper.venue or "").lower():
            return False
        return not (self.author and not any(self.author.lower() in a.lower() for a in paper.authors))

    @property
    def active(self) -> bool:
        return any(v is not None and v != "" for v in (self.year_min, self.year_max, self.venue, self.author))

    @property
    def has_year_range(self) -> bool:
        return self.year_min is not None or self.year_max is not None

    def describe(self) -> str:
        """ "year ≥ 2030, venue contains 'ICML'": for messages and the UI's filter chip."""
        parts = []
        if self.year_min is not None and self.year_max is not None:
            parts.append(f"year {self.year_min}–{self.year_max}")
        elif self.year_min is not None:
            parts.append(f"year ≥ {self.year_min}")
        elif self.year_max is not None:
            parts.append(f"year ≤ {self.year_max}")
        if self.venue:
            parts.append(f"venue contains '{self.venue}'")
        if self.author:
            parts.append(f"author contains '{self.author}'")
        return ", ".join(parts)
