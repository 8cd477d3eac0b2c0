"""Issue 29 item 5: a planner that searches what matters (small made-up reports, the packaged
name index). Each test asserts a behaviour of the plan (quality), not plumbing."""

from tests.unit.test_heuristic_planning import Reports, by_term, plan_for, reports
from vba_assets.heuristic.name_index import NameIndex

__all__ = ["reports"]  # the fixture, imported for pytest (``names`` is conftest's)


def test_one_search_per_distinct_creature_before_a_second_name_of_the_same(
    reports: Reports, names: NameIndex
) -> None:
    """The German and the English name of Marshal Dughan are one creature: with a budget of two,
    the second search goes to Hogger, not to the English name (which the order of first mention
    would have taken); with room for all, the English name is still searched."""
    case = reports.text(
        "ISSUE29-DISTINCT",
        "Marschall Dughan gibt keine Quest",
        "Marschall Dughan (Marshal Dughan im englischen Client) gibt keine Quest. "
        "Daneben steht Hogger.",
    )
    tight = by_term(plan_for(case, names, max_searches=2))
    assert set(tight) == {"Marschall Dughan", "Hogger"}
    roomy = by_term(plan_for(case, names, max_searches=4))
    assert set(roomy) == {"Marschall Dughan", "Marshal Dughan", "Hogger"}


def test_a_boss_before_a_possessive_compound_is_searched(
    reports: Reports, names: NameIndex
) -> None:
    """ "Sathrovarr's Shadow Bolt Volley" is the boss's spell and "Hydross's Table" its loot: the
    possessive names the boss (Sathrovarr the Corruptor, Hydross the Unstable), so its short form
    is searched, citing the stem only."""
    case = reports.text(
        "ISSUE29-POSSESSIVE",
        "Kalecgos evades",
        "The Kalecgos fight resets. Sathrovarr's Shadow Bolt Volley evades when its target is "
        "ported. On our Lurker kill we got loot from Hydross's Table.",
    )
    plan = by_term(plan_for(case, names, max_searches=12))
    assert [m.quote for m in plan["Sathrovarr"].mentions] == ["Sathrovarr"]
    assert [m.quote for m in plan["Hydross"].mentions] == ["Hydross"]


def test_a_boss_short_form_at_a_sentence_start_also_written_in_lower_case(
    reports: Reports, names: NameIndex
) -> None:
    """A report that writes "razorgore" in lower case and "Razorgore" only at a sentence start:
    not a common noun (the word is no common word and a boss's name holds it), so searched."""
    case = reports.text(
        "ISSUE29-LOWER-SHORT",
        "BWL adds",
        "Razorgore: the adds spawn too fast.\nAfter razorgore dies the eggs stay.",
    )
    assert "Razorgore" in by_term(plan_for(case, names))


def test_a_short_form_many_names_hold_is_not_a_boss_short_form(
    reports: Reports, names: NameIndex
) -> None:
    """ "Mograine" is a word of the names of 19 entities: a contains search could not capture them
    all (max_candidates 8), so a sentence-start mention also written in lower case stays unsearched
    (a capitalized one in the middle of a sentence is still read as a short form)."""
    case = reports.text(
        "ISSUE29-MANY-SHORT",
        "Cathedral",
        "Mograine: drops loot when he dies.\nThe adds stay after mograine dies.",
    )
    assert "Mograine" not in by_term(plan_for(case, names))


def test_an_item_name_is_not_searched(reports: Reports, names: NameIndex) -> None:
    """Issue 29 acceptance (item 5): "Hearthstone" is an item's name and no creature's in any
    locale (the negative gazetteer of the name index), so although the report says it "does not
    work" (a subject cue) it is no creature search; the innkeeper is searched."""
    assert names.only_non_creature("Hearthstone")
    case = reports.text(
        "ISSUE29-ITEM",
        "Hearthstone broken",
        "My Hearthstone does not work when I talk to Innkeeper Farley.",
    )
    plan = plan_for(case, names)
    assert set(by_term(plan)) == {"Innkeeper Farley"}
    assert all(u.term != "Hearthstone" for u in plan.unsearched)


def test_a_lower_case_plural_name_is_searched_by_its_singular(
    reports: Reports, names: NameIndex
) -> None:
    """A casual reporter writes "defias thugs" and "the stormwind guards": the singular of the
    last of several words equals a creature's name, so it is searched in any case, citing the
    singular as written (a literal part of the mention)."""
    case = reports.text(
        "ISSUE29-LOWER-PLURAL",
        "defias thugs",
        "i killed some defias thugs in westfall and they dont drop anything. "
        "also the stormwind guards do not attack horde players",
    )
    plan = by_term(plan_for(case, names))
    assert [m.quote for m in plan["defias thug"].mentions] == ["defias thug", "defias thug"]
    assert "stormwind guard" in plan


def test_a_possessive_in_lower_case_and_capitalized_is_searched_by_its_stem(
    reports: Reports, names: NameIndex
) -> None:
    """ "hogger's loot" and "Thrall's gossip": the possessive stem is the creature's name."""
    lower = reports.text("ISSUE29-POSS-LOWER", "hogger's loot", "hogger's loot table is wrong")
    assert "hogger" in by_term(plan_for(lower, names))
    upper = reports.text("ISSUE29-POSS-UPPER", "Thrall", "Thrall's gossip is empty")
    assert [m.quote for m in by_term(plan_for(upper, names))["Thrall"].mentions] == [
        "Thrall",
        "Thrall",
    ]


def test_a_short_form_capitalized_only_at_sentence_starts_is_searched(
    reports: Reports, names: NameIndex
) -> None:
    """ "Illidan's glaives ... Illidan's flames": the short form of Illidan Stormrage stands only
    at sentence starts, but the report never writes it in lower case, so it is read as a name."""
    case = reports.text(
        "ISSUE29-INITIAL-SHORT",
        "Black Temple",
        "Illidan's glaives do not spawn. Illidan's flames neither.",
    )
    assert [m.quote for m in by_term(plan_for(case, names))["Illidan"].mentions] == [
        "Illidan",
        "Illidan",
    ]


def test_a_latin_name_glued_to_chinese_or_korean_text_is_searched(
    reports: Reports, names: NameIndex
) -> None:
    """Chinese and Korean reports write a Latin name without spaces around it ("打过Hogger，",
    "Hogger가"): the change of script ends the word, so the name is found and cited alone."""
    chinese = reports.text(
        "ISSUE29-ZH",
        "Hogger从昨天开始不刷新",
        "上周二我还在森林边缘打过Hogger，但是他现在不出现了，两天前也没有。",
    )
    quotes = [m.quote for m in by_term(plan_for(chinese, names))["Hogger"].mentions]
    assert quotes == ["Hogger", "Hogger"]
    korean = reports.text("ISSUE29-KO", "호거 버그", "Hogger가 다시 나타나지 않습니다.")
    assert "Hogger" in by_term(plan_for(korean, names))


def test_code_constants_are_not_searched(reports: Reports, names: NameIndex) -> None:
    """The parts of code identifiers ("NPC_ONYXIAN_WHELP", "SPELL_WING_BUFFET", "npc_hogger")
    are no creature mentions: the only search is the boss the prose names. Emphasis with
    underscores ("_Onyxia_") is prose and still read."""
    case = reports.text(
        "ISSUE29-CODE",
        "Onyxia",
        "```cpp\nenum Creatures { NPC_ONYXIAN_WHELP = 11262, NPC_LAIR_GUARD = 36561 };\n"
        "enum Spells { SPELL_WING_BUFFET = 18500, SPELL_FLAME_BREATH = 18435 };\n```\n"
        "UPDATE `creature_template` SET `ScriptName`='npc_hogger' WHERE `entry`=448;\n"
        "_Onyxia_ whelps spawn too fast.",
    )
    plan = by_term(plan_for(case, names))
    assert set(plan) == {"Onyxia"}
    assert [m.quote for m in plan["Onyxia"].mentions] == ["Onyxia", "Onyxia"]


def test_a_russian_inflected_name_is_searched_by_its_catalog_form(
    reports: Reports, names: NameIndex
) -> None:
    """ "Грубобрюха" (genitive) is the localized name "Грубобрюх" with a case ending: searched
    in the localized catalog by the literal part that equals the name."""
    case = reports.text(
        "ISSUE29-RU",
        "Квест не сдать",
        "Я убил Грубобрюха, но он не появляется снова.",
    )
    search = by_term(plan_for(case, names))["Грубобрюх"]
    assert search.catalog == "creature_localized_name"
    assert [m.quote for m in search.mentions] == ["Грубобрюх"]


def test_a_misspelled_name_is_searched_by_a_literal_part_the_catalog_holds(
    reports: Reports, names: NameIndex
) -> None:
    """ "Corporate Keeshan" (Corporal Keeshan): no catalog name equals or contains it, so it is
    searched by "Keeshan", the part the closest name holds, citing the mention as written."""
    case = reports.text(
        "ISSUE29-MISSPELLED", "Escort", "Corporate Keeshan does not start his escort quest."
    )
    search = by_term(plan_for(case, names))["Keeshan"]
    assert [m.quote for m in search.mentions] == ["Corporate Keeshan"]


def test_a_name_written_with_accents_the_catalog_lacks_is_an_exact_name(
    reports: Reports, names: NameIndex
) -> None:
    """ "Sköll" is Skoll with an accent the catalog does not write: without the accents of its
    Latin letters it equals the name, so it is an exact name (the world DB's contains search
    folds accents, so the literal "Sköll" finds the row); Cyrillic letters keep their marks."""
    case = reports.text("ISSUE29-ACCENT", "Sköll", "Sköll does not spawn in the Storm Peaks.")
    search = by_term(plan_for(case, names))["Sköll"]
    assert search.catalog == "creature_name"
    assert [m.quote for m in search.mentions] == ["Sköll", "Sköll"]


def test_a_name_written_without_the_catalogs_accents_is_an_exact_name(
    reports: Reports, names: NameIndex
) -> None:
    """A French reporter writes "Marechal Dughan" for the localized "Maréchal Dughan": the
    accent-folded form equals the name, so the literal text is searched in the localized catalog
    (the world DB's contains search folds accents)."""
    case = reports.text(
        "ISSUE29-NO-ACCENT", "Quete", "Le Marechal Dughan ne donne pas la quete aux joueurs."
    )
    search = by_term(plan_for(case, names))["Marechal Dughan"]
    assert search.catalog == "creature_localized_name"
    assert [m.quote for m in search.mentions] == ["Marechal Dughan"]


def test_a_quoted_name_before_a_noun_is_no_possessive_compound(
    reports: Reports, names: NameIndex
) -> None:
    """ "'Terenthis' NPC": the apostrophe after the name closes the quote that opens it, so it is
    no possessive glued to a place or item name ("Rattlegore's Bridge") and the name is searched;
    a real possessive compound still is not."""
    quoted = reports.text(
        "ISSUE29-QUOTED", "[Quest][Darkshore]'Terenthis' NPC does not take the quest", "See title."
    )
    assert "Terenthis" in by_term(plan_for(quoted, names, max_searches=4))
    compound = reports.text(
        "ISSUE29-COMPOUND", "Bridge bug", "Terenthis' Bridge has a hole in it. See the screenshot."
    )
    assert "Terenthis" not in by_term(plan_for(compound, names, max_searches=4))


def test_a_creature_of_several_words_after_reported_by_is_searched(
    reports: Reports, names: NameIndex
) -> None:
    """A player character's name is one word, so "as reported by Lorekeeper Raintotem" names a
    creature (another report about it); a single word there stays the reporter's name."""
    case = reports.text(
        "ISSUE29-REPORTED-BY",
        "Malynea Skyreaver shows no dialogue",
        "Similar issue as reported by Lorekeeper Raintotem. No dialogue text is shown.",
    )
    assert "Lorekeeper Raintotem" in by_term(plan_for(case, names, max_searches=4))
