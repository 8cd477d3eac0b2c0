"""Word tables of the role readings added for unseen trackers (issue 29 item 1, ARCHITECTURE 15).

Same conventions as :mod:`.role_words` (lower-case regular-expression fragments, per language,
compiled once with :func:`~.role_words.alternation` and matched on a bounded window around a
mention): the escorted creature, a turn-in that fails around the name in a verb-last language,
the group of creatures a name qualifies ("X trash"), and a possessive whose thing fails ("his
teleporter did not spawn"). :mod:`.broken_cues` and :mod:`.role_reader` read them.
"""

#: Before the name: the creature is escorted (or rescued on an escort quest): "When escorting X
#: for <quest>", "saving X", "l'escorte de X". The escort it leads is what an escort report is
#: about, so it is affected, as with :data:`SHOULD_AFTER` (weaker than a failure, never over a
#: giver's own cue). Each entry must end where the name starts.
ESCORTED_BEFORE: dict[str, tuple[str, ...]] = {
    "en": (
        r"(?:escort|escorts|escorting|escorted|saving|rescuing|protecting)\s+(?:the\s+)?",
        r"escort\s+(?:quest\s+)?(?:of|with)\s+(?:the\s+)?",
    ),
    "de": (r"(?:eskorte|begleitung|begleitschutz)\s+(?:von\s+|für\s+)?(?:dem\s+|der\s+|den\s+)?",),
    "fr": (r"(?:escorter|escorte|escortant|escorté|escortée)\s+(?:de\s+|du\s+)?(?:la\s+|le\s+)?",),
    "es": (r"(?:escoltar|escoltando|escoltado|escolta)\s+(?:a\s+|al\s+|de\s+|del\s+)?(?:la\s+)?",),
    "pt": (r"(?:escoltar|escoltando|escolta)\s+(?:a\s+|o\s+|de\s+|do\s+|da\s+)?",),
    "ru": (r"(?:сопровождении|сопровождение|сопровождать|сопровождаю|сопровождая)\s+",),
    "pl": (r"(?:eskortując|eskortować|eskortuję|eskorta|eskorcie)\s+",),
}

#: After the name, in a language that puts the verb last: "wenn man X eskortiert", "X begleiten".
ESCORTED_AFTER: dict[str, tuple[str, ...]] = {
    "de": (r"(?:eskortiert|eskortieren|eskortiere|begleitet|begleiten|begleite)\b",),
}

#: Around the name, in a language that puts the verb last: before it a negation and a
#: preposition, after it the verb of the turn-in or acceptance ("Quest kann nicht bei X abgegeben
#: werden", "nicht bei X annehmen"): X fails as the ender or giver. Read only together.
TURN_IN_BEFORE: dict[str, tuple[str, ...]] = {
    "de": (
        r"(?:nicht|nie|nirgends)\s+(?:mehr\s+)?(?:bei|an|von|zu)\s+(?:dem\s+|der\s+|den\s+)?"
        r"(?:npc\s+|questgeber\s+|questender\s+)?",
    ),
}
TURN_IN_AFTER: dict[str, tuple[str, ...]] = {
    "de": (
        r"(?:abgegeben|abgeben|abzugeben|angenommen|annehmen|anzunehmen|abgeschlossen|"
        r"abschließen|abzuschließen|angeboten|anbieten|erhalten|bekommen)\b",
    ),
}

#: After the name: it names the group of other creatures around it ("Morogrim trash", "X's trash
#: pack"), the creature itself is the landmark. Read at the start of the text after it.
GROUP_AFTER: tuple[str, ...] = (r"(?:'s|s')?[ \t]*-?[ \t]*(?:trash|trashmobs?|trashpacks?)\b",)

#: Before the name: the same group said the other way round ("the trash before X", "Trash vor X",
#: "les trashs avant X"). Each entry must end where the name starts.
GROUP_BEFORE: tuple[str, ...] = (
    r"trash(?:mobs?|packs?|s)?\s+(?:mobs?\s+|packs?\s+)?(?:before|after|of|near|around|to|vor|"
    r"nach|bei|von|avant|après|de|du|antes\s+de|después\s+de|del|перед|после|przed|po)\s+"
    r"(?:the\s+|dem\s+|der\s+|den\s+|le\s+|la\s+|el\s+)?",
)

#: After the name, in its sentence: a possessive pronoun, the creature's own thing, then a failure
#: ("we killed X and his teleporter did not spawn", "seine Adds spawnen nicht"): X's script is
#: what breaks. "its" is too often the quest's; a quest word after the pronoun is not X's part
#: (:data:`QUEST_PARTS`).
POSSESSIVES: dict[str, tuple[str, ...]] = {
    "en": (r"his", r"her", r"their"),
    "de": (r"sein", r"seine", r"seinen", r"seiner", r"ihr", r"ihre", r"ihren"),
    "fr": (r"son", r"sa", r"ses", r"leur", r"leurs"),
    "es": (r"su", r"sus"),
    "pt": (r"seu", r"sua", r"seus", r"suas"),
    "pl": (r"jego", r"jej"),
}
QUEST_PARTS: tuple[str, ...] = (
    r"quests?",
    r"questline",
    r"quête",
    r"aufgabe",
    r"misión",
    r"missão",
    r"rewards?",
    r"items?",
)
