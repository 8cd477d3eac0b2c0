"""Word tables of the role cues that follow what is broken (issue 29, ARCHITECTURE 15).

The role policy: ``affected_subject`` is every creature the report says misbehaves or is
missing, a quest giver or ender that itself misbehaves included (no quest marker, offers or
accepts nothing, cannot be talked to, despawns, the escort it leads breaks); ``quest_giver`` is a
creature named as the start or end of a quest whose defect lies elsewhere; ``other_context`` the
rest. :mod:`.roles` reads these tables around one mention and :mod:`.role_reader` weighs them
over a report. They are data, one tuple per reading and language (the reporters write en, de,
es, fr, ru, pl, pt, zh), so a new phrase is one line here, not a new regular expression in the
code; every table is compiled once into one alternation, matched on a bounded window around a
mention (linear in the report's size).

Phrases are lower case (the windows are case-folded) and are regular-expression fragments:
``\\s+`` between words, ``'`` for any apostrophe (the windows write ``’`` as ``'``).
"""

#: After the name: the creature itself fails ("X has no quest marker", "X nimmt die Quest nicht
#: an", "X no recibe la misión", "X не даёт квест"). Each entry is read at the start of the text
#: after the name (after a short parenthesis such as an id, and closing brackets or quotes).
MISBEHAVES_AFTER: dict[str, tuple[str, ...]] = {
    "en": (
        # state words after an optional copula: "is missing", "is DESPAWNING", "is not available"
        r"(?:is|are|was|were|seems?|appears?)?\s*(?:still\s+|currently\s+|now\s+)?"
        r"(?:despawning|not\s+(?:available|present|spawned|respawning|offering|responding|"
        r"responsive|accepting)|unavailable|unresponsive|nowhere\s+to\s+be\s+found)\b",
        r"(?:dosen'?t|doesen'?t|dose\s+not|doens'?t)\b",  # common misspellings of "doesn't"
        r"(?:only\s+)?(?:has|have|shows?)\s+(?:only\s+)?(?:the\s+)?gossip\b",
        r"would\s+not\b",
    ),
    # "X nimmt die Quest nicht an", "X hat kein Fragezeichen", "X bietet mir die Abgabe nicht an"
    "de": (r"(?:[^\W\d_]+\s+){0,4}(?:nicht|kein|keine|keinen|nie)\b",),
    # "X ne despawn pas", "X n'acceptent pas", "X ne nous parle pas", "X est invisible"
    "fr": (
        r"(?:[^\W\d_]+\s+){0,2}(?:ne\s+|n')(?:[^\W\d_]+\s+){0,2}?[^\W\d_]+\s+"
        r"(?:pas|plus|jamais|rien)\b",
        r"(?:est|sont|reste|restent)\s+(?:toujours\s+)?(?:invisibles?|bloquée?s?|absente?s?|"
        r"introuvables?|buggée?s?)\b",
    ),
    # "X no recibe la misión", "X no nos la da", "X não aparece"
    # (right after the name: "X and no Y" is about Y)
    "es": (r"(?:no|nunca|tampoco)\s+[^\W\d_]",),
    "pt": (r"(?:não|nao|nunca)\s+[^\W\d_]",),
    # "X не даёт квест", "X мне не дал", "X нет на месте" (one word between, not a conjunction)
    "ru": (r"(?:(?!(?:и|а|или|но)\s)[^\W\d_]+\s+)?(?:не|нет|нету|никогда)\s",),
    # "X nie daje questa", "X brak"
    "pl": (r"(?:(?!(?:i|a|oraz|ale)\s)[^\W\d_]+\s+)?(?:nie|brak)\s",),
    # "X 不给任务", "X 没有出现"
    "zh": (r"(?:不|没有|沒有|没|沒|无法|無法)",),
}

#: Before the name: the quest cannot be handed in to it or it cannot be talked to ("can't be
#: turned in at the end-npc X", "unable to close quest with X", "impossible de parler au pnj X",
#: "нельзя сдать квест X"). Each entry must end where the name starts.
MISBEHAVES_BEFORE: dict[str, tuple[str, ...]] = {
    "en": (
        r"(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not|unable\s+to|not\s+able\s+to|"
        r"impossible\s+to)\s+(?:be\s+)?(?:turn(?:ed)?\s+(?:it\s+)?in|hand(?:ed)?\s+(?:it\s+)?in|"
        r"close|complete|finish|deliver)\s+(?:(?:the\s+|this\s+|my\s+)?quest\s+)?(?:in\s+)?"
        r"(?:at|to|with)\s+(?:the\s+)?(?:(?:end|quest)[- ]?(?:npc|giver|ender)\s*)?[\"'“]?",
        r"(?:no|missing)\s+(?:quest\s+)?(?:marker|mark|exclamation\s+mark|question\s+mark)\s+"
        r"(?:on|over|above|for)\s+(?:the\s+)?",
    ),
    "fr": (
        r"impossible\s+de\s+(?:parler|rendre\s+(?:la\s+)?quête|valider\s+(?:la\s+)?quête)\s+"
        r"(?:au|à|a|avec)\s+(?:la\s+|le\s+)?(?:pnj\s+)?",
    ),
    "es": (
        r"no\s+(?:puedo|se\s+puede|podemos)\s+(?:entregar(?:le)?\s+(?:la\s+)?misión|hablar)\s+"
        r"(?:a|al|con)\s+(?:el\s+)?(?:npc\s+)?",
    ),
    "ru": (
        r"(?:не\s+могу|нельзя|невозможно|не\s+получается)\s+(?:сдать|взять|получить)\s+"
        r"(?:квест|задание)\s+(?:у\s+)?(?:нпс\s+|нпц\s+|нип\s+)?",
    ),
}

#: After the name, within its clause: it works, it is the comparison ("turn it in to X just
#: fine", "X was fine", "X died normally", "from X ... without problems").
WORKS_AFTER: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:just\s+|works?\s+|worked\s+|is\s+|was\s+|are\s+|were\s+)?fine\b",
        r"\b(?:normally|without\s+(?:any\s+)?problems?|with\s+no\s+problems?|works|worked|"
        r"correctly|as\s+(?:it\s+)?should)\b",
    ),
    "de": (r"\b(?:funktioniert|funktionieren|normal|problemlos|ohne\s+probleme|in\s+ordnung)\b",),
    "fr": (
        r"\b(?:fonctionnent|fonctionne|marchent|marche|normalement|sans\s+(?:aucun\s+)?problème)",
    ),
    "es": (r"\b(?:funciona|funcionan|normalmente|sin\s+problemas?|bien)\b",),
    "pt": (r"\b(?:funciona|funcionam|normalmente|sem\s+problemas?)\b",),
    "ru": (r"\b(?:работает|работают|нормально|без\s+проблем)",),
    "pl": (r"\b(?:działa|działają|normalnie|bez\s+problem)",),
    "zh": (r"(?:正常|没问题|沒問題)",),
}

#: Words that, between a name and a :data:`WORKS_AFTER` phrase, make something else the one that
#: works ("call X, everything is working fine"): the contrast is then not X's.
OTHER_SUBJECTS: tuple[str, ...] = (
    r"everything",
    r"everthing",
    r"all",
    r"rest",
    r"it",
    r"that",
    r"this",
    r"alles",
    r"tout",
    r"todo",
    r"всё",
    r"все",
    r"wszystko",
    r"tudo",
)

#: Words that end the clause a :data:`WORKS_AFTER` phrase is looked for in ("X is fine, but Y").
CLAUSE_ENDS: tuple[str, ...] = (
    r"but",
    r"though",
    r"while",
    r"aber",
    r"doch",
    r"mais",
    r"pero",
    r"mas",
    r"но",
    r"а",
    r"ale",
    r"但",
)

#: Before the name: a comparison or an example ("e.g. the paladin trainer X", "z.B. X").
EXAMPLE_BEFORE: tuple[str, ...] = (
    r"e\.?\s?g\.?",
    r"for\s+example",
    r"for\s+instance",
    r"z\.\s?b\.",
    r"zum\s+beispiel",
    r"par\s+exemple",
    r"p\.\s?ej\.",
    r"por\s+ejemplo",
    r"por\s+exemplo",
    r"например",
    r"np\.",
    r"例如",
)

#: After the name: what a quest giver does, beyond the phrases of :mod:`.roles` ("O X continua
#: esperando", "X me deu a missão", "X dał mi zadanie").
GIVER_ACTS_AFTER: dict[str, tuple[str, ...]] = {
    "pt": (
        r"(?:continua|está|esta|fica)\s+(?:a\s+)?esperando\b",
        r"me\s+(?:deu|pediu|mandou|enviou)\b",
    ),
    "pl": (r"(?:dał|dała|daje)\s+(?:mi\s+)?(?:zadanie|questa|quest)\b", r"czeka\s+na\b"),
    "zh": (r"(?:给了我|给我)(?:任务|这个任务)",),
}

#: Short lower-case place words that may stand between a name and what it does ("O X em
#: Goldshire continua esperando"), in addition to those of :mod:`.roles`.
PLACE_PREPOSITIONS: tuple[str, ...] = ("em", "w", "we", "przy")


def alternation(tables: dict[str, tuple[str, ...]] | tuple[str, ...]) -> str:
    """One non-capturing alternation of every phrase of ``tables`` (all languages)."""
    phrases = (
        [p for language in sorted(tables) for p in tables[language]]
        if isinstance(tables, dict)
        else list(tables)
    )
    return "(?:" + "|".join(f"(?:{p})" for p in phrases) + ")"
