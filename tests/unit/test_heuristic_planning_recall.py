"""Issue 29 item 5 (recall): misspelled names the planner never searched before. Small made-up
reports, the packaged name index; each test asserts what the plan searches (quality: every
report fails on the planner before this change), and that ordinary words stay unsearched."""

from collections.abc import Mapping

from tests.unit.test_heuristic_planning import Reports, by_term, plan_for, reports
from vba_assets.heuristic.misspellings import short_form_term
from vba_assets.heuristic.name_index import NameIndex
from vba_assets.heuristic.name_index_words import name_words
from vba_assets.heuristic.rare_words import rare
from vba_assets.heuristic.spans import Span
from vba_assets.heuristic.terms import Term

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)


def _covering(plan: Mapping[str, object], surface: str) -> list[str]:
    """The searched terms that are a literal part of ``surface`` (case-insensitive)."""
    return [term for term in plan if term.casefold() in surface.casefold()]


def test_a_misspelled_name_in_lower_case_is_searched(reports: Reports, names: NameIndex) -> None:
    """ "kalegos" (Kalecgos) written in lower case was no span at all: a lower-case word that is
    no common word is now looked up, and searched by the part Kalecgos's name holds."""
    case = reports.text(
        "RECALL-LOWER",
        "Sunwell bugs",
        "On the timewalking realm kalegos does not leave the platform after the fight.",
    )
    plan = by_term(plan_for(case, names, max_searches=4))
    assert _covering(plan, "kalegos"), plan
    search = plan[_covering(plan, "kalegos")[0]]
    assert [m.quote for m in search.mentions] == ["kalegos"]


def test_a_misspelled_short_form_in_lower_case_is_searched(
    reports: Reports, names: NameIndex
) -> None:
    """ "ilidan" is no whole name's misspelling (Illidan Stormrage is long): it is close to the
    rare name word "illidan", a boss's, so it is searched by a literal part of it."""
    case = reports.text(
        "RECALL-SHORT-LOWER",
        "BLACK TEMPLE",
        "we cant target the boss so we cant kill them and continue to kill ilidan",
    )
    plan = by_term(plan_for(case, names, max_searches=4))
    assert _covering(plan, "ilidan"), plan
    term = _covering(plan, "ilidan")[0]
    assert "illidan stormrage".find(term.casefold()) >= 0


def test_a_misspelled_name_as_a_titles_first_word_is_searched(
    reports: Reports, names: NameIndex
) -> None:
    """ "Kaelthas" (Kael'thas Sunstrider) is capitalized only as the title's first word, which
    made it no name before: as a rare word it is now looked up and searched."""
    case = reports.text(
        "RECALL-TITLE",
        "Kaelthas evade bug",
        "When a hunter uses feign death the boss evades and resets.",
    )
    plan = by_term(plan_for(case, names, max_searches=4))
    assert _covering(plan, "Kaelthas"), plan


def test_a_misspelled_name_after_a_place_is_searched_by_its_last_word(
    reports: Reports, names: NameIndex
) -> None:
    """ "Naxxramas Thaddous" is one capitalized run no name is close to; its last word is a
    boss's misspelled name (Thaddius) and is searched, citing the word only."""
    case = reports.text(
        "RECALL-LAST-WORD",
        "Naxxramas Thaddous teleporter didnt spawn after boss kill",
        "After the kill the teleporter does not appear.",
    )
    plan = by_term(plan_for(case, names, max_searches=4))
    found = _covering(plan, "Thaddous")
    assert found, plan
    assert [m.quote for m in plan[found[0]].mentions] == ["Thaddous"]


def test_common_and_place_words_are_not_looked_up(reports: Reports, names: NameIndex) -> None:
    """A common word ("nothing") is not looked up; a rarer one ("teleports") is, but it is close
    to no boss's name; a zone at a sentence start ("Durotar,", a word of "Durotar Tiger" as
    written) is no misspelling of Durotan: none is searched."""
    case = reports.text(
        "RECALL-COMMON",
        "Mobs not respawning",
        "Zureetha Fargaze sent me to kill Vile Familiars. After killing them nothing came back "
        "and the boss teleports everyone. Durotar, realm time around 9 pm.",
    )
    plan = by_term(plan_for(case, names, max_searches=12))
    assert set(plan) == {"Zureetha Fargaze", "Vile Familiar"}, plan
    assert not rare("nothing", "en") and rare("teleports", "en")


def test_a_short_form_is_matched_only_to_a_bosss_rare_name_word(names: NameIndex) -> None:
    """The name-word index holds rare words of primary names (not "lurker", shared by dozens of
    creatures); a word close to a non-boss's name word is no short form."""
    words = name_words(names)
    assert "illidan" in words.entities and "lurker" not in words.entities

    def term(text: str) -> Term:
        span = Span("body", 0, 0, len(text), text, "run", 1)
        return Term(text.casefold(), [span])

    found = short_form_term(term("ilidan"), names)
    assert found is not None and found.misspelling is not None
    assert names.boss(found.misspelling.identity)
    assert short_form_term(term("Illidan"), names) is None  # written exactly: no misspelling


def test_a_misspelled_lower_case_phrase_is_searched_by_a_literal_part(
    reports: Reports, names: NameIndex
) -> None:
    """ "yogg saron" (Yogg-Saron without its hyphen) and "defias tower patroler" (one letter
    short) are lower-case phrases no span held: two uncommon words make them worth a lookup,
    and each is searched by a literal part the catalog name holds."""
    case = reports.text(
        "RECALL-PHRASE",
        "Ulduar bugs",
        "walking under the brain room, yogg saron does not engage.\n"
        "i killed the defias tower patroler and it dropped a junkbox.",
    )
    plan = by_term(plan_for(case, names, max_searches=4))
    saron = _covering(plan, "yogg saron")
    assert saron and "yogg-saron".find(saron[0].casefold()) >= 0, plan
    patrol = _covering(plan, "defias tower patroler")
    assert patrol and "defias tower patroller".find(patrol[0].casefold()) >= 0, plan
    assert [m.quote for m in plan[patrol[0]].mentions] == ["defias tower patroler"]


def test_a_lower_case_phrase_of_common_words_is_not_looked_up(
    reports: Reports, names: NameIndex
) -> None:
    """Lower-case phrases of common words ("the tower guard") are no misspelled names, and a
    phrase holding a word the report also names exactly ("de sindragosa") is not looked up
    again: only Sindragosa is searched."""
    case = reports.text(
        "RECALL-PHRASE-COMMON",
        "Sindragosa P2",
        "Sur la p2 de Sindragosa, l'aura de givre de sindragosa ne marche pas. "
        "The tower guard walks away.",
    )
    plan = by_term(plan_for(case, names, max_searches=12))
    assert all("sindragosa" in term.casefold() for term in plan), plan
    assert len(plan) == 1, plan


def test_the_name_words_are_kept_and_read_back_the_same(names: NameIndex) -> None:
    """Plumbing: the name words go through their kept document unchanged (a later process reads
    them instead of building them), under a name the store's pruning keeps."""
    from vba_assets.heuristic import name_index_words
    from vba_assets.heuristic.gazetteer import is_current_kept_name

    words = name_words(names)
    kept = name_index_words._KEPT
    again = kept.decode(kept.encode(words))
    assert dict(again.entities) == dict(words.entities)
    assert again.closest("ilidan", 78.0) == words.closest("ilidan", 78.0)
    assert is_current_kept_name(name_index_words.NAME_WORDS_KEPT_NAME)


def test_a_bosss_short_form_in_lower_case_is_searched_as_written(
    reports: Reports, names: NameIndex
) -> None:
    """ "vezax" in lower case is no span and no misspelling: it is a word of General Vezax's
    name, in no word list, and most entities whose names hold it are bosses, so it is searched
    as written. "debuff" is also a word of bosses' names, but of test creatures' ("QA Test Dummy
    73 Raid Debuff"), and a word of English: not searched."""
    case = reports.text(
        "RECALL-BOSS-WORD",
        "Ulduar",
        "we could not get past vezax tonight, the debuff stays after the wipe.",
    )
    plan = by_term(plan_for(case, names, max_searches=4))
    assert "vezax" in plan, plan
    assert [m.quote for m in plan["vezax"].mentions] == ["vezax"]
    assert "debuff" not in plan, plan


def test_lower_case_words_of_a_language_without_word_lists_are_not_looked_up(
    reports: Reports, names: NameIndex
) -> None:
    """In a language the word lists do not hold (Polish), every word would look rare: the
    lower-case passes are off there (known_language), so "staghelm" of a Cataclysm boss the
    catalog lacks is not searched as Fandral Staghelm; the same words in English are."""
    polish = reports.text(
        "RECALL-POLISH",
        "Majordomo",
        "Przedostatni boss majordomo staghelm resetuje sie tzn znika i pojawia sie jak by był "
        "wipe po zmianie z kota w skorpiona kiedy powinny wejsc seedy",
    )
    assert "staghelm" not in by_term(plan_for(polish, names, max_searches=4))
    english = reports.text(
        "RECALL-ENGLISH",
        "Majordomo",
        "The second to last boss majordomo staghelm resets, he disappears and comes back as if "
        "we wiped when he changes from cat to scorpion form.",
    )
    assert "staghelm" in by_term(plan_for(english, names, max_searches=4))
