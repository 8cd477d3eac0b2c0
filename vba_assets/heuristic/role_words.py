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
``\\s+`` between words, ``'`` for any apostrophe (the windows write ``’`` as ``'``). The tables of
the report's own lists and exceptions are in :mod:`.role_lists`.
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
        r"(?:would|was|were)\s+not\b",
        # what is wrong with it: "X has the wrong model", "X respawns way too fast", "X is too
        # strong", "X takes too long to respawn", "X drops nothing"
        r"(?:has|have|had|uses?|used|gives?|gave|shows?)\s+(?:the\s+|a\s+|an\s+)?"
        r"(?:wrong|incorrect)\b",
        r"(?:is|are|was|were|hits|hit|respawns?|spawns?|attacks?|casts?|moves?|runs?|heals?|"
        r"deals?)\s+(?:way\s+|much\s+|far\s+)?too\s+(?:fast|slow|often|much|hard|strong|weak|"
        r"early|late|quickly|frequently|high|low|many|few)\b",
        r"takes?\s+(?:way\s+|much\s+|far\s+)?too\s+long\b",
        r"(?:drops?|gives?|rewards?|does)\s+nothing\b",
        # "X gets bugged out", "X got stuck", "X becomes immune" (issue 29: dev2 raid reports)
        r"(?:gets?|got|becomes?|became)\s+(?:\w+\s+)?(?:bugged|stuck|reset|immune|untargetable|"
        r"invisible|unattackable)\b",
        # issue 29 item 1: the wrong faction, said by its colour or standing ("X spawn is green",
        # "X spawns as friendly", "X is yellow")
        r"(?:spawns?\s+|spawned\s+)?(?:is|are|was|were|as|appears?\s+as|shows?\s+up\s+as)\s+"
        r"(?:still\s+|now\s+|always\s+)?(?:green|yellow|friendly|neutral)\b",
    ),
    # "X nimmt die Quest nicht an", "X hat kein Fragezeichen", "X bietet mir die Abgabe nicht an"
    "de": (
        r"(?:[^\W\d_]+\s+){0,4}(?:nicht|kein|keine|keinen|nie)\b",
        r"(?:ist|sind|spawnt|spawnen|erscheint|erscheinen)\s+(?:[^\W\d_]+\s+)?"
        r"(?:grün|gelb|freundlich|neutral)\b",
    ),
    # "X ne despawn pas", "X n'acceptent pas", "X ne nous parle pas", "X est invisible"
    "fr": (
        r"(?:[^\W\d_]+\s+){0,2}(?:ne\s+|n')(?:[^\W\d_]+\s+){0,2}?[^\W\d_]+\s+"
        r"(?:pas|plus|jamais|rien)\b",
        r"(?:est|sont|reste|restent)\s+(?:toujours\s+)?(?:invisibles?|bloquée?s?|absente?s?|"
        r"introuvables?|buggée?s?)\b",
        r"(?:est|sont|apparaît|apparaissent|spawn)\s+(?:[^\W\d_]+\s+)?(?:verte?s?|jaunes?|"
        r"amicale?s?|amicaux|neutres?)\b",
    ),
    # "X no recibe la misión", "X no nos la da", "X não aparece"
    # (right after the name: "X and no Y" is about Y)
    "es": (
        r"(?:no|nunca|tampoco)\s+[^\W\d_]",
        r"(?:es|son|está|están|aparece|aparecen)\s+(?:[^\W\d_]+\s+)?(?:verdes?|amarill[oa]s?|"
        r"amistos[oa]s?|neutrales?)\b",
    ),
    "pt": (r"(?:não|nao|nunca)\s+[^\W\d_]",),
    # "X не даёт квест", "X мне не дал", "X нет на месте" (one word between, not a conjunction)
    "ru": (
        r"(?:(?!(?:и|а|или|но)\s)[^\W\d_]+\s+)?(?:не|нет|нету|никогда)\s",
        r"(?:[^\W\d_]+\s+)?(?:зелёный|зеленый|жёлтый|желтый|дружелюбный|дружественный|"
        r"нейтральный)\b",
    ),
    # "X nie daje questa", "X brak"
    "pl": (r"(?:(?!(?:i|a|oraz|ale)\s)[^\W\d_]+\s+)?(?:nie|brak)\s",),
    # "X 不给任务", "X 没有出现"
    "zh": (r"(?:不|没有|沒有|没|沒|无法|無法)",),
}

#: After the name: what it should do (so does not): "X should be interruptable", "X is supposed
#: to despawn", "X sollte ...". Weaker than a failure: an exception ("except X ... X should remain
#: friendly") or a contrast of the same term wins over it (:mod:`.role_reader`).
SHOULD_AFTER: dict[str, tuple[str, ...]] = {
    "en": (r"(?:should|shouldn'?t|(?:is|are|was|were)\s+supposed\s+to|must|needs?\s+to)\b",),
    "de": (r"(?:sollte|sollten|soll|sollen|müsste|müssten|muss|müssen)\b",),
    "fr": (r"(?:devrait|devraient|doit|doivent)\b",),
    "es": (r"(?:debería|deberían|debe|deben)\b",),
    "pt": (r"(?:deveria|deveriam|deve|devem)\b",),
    "ru": (r"(?:должен|должна|должно|должны)\b",),
    "pl": (r"(?:powinien|powinna|powinno|powinny|powinni)\b",),
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
        # "bugged Boss X", "broken npc X": a state word, then the creature's class noun
        r"(?:bugged|broken|missing|buggy)\s+(?:the\s+)?(?:npc|boss|mob|creature|rare|elite)\s+",
        # an attempt on it, in a bug report, is what failed: "when I tried to tame X", "I tried
        # to turn it in to X"
        r"(?:tried|try|trying|attempted|attempting)\s+to\s+(?:[^\W\d_]+\s+){1,3}?"
        r"(?:the\s+|a\s+|an\s+)?",
        # the failing side of a comparison: "works on X but not on Y", "doesn't work on Y"
        r"(?:but|and)\s+not\s+(?:on|with|for|at|against)\s+(?:the\s+)?",
        r"(?:doesn'?t|does\s+not|don'?t|do\s+not|isn'?t|not)\s+work(?:s|ing)?\s+"
        r"(?:on|with|for|at|against)\s+(?:the\s+)?",
    ),
    "de": (
        r"versucht(?:e|en)?,?\s+(?:den\s+|die\s+|das\s+)?",  # "habe versucht, X zu zähmen"
        r"(?:aber|jedoch|doch)\s+nicht\s+(?:bei|mit|an|auf)\s+(?:dem\s+|der\s+|den\s+)?",
        r"(?:funktioniert|klappt|geht)\s+nicht\s+(?:bei|mit|an|auf)\s+(?:dem\s+|der\s+|den\s+)?",
    ),
    "fr": (
        r"(?:essayé|essaye|tenté)\s+de\s+(?:[^\W\d_]+\s+){1,2}?(?:le\s+|la\s+|les\s+)?",
        r"mais\s+pas\s+(?:sur|avec|pour)\s+(?:le\s+|la\s+|les\s+)?",
        r"ne\s+(?:marche|fonctionne)\s+pas\s+(?:sur|avec|pour)\s+(?:le\s+|la\s+|les\s+)?",
        r"impossible\s+de\s+(?:parler|rendre\s+(?:la\s+)?quête|valider\s+(?:la\s+)?quête)\s+"
        r"(?:au|à|a|avec)\s+(?:la\s+|le\s+)?(?:pnj\s+)?",
        r"(?:ne\s+peu[xt]\s+pas|ne\s+peuvent\s+pas|on\s+ne\s+peut\s+pas)\s+(?:être\s+)?"
        r"(?:rendre|rendue?|valider|validée?)\s+(?:la\s+quête\s+)?(?:à|au|a|auprès\s+d[eu])\s+"
        r"(?:la\s+|le\s+)?(?:pnj\s+)?",
    ),
    "es": (
        r"pero\s+no\s+(?:con|en|para)\s+(?:el\s+|la\s+)?",
        r"no\s+funciona\s+(?:con|en|para)\s+(?:el\s+|la\s+)?",
        r"no\s+(?:puedo|se\s+puede|podemos|pude|deja)\s+(?:entregar(?:la|le)?\s+(?:la\s+)?"
        r"(?:(?:misión|mision|quest)\s+)?|hablar\s+)(?:a|al|con)\s+(?:el\s+)?(?:npc\s+)?",
    ),
    "ru": (
        r"но\s+не\s+(?:на|с|у)\s+",
        r"не\s+работает\s+(?:на|с|у)\s+",
        r"(?:не\s+могу|нельзя|невозможно|не\s+получается)\s+(?:сдать|взять|получить)\s+"
        r"(?:квест|задание)\s+(?:у\s+)?(?:нпс\s+|нпц\s+|нип\s+)?",
    ),
    "pl": (
        r"(?:nie\s+(?:mogę|można|da\s+się)|nie\s+mogłem|nie\s+mogłam)\s+(?:oddać|zdać|wziąć)\s+"
        r"(?:(?:questa|zadania|quest)\s+)?(?:u|do|od)\s+(?:npc\s+)?",
    ),
    "pt": (
        r"(?:não|nao)\s+(?:consigo|consegui|dá\s+para|da\s+para|é\s+possível)\s+"
        r"(?:entregar|pegar|falar)\s+(?:(?:a\s+)?(?:missão|missao|quest)\s+)?"
        r"(?:para|ao|a|à|com|do|da)\s+(?:o\s+)?(?:npc\s+)?",
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

#: Before the name: the working side of a comparison ("the taunt works on X but not on Y",
#: "funktioniert bei X", "marche sur X"). Each entry must end where the name starts.
WORKS_BEFORE: dict[str, tuple[str, ...]] = {
    "en": (
        r"(?:works?|worked|working)\s+(?:(?:fine|well|correctly|normally|properly)\s+)?"
        r"(?:on|with|for|at|against)\s+(?:the\s+)?",
    ),
    "de": (
        r"(?:funktioniert|klappt|geht)\s+(?:\w+\s+)?(?:bei|mit|an|auf)\s+(?:dem\s+|der\s+|den\s+)?",
    ),
    "fr": (r"(?:marche|fonctionne)\s+(?:bien\s+)?(?:sur|avec|pour)\s+(?:le\s+|la\s+|les\s+)?",),
    "es": (r"funciona\s+(?:bien\s+)?(?:con|en|para)\s+(?:el\s+|la\s+)?",),
    "ru": (r"работает\s+(?:на|с|у)\s+",),
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


#: After the name, in the same line: a pronoun that is the subject of a failure ("X ... he gets
#: bugged out", "they dont do any damage", "il ne despawn pas"); what follows the pronoun is read
#: with the after-name phrases (:data:`MISBEHAVES_AFTER` and the older cues of :mod:`.roles`).
#: "it" is too often the quest or the fight: it is read only with :data:`IT_FAILS`.
SUBJECT_PRONOUNS: dict[str, tuple[str, ...]] = {
    "en": (r"he", r"she", r"they"),
    "de": (r"er", r"sie"),
    "fr": (r"il", r"elle", r"ils", r"elles"),
    "es": (r"él", r"ella", r"ellos"),
    "pt": (r"ele", r"ela", r"eles"),
    "ru": (r"он", r"она", r"они"),
    "pl": (r"ona", r"oni"),
}

#: "it" as the subject of what only a creature does ("the mob ... it despawns").
IT_FAILS: tuple[str, ...] = (
    r"it\s+(?:just\s+|still\s+)?(?:despawns?|despawned|evades?|evaded|resets?|disappears?|"
    r"disappeared|is\s+(?:still\s+)?(?:missing|despawning|evading|invisible|untargetable|stuck|"
    r"not\s+(?:attackable|spawning|there))|(?:doesn'?t|does\s+not|won'?t|didn'?t)\s+"
    r"(?:spawn|respawn|attack|move|aggro|die|show\s+up|appear))\b",
)

#: After the name, in the same line: a pronoun that is the object of a failed action ("while X is
#: fighting them you cannot click him", "when you click on him nothing", "je ne peux pas lui
#: parler", "ich kann ihn nicht anklicken", "не могу его найти").
OBJECT_FAILS: dict[str, tuple[str, ...]] = {
    "en": (
        r"(?:can'?t|cannot|can\s+not|couldn'?t|could\s+not|unable\s+to|not\s+able\s+to|"
        r"impossible\s+to)\s+(?:even\s+)?(?:click(?:\s+on)?|target|attack|talk\s+to|speak\s+(?:to|with)|"
        r"interact\s+with|loot|kill|tame|hit|see|find|damage|select|skin)\s+(?:him|her|them)\b",
        r"(?:click|clicking|clicked|right-click|talk|talking|talked|speak|speaking)\s+"
        r"(?:on\s+|to\s+|with\s+)?(?:him|her)\b[\s,]*(?:(?:and|but)\s+)?(?:nothing|only\s+says|"
        r"just\s+says|(?:he|she)\s+(?:only|just)\s+says)",
    ),
    "de": (r"(?:ihn|ihm)\s+(?:\w+\s+){0,2}nicht\b",),
    "fr": (r"(?:impossible\s+de|(?:je|on)\s+ne\s+peu[xt]\s+pas)\s+(?:le|la|les|lui|leur)\s+",),
    "es": (r"no\s+(?:puedo|se\s+puede|podemos)\s+(?:\w+\s+)?(?:lo|la|le|los|las)\b",),
    "ru": (r"(?:не\s+могу|нельзя|невозможно)\s+(?:\w+\s+)?(?:его|её|ее|ему|ей|их)\b",),
}


#: After the name: the elliptical verb of a comparison ("the same chance ... that the X do",
#: "as X does."): X is the model the others are compared with.
COMPARED_AFTER: tuple[str, ...] = (
    r"(?:do|does|did|have|has|had|can|could)\s*(?:too|also|as\s+well)?\s*(?:[.!?;,)]|$)",
)

#: A common noun of one creature between a name and a pronoun ("I killed X and went back to the
#: quest giver but he ..."): the pronoun may stand for it, so the pronoun window ends there. Only
#: singular nouns: "while X is fighting the adds you cannot click him" is still about X.
CREATURE_NOUNS: tuple[str, ...] = (
    r"npc",
    r"quest\s*-?giver",
    r"giver",
    r"quest\s*-?ender",
    r"boss",
    r"mob",
    r"guard",
    r"vendor",
    r"trainer",
    r"creature",
    r"innkeeper",
    r"flight\s*master",
    r"marshal",
    r"captain",
    r"pnj",
    r"нпс",
    r"нпц",
    r"моб",
    r"босс",
    r"questgeber",
    r"händler",
    r"wache",
    r"jefe",
    r"guardia",
)
