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
