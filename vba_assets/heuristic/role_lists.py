"""Word tables of the report's own lists and exceptions, for the role reading (issue 29).

Split from :mod:`.role_words` (same conventions: lower-case regular-expression fragments, one
tuple per reading, compiled once by :mod:`.role_reader` with
:func:`~.role_words.alternation`). :mod:`.role_reader` reads them in the short gap between two
consecutive mentions, or right before or after one mention (linear in the report's size).
"""

#: Between two names of the report's own list ("tame X or a Y", "X, Y and Z", "mostly the X,
#: sometimes the Y too"): a conjunction or separator, then article or frequency words. Any of
#: them passes a failure said of the first to the second; the "or" ones (the report offers
#: either as the example of the failure) also pass it back from the second to the first.
AND_WORDS: tuple[str, ...] = (
    r",",
    r"&",
    r"\+",
    r"and",
    r"as\s+well\s+as",
    r"und",
    r"sowie",
    r"et",
    r"y",
    r"e",
    r"i",
    r"oraz",
    r"и",
    r"和",
    r"及",
    r"、",
)
OR_WORDS: tuple[str, ...] = (
    r"/",
    r"or",
    r"nor",
    r"oder",
    r"ou",
    r"o",
    r"lub",
    r"albo",
    r"или",
    r"либо",
    r"或",
)
LIST_FILLERS: tuple[str, ...] = (
    r"the",
    r"a",
    r"an",
    r"also",
    r"even",
    r"sometimes",
    r"often",
    r"mostly",
    r"maybe",
    r"der",
    r"die",
    r"das",
    r"den",
    r"auch",
    r"manchmal",
    r"le",
    r"la",
    r"les",
    r"un",
    r"une",
    r"aussi",
    r"el",
    r"los",
    r"las",
    r"también",
    r"тоже",
    r"также",
)

#: After the last name of a list: a plural verb, so what follows is said of the whole list ("X, Y
#: and Z are missing", "X und Y fehlen"): the failure passes back over any list word.
PLURAL_AFTER: tuple[str, ...] = (
    r"are",
    r"were",
    r"aren'?t",
    r"weren'?t",
    r"don'?t",
    r"do\s+not",
    r"have\s+no",
    r"both",
    r"all",
    r"sind",
    r"waren",
    r"fehlen",
    r"spawnen",
    r"sont",
    r"ne\s+sont",
    r"son",
    r"no\s+son",
    r"están",
    r"no\s+están",
    r"не\s+\w+ют",
)

#: Before the name: an exception to what the report says of the others ("all npcs should be
#: hostile (except X)", "außer X", "sauf X"): X is context unless some mention says it fails.
EXCEPT_BEFORE: tuple[str, ...] = (
    r"except(?:\s+for)?",
    r"excluding",
    r"apart\s+from",
    r"other\s+than",
    r"außer",
    r"ausser",
    r"ausgenommen",
    r"sauf",
    r"excepté",
    r"excepto",
    r"salvo",
    r"menos",
    r"exceto",
    r"кроме",
    r"oprócz",
    r"poza",
    r"除了",
)
