"""Blanks left inside a printed sentence: "For the tax year beginning ______, and ending ______."
or "( ______ )". Nothing may be drawn there (no rule, no box), yet a person writes in the gap.

A gap is taken for a blank when the words after it go on with the sentence's punctuation (a
comma, a full stop, a closing parenthesis), which a table's next column never starts with, and
it is wide enough for a date or a number. On the tuning half of the corpus these are the tax
year lines of the IRS forms and the area codes of phone numbers in parentheses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.engine.template_spec import Rect

GAP_MIN = 24.0  # points: narrower gaps are spacing (a tab, a justified line)
GAP_MAX = 200.0  # wider is two columns of a page, not a blank in a sentence
_GOES_ON = frozenset(",;:)")


@dataclass(frozen=True)
class Word:
    """Neighbouring characters of one line, printed a space apart at most (page space)."""

    left: float
    bottom: float
    right: float
    top: float
    text: str


def sentence_blanks(words: Sequence[Word]) -> list[Rect]:
    """The blanks between consecutive words of a line whose second word starts with the
    sentence's punctuation, or whose first ends with an opening parenthesis. ``words`` are in
    the page's reading order, as pdfium gives its characters."""
    blanks = []
    for before, after in zip(words, words[1:], strict=False):
        height = max(before.top - before.bottom, after.top - after.bottom)
        same_line = abs(before.bottom - after.bottom) <= 0.4 * height
        gap = after.left - before.right
        if not same_line or not GAP_MIN <= gap <= GAP_MAX:
            continue
        # A comma after words only: commas alone are the separators printed in a row of boxes.
        worded = any(char.isalnum() for char in before.text)
        if before.text.endswith("(") or (_goes_on(after.text) and (worded or after.text[0] != ",")):
            bottom = min(before.bottom, after.bottom) - 2
            blanks.append(Rect(before.right + 1, bottom, gap - 2, height + 4))
    return blanks


def _goes_on(text: str) -> bool:
    """``text`` continues a sentence after a blank: ", and ending", ")", ". See page 4" (its
    characters come without their spaces, ".See"): not a leader's dots, nor a number (".5")."""
    if text[:1] in _GOES_ON:
        return True
    return text[:1] == "." and text[1:2].isalpha()
