"""Word lists of the heuristic baseline: stop words, name particles, template labels, zone words,
game vocabulary (professions, classes) and the markers of the report-language guess.

Small, hand-written and deliberately incomplete. They cover English and German (the languages of
the sample reports) and a few French, Spanish and Russian words. Everything is compared
case-folded. A word missing here is not an error: the catalog (the gazetteer pass) is what decides
whether a span is a name; these lists only keep obvious non-names out of the candidate spans. The
lists are written as adjacent string literals: each literal ends in whitespace so that two words
are never glued together.
"""

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Lower-case words allowed INSIDE a capitalized name ("Avatar of Hakkar", "Thrall of the Horde",
#: "Arthas von Menethil"), never at its ends.
PARTICLES = _words("of the von van der den de du des la le del da di zu y al el")

#: Function words and frequent report words: never a name on their own; a capitalized one breaks a
#: capitalized run ("I", "The", "Hi") and is dropped at the start of a sentence.
STOPWORDS = _words(
    # English
    """a an the and or but nor so yet if then than that this these those there here where when
    while what which who whom whose why how all any some no not none each every both either
    neither i me my mine we us our you your he him his she her it its they them their one ones
    is are was were be been being am do does did done doing have has had having can could will
    would shall should may might must not cant can't cannot couldn't won't wont don't doesn't
    didn't isn't aren't wasn't weren't haven't hasn't hadn't i'm i've i'd i'll you're it's
    that's there's he's she's we're they're let let's in on at to for from by with without into
    onto over under above below after before since until about around near behind between
    through during against also just only even still again already very really too quite
    maybe perhaps please thanks thank hi hello hey dear ok okay yes yeah btw lol pls plz
    same other another more most much many few less least first last next new old good bad
    now today tonight yesterday tomorrow ago later earlier always never sometimes often
    anyone anything anywhere someone something somewhere everyone everything everywhere nothing
    nobody nowhere like as via per two three four five six seven eight nine ten twenty
    hundred ye yer fer em 'em o' thee thou
    got get gets getting took take takes taking picked pick tried try tries trying went go goes
    going ran run came come found find see saw seen seeing killed kill kills killing looked
    look looking made make said say says told tell think thought know knew want wanted need
    needed help helped used use using gave give gives given doing done started start stopped
    stop relogged relog abandoned redid flew logged log
    """
    # bug-report vocabulary
    """quest quests bug bugs bugged issue issues problem problems report reported server realm
    client game player players character characters char alt gm gms npc npcs mob mobs boss
    note notes edit update fixed fix broken works working work
    """
    # German
    """der die das den dem des ein eine einer eines einem einen und oder aber auch nicht kein
    keine keinen keinem keiner keines ich du er sie es wir ihr mich mir dich dir ihn ihm uns
    euch mein meine dein deine sein seine ist sind war waren bin bist hat habe haben hatte
    hatten wird werden wurde kann konnte können muss soll mit von vom zu zum zur bei beim aus
    auf in im an am um für über unter nach vor seit bis durch ohne gegen wie wo was wer wann
    warum ob dass weil wenn als noch schon nur sehr bitte danke hallo hi gestern heute morgen
    abend woche tag tage zwei drei vier fünf sechs zehn
    """
    # French, Spanish, Russian (a few)
    """le la les un une des du de et ou mais pas je tu il elle nous vous ils elles est sont
    dans sur avec pour par ne que qui el los las y o pero no yo en con por para que una uno unos
    unas del al lo se su sus es está están muy más и в не на
    я он она мы вы они что это с по"""
)

#: Calendar words: never names (dates are resolved by the interpretation, not searched).
CALENDAR_WORDS = _words(
    """monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december montag dienstag mittwoch
    donnerstag freitag samstag sonntag januar februar märz mai juni juli oktober dezember
    lundi mardi mercredi jeudi vendredi samedi dimanche"""
)

#: Line labels of report templates ("Steps to reproduce:", "Expected:", "Client version:"). The
#: label is skipped; the text after the colon is still read.
TEMPLATE_LABELS = frozenset(
    {
        "steps",
        "steps to reproduce",
        "reproduction",
        "repro",
        "how to reproduce",
        "expected",
        "expected result",
        "expected behavior",
        "expected behaviour",
        "actual",
        "actual result",
        "actual behavior",
        "actual behaviour",
        "client version",
        "server version",
        "version",
        "build",
        "core",
        "revision",
        "commit",
        "hash",
        "patch",
        "realm",
        "server",
        "character",
        "char",
        "race",
        "class",
        "level",
        "faction",
        "zone",
        "location",
        "date",
        "time",
        "description",
        "summary",
        "title",
        "notes",
        "note",
        "additional info",
        "additional information",
        "os",
        "addons",
        "quest",
        "npc",
        "erwartet",
        "tatsächlich",
        "schritte",
        "beschreibung",
        # real tracker templates
        "current behaviour",
        "current behavior",
        "expected blizzlike behaviour",
        "decription",
        "how it works",
        "how it should work",
        "source",
        "sources",
        "links",
        "link",
        "what is happening",
        "what should happen",
        "server revision",
        "operating system",
        "branch(es)",
        "tdb version",
        "steps to reproduce the problem",
        "additional context",
        "extra notes",
        "npc info",
        "описание",
        "étapes de reproduction",
        "comportement attendu",
        "descripción",
    }
)

#: Words that make a span "zone-like": with a locative cue ("in Howling Fjord") they give the
#: ``location_context`` role. A grounded signal, not a list of zones.
ZONE_WORDS = _words(
    """fjord vale valley forest woods wood temple isle island islands peaks peak hills
    highlands wastes marsh swamp mountains mountain keep hold citadel spire canyon coast shore
    plains barrens desert basin crater glade grove pass gorge ridge reach sanctum halls hall
    city village town camp outpost fortress fort tower caverns cavern cave caves depths pit
    ruins lake sea bay harbor harbour dungeon raid instance zone hill farm landing lair gebiet
    tal wald insel berge lager dorf stadt forêt bois vallée campement grotte bosque valle
    campamento cueva лес лагерь долина пещера region région región zona регион"""
)

#: Names that are tracker or chat vocabulary, not world entities, even when capitalized.
NON_ENTITY_NAMES = _words("gm gms npc npcs alliance horde wowhead discord addon addons ui lfg")

_TITLE_CASE_MIN_WORDS = 3
_LETTER_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


_CLITICS = frozenset({"s", "re", "ve", "ll", "d", "t", "m"})


def is_stopword(word: str) -> bool:
    """True for a function word, calendar word or tracker word (case-insensitive).

    A contraction of a stop word counts too ("Those're", "He'll").
    """
    folded = word.casefold().replace("’", "'").replace("ʼ", "'")
    if folded in STOPWORDS or folded in CALENDAR_WORDS or folded in NON_ENTITY_NAMES:
        return True
    head, apostrophe, tail = folded.partition("'")
    return bool(apostrophe) and tail in _CLITICS and head in STOPWORDS


def is_title_case_line(line: str) -> bool:
    """True when most words of ``line`` are capitalized (a Title Case headline).

    In such a line capitalization says nothing about names, so span boundaries are not checked
    against neighbouring capitalized words there.
    """
    words = [w for w in _LETTER_WORD.findall(line) if w.casefold() not in PARTICLES]
    if len(words) < _TITLE_CASE_MIN_WORDS:
        return False
    capitalized = sum(1 for w in words if w[0].isupper())
    return capitalized * 10 >= len(words) * 8


#: Frequent function words per language, for the report-language guess. Words shared by two of
#: these languages ("in", "die" in English and German) are left out: they decide nothing.
LANGUAGE_MARKERS: dict[str, frozenset[str]] = {
    "en": _words(
        """the and is are was i you it to of that for with not on my this can't have he she
        they we there when but at from been has had doesn't don't didn't won't isn't"""
    ),
    "de": _words(
        """der das und ist nicht ich mit auf ein eine zu den von im es hat auch war sie man
        kann wir mir mich sich noch aber nach seit bei dem kein keine wird sind habe"""
    ),
    "fr": _words(
        """le la les et est pas je avec sur un une du des il elle dans pour que ne au aux
        mais qui sont n'est j'ai m'a"""
    ),
    "es": _words("el los las y es yo con en un una del que por para pero me al se lo ni está"),
    "ru": _words("и в не на я он она что это с по но как из у уже просто"),
}

#: Letters that occur in one of the guessed languages and not in English; a word holding one
#: counts as a marker of that language ("Cyrillic" stands for any Cyrillic letter).
_LANGUAGE_LETTERS: dict[str, frozenset[str]] = {
    "de": frozenset("äöüß"),
    "fr": frozenset("éèêàçùâîôëœ"),
    "es": frozenset("ñáíóú¿¡"),
}


def _letter_language(word: str) -> str | None:
    folded = word.casefold()
    if any("\u0400" <= char <= "\u04ff" for char in folded):
        return "ru"
    for language, letters in _LANGUAGE_LETTERS.items():
        if any(char in letters for char in folded):
            return language
    return None


def language_scores(words: list[str]) -> dict[str, int]:
    """Per language: marker words plus words holding one of its own letters (see above)."""
    counts = {language: 0 for language in LANGUAGE_MARKERS}
    for word in words:
        folded = word.casefold().replace("’", "'")
        for language, markers in LANGUAGE_MARKERS.items():
            if folded in markers:
                counts[language] += 1
        by_letter = _letter_language(folded)
        if by_letter is not None:
            counts[by_letter] += 1
    return counts


#: Languages that capitalize every noun: a capitalized single word is no sign of a name there.
NOUN_CAPITALIZING = frozenset({"de"})


def guess_language(words: list[str]) -> str:
    """The language with the highest :func:`language_scores`; English on a tie."""
    counts = language_scores(words)
    best = max(counts.values())
    return "en" if counts["en"] == best else next(k for k, v in counts.items() if v == best)


#: Game vocabulary that names no creature on its own even where a catalog holds an entry of that
#: name: professions and secondary skills, classes (English, German, French). A term that is
#: exactly one of these is never searched alone; inside a longer name it is harmless.
GAME_TERMS = _words(
    # professions and secondary skills
    """alchemy blacksmithing enchanting engineering herbalism inscription jewelcrafting
    leatherworking mining skinning tailoring cooking fishing lockpicking riding
    alchemie schmiedekunst verzauberkunst ingenieurskunst kräuterkunde inschriftenkunde
    juwelierskunst lederverarbeitung bergbau kürschnerei schneiderei kochkunst angeln
    alchimie enchantement ingénierie herboristerie calligraphie joaillerie minage dépeçage
    couture cuisine pêche secourisme
    """
    # classes
    """warrior warriors paladin paladins hunter hunters rogue rogues priest priests shaman
    shamans mage mages warlock warlocks druid druids krieger jäger schurke priester
    schamane magier hexenmeister druide todesritter guerrier chasseur voleur prêtre chaman
    démoniste"""
) | frozenset({"first aid", "erste hilfe", "death knight", "death knights"})


def is_game_term(text: str) -> bool:
    """True when ``text`` (case-insensitive, any spacing) is a profession, skill or class name."""
    return " ".join(text.casefold().split()) in GAME_TERMS


def foreign_looking(text: str) -> bool:
    """True when ``text`` has a non-ASCII letter (an English name never has one)."""
    return any(ord(char) > 127 and char.isalpha() for char in text)
