"""The shipped interview guide's words, stored in English as the guide's own data (a lab rewrites its guide, and
sessions keep the questions they were asked) and shown in the reader's language while they are the shipped ones:
a question the lab wrote itself is shown as written."""
from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from taxonomy.languages import reads_second, word

TITLE = gettext_noop("Interview guide")
BACKGROUND_PART = gettext_noop("Part I. Background")
BACKGROUND = (gettext_noop("What is your current role?"),
              gettext_noop("How many years have you worked with LLMs or DL frameworks?"),
              gettext_noop("Which DL frameworks do you use or develop?"),
              gettext_noop("What LLM-related tasks do you perform or support?"))
PARTS = {"A": gettext_noop("Part II. Questions and usability"), "C": gettext_noop("Part III. Bug reports"),
         "B": gettext_noop("Part IV. Requirements")}
RANKING = gettext_noop("Rank the top 3 %(type)s themes by frequency or impact.")
SHIPPED = frozenset({TITLE, BACKGROUND_PART, *BACKGROUND, *PARTS.values()})


def ranking_text(type_name: str) -> str:
    return RANKING % {"type": type_name.lower()}


def shown(text: str, node=None) -> str:
    """`text` in the reader's language where it is the shipped guide's; a ranking question of a type, with the
    type's name as the reader reads it."""
    if text in SHIPPED:
        return gettext(text)
    if node is not None and text == ranking_text(node.name):
        return gettext(RANKING) % {"type": word(node, "name", reads_second(node.codebook)).lower()}
    return text
