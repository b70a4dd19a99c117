"""Pure: what a clarification or a new version of the instructions changed, word by word, for the change log."""
from __future__ import annotations

import difflib
import re

FIELDS = {"name": "Name", "definition": "Definition", "inclusion": "Includes", "exclusion": "Excludes",
          "instructions": "Instructions"}
_TOKENS = re.compile(r"\s+|[^\s]+")


def gettext_noop(text: str) -> str:
    """Marks text for the translation catalogue (makemessages looks for this name) in a module that imports
    nothing of Django; the text is translated where it is shown."""
    return text


# The reason a category added from the labeling page during the pilot is logged with when none is given: stored
# in English and shown in the reader's language (codebook_tags.stored_reason).
PILOT_REASON = gettext_noop("added during the pilot")


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """Runs of ("same" | "del" | "ins", text) that turn `before` into `after`, whitespace kept."""
    a, b = _TOKENS.findall(before or ""), _TOKENS.findall(after or "")
    runs: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            runs.append(("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            runs.append(("ins", "".join(b[j1:j2])))
    return runs


def changed_fields(before: dict, after: dict) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each wording field that differs between two versions of one category (or of the instructions), with its
    word diff; codes are left out (a code never changes in place)."""
    return [(label, word_diff(before.get(key) or "", after.get(key) or ""))
            for key, label in FIELDS.items()
            if key in before or key in after
            if (before.get(key) or "") != (after.get(key) or "")]
