"""The table of relative date expressions in the reporters' eight languages (protocol v4).

Recognition is the project's (:data:`FORMS`): a table of the expressions that name one unambiguous
day or range, per language: ``today``, ``yesterday``, ``the day before yesterday``, ``N days
ago``, ``last week``, ``last <weekday>``, a part of one of those days (``this morning``,
``yesterday evening``, ``tonight``, ``last night``) and ``since`` any of them (``since
yesterday``, ``seit Montag``, ``depuis ce matin``, ``со вчерашнего дня``, ``从昨天开始``,
``어제부터``). Anything else (``Tuesday`` alone, ``last month``, ``a while ago``, ``since the last
restart``) is not resolved: its time reference has null dates and is an unknown.

Also here, per language: the core phrases dateparser resolves (:data:`CORES`, used by
:mod:`.date_resolution`), the project's reading of each kind of expression (:data:`SEMANTICS`),
the table compiled to regexes (:data:`COMPILED`, searched by :mod:`.dates`) and :class:`Found`,
one expression of the table found in a text. No dateparser here.
"""

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

Language = Literal["en", "de", "fr", "es", "ru", "pt", "zh", "ko"]
LANGUAGES: tuple[Language, ...] = ("en", "de", "fr", "es", "ru", "pt", "zh", "ko")
#: What an expression names before ``since`` and parts of the day are applied.
Key = Literal["today", "yesterday", "day_before", "ago", "last_week", "weekday", "week_day"]
#: ``same``: a part of the day that stays that day; ``tonight``: D (D-1..D before 06:00 local);
#: ``night``: the night before D, D-1..D.
Part = Literal["same", "tonight", "night"]

#: The project's reading of each kind of expression (also in the v2 prompts).
SEMANTICS = (
    "today, this morning, this afternoon (any language): D",
    "tonight, this evening: D (D-1..D when reported before 06:00 local time)",
    "yesterday, yesterday morning/afternoon/evening: D-1",
    "the day before yesterday: D-2",
    "last night: D-1..D",
    "N days ago: D-N",
    "last week: Monday..Sunday of the calendar week before D's",
    "last <weekday>: the latest such day before D",
    "<weekday> of last week (上周二, 지난주 화요일): that day of the calendar week before D's",
    "since any of the above, or since a weekday: from its first day to D",
    "a date written YYYY-MM-DD: that day",
)


# --- the table ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Core:
    """The phrases of one language that dateparser resolves (``ago`` takes ``{n}``)."""

    today: str
    yesterday: str
    day_before: str
    ago: str
    last_week: str
    weekdays: tuple[str, str, str, str, str, str, str]


CORES: dict[Language, Core] = {
    "en": Core(
        "today", "yesterday", "the day before yesterday", "{n} days ago", "last week",
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    ),
    "de": Core(
        "heute", "gestern", "vorgestern", "vor {n} Tagen", "letzte Woche",
        ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"),
    ),
    "fr": Core(
        "aujourd'hui", "hier", "avant-hier", "il y a {n} jours", "la semaine dernière",
        ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    ),
    "es": Core(
        "hoy", "ayer", "anteayer", "hace {n} días", "la semana pasada",
        ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    ),
    "ru": Core(
        "сегодня", "вчера", "позавчера", "{n} дня назад", "на прошлой неделе",
        ("понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье"),
    ),
    "pt": Core(
        "hoje", "ontem", "anteontem", "há {n} dias", "semana passada",
        (
            "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira",
            "sábado", "domingo",
        ),
    ),
    "zh": Core(
        "今天", "昨天", "前天", "{n}天前", "上周",
        ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"),
    ),
    "ko": Core(
        "오늘", "어제", "2일 전", "{n}일 전", "지난주",
        ("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"),
    ),
}  # fmt: skip

#: Number words 1-10 of "N days ago" (digits are always accepted).
NUMBERS: dict[Language, dict[str, int]] = {
    "en": {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10},
    "de": {"einem": 1, "einen": 1, "ein": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5,
           "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10},
    "fr": {"un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6,
           "sept": 7, "huit": 8, "neuf": 9, "dix": 10},
    "es": {"un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5,
           "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10},
    "ru": {"один": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
           "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10},
    "pt": {"um": 1, "uma": 1, "dois": 2, "duas": 2, "três": 3, "tres": 3, "quatro": 4,
           "cinco": 5, "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10},
    "zh": {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
           "九": 9, "十": 10},
    "ko": {},
}  # fmt: skip
#: Korean native day counts ("이틀 전": two days ago) are whole words.
KOREAN_DAYS = {"하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7,
               "여드레": 8, "아흐레": 9, "열흘": 10}  # fmt: skip


def _alt(words: object) -> str:
    """A regex alternation of ``words``, longest first (so ``vorgestern`` beats ``gestern``)."""
    assert isinstance(words, list | tuple | dict)
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def _num(language: Language) -> str:
    return (
        rf"(?P<n>\d{{1,3}}|{_alt(NUMBERS[language])})" if NUMBERS[language] else r"(?P<n>\d{1,3})"
    )


_EN_WD = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DE_WD = ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag")
_FR_WD = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")
_ES_WD = ("lunes", "martes", "mi[ée]rcoles", "jueves", "viernes", "s[áa]bado", "domingo")
_PT_WD = (
    r"segunda(?:-feira)?", r"ter[çc]a(?:-feira)?", r"quarta(?:-feira)?", r"quinta(?:-feira)?",
    r"sexta(?:-feira)?", r"s[áa]bado", r"domingo",
)  # fmt: skip
_RU_WD_ACC = ("понедельник", "вторник", "среду", "четверг", "пятницу", "субботу", "воскресенье")
_RU_WD_GEN = (
    "понедельника", "вторника", "среды", "четверга", "пятницы", "субботы", "воскресенья",
)  # fmt: skip
_ZH_WD = r"(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])"
ZH_WD_INDEX = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_KO_WD = ("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일")


def _weekday(names: tuple[str, ...]) -> str:
    """One named group per weekday (``wd0``..``wd6``), so a match says which day it is."""
    return "(?:" + "|".join(f"(?P<wd{i}>{name})" for i, name in enumerate(names)) + ")"


@dataclass(frozen=True)
class Form:
    """One expression of the table: its regex, what it names and how it modifies that."""

    pattern: str
    key: Key
    part: Part | None = None
    since: bool = False  # the pattern itself says "since" (e.g. a Korean "...부터")
    homograph: bool = False  # counts only in a text of its own language


def _forms() -> dict[Language, list[Form]]:
    en_wd, de_wd, fr_wd = _weekday(_EN_WD), _weekday(_DE_WD), _weekday(_FR_WD)
    es_wd, pt_wd, ko_wd = _weekday(_ES_WD), _weekday(_PT_WD), _weekday(_KO_WD)
    ru_acc, ru_gen = _weekday(_RU_WD_ACC), _weekday(_RU_WD_GEN)
    return {
        "en": [
            Form(r"the\s+day\s+before\s+yesterday", "day_before"),
            Form(r"the\s+morning", "today", "same", since=True),
            Form(r"yesterday\s+(?:morning|afternoon|evening)", "yesterday", "same"),
            Form(r"yesterday", "yesterday"),
            Form(r"last\s+night", "yesterday", "night"),
            Form(r"tonight|this\s+evening", "today", "tonight"),
            Form(r"this\s+(?:morning|afternoon)", "today", "same"),
            Form(r"today", "today"),
            Form(rf"{_num('en')}\s+days?\s+ago", "ago"),
            Form(r"last\s+week", "last_week"),
            Form(rf"last\s+{en_wd}", "weekday"),
        ],
        "de": [
            Form(r"vorgestern", "day_before"),
            Form(
                r"gestern\s+(?:morgen|vormittag|mittag|nachmittag|abend|früh)", "yesterday", "same"
            ),
            Form(r"gestern\s*nacht|letzte\s+nacht|vergangene\s+nacht", "yesterday", "night"),
            Form(r"gestern", "yesterday"),
            Form(r"heute\s+abend", "today", "tonight"),
            Form(r"heute\s+(?:morgen|vormittag|mittag|nachmittag|früh)", "today", "same"),
            Form(r"heute", "today"),
            Form(rf"vor\s+{_num('de')}\s+tag(?:en)?", "ago"),
            Form(r"(?:letzte|vergangene|letzter|vergangener)\s+woche", "last_week"),
            Form(
                rf"(?:am\s+)?(?:letzten|letzter|letztes|vergangenen|letztem)\s+{de_wd}", "weekday"
            ),
        ],
        "fr": [
            Form(r"avant[-\s]hier", "day_before"),
            Form(r"hier\s+(?:matin|midi|après-midi|apres-midi|soir)", "yesterday", "same"),
            Form(r"hier", "yesterday", homograph=True),
            Form(r"la\s+nuit\s+derni[èe]re", "yesterday", "night"),
            Form(r"ce\s+soir", "today", "tonight"),
            Form(r"ce\s+matin|cet\s+apr[èe]s-midi", "today", "same"),
            Form(r"aujourd['’]hui", "today"),
            Form(rf"il\s+y\s+a\s+{_num('fr')}\s+jours?", "ago"),
            Form(r"(?:la\s+)?semaine\s+derni[èe]re", "last_week"),
            Form(rf"(?:le\s+)?{fr_wd}\s+dernier", "weekday"),
        ],
        "es": [
            Form(r"anteayer|antier|antes\s+de\s+ayer", "day_before"),
            Form(r"ayer\s+por\s+la\s+(?:mañana|tarde|noche)", "yesterday", "same"),
            Form(r"ayer", "yesterday"),
            Form(r"anoche", "yesterday", "night"),
            Form(r"esta\s+noche", "today", "tonight"),
            Form(r"esta\s+(?:mañana|tarde)", "today", "same"),
            Form(r"hoy", "today"),
            Form(rf"hace\s+{_num('es')}\s+d[íi]as?", "ago"),
            Form(r"(?:la\s+)?semana\s+pasada", "last_week"),
            Form(rf"(?:el\s+)?{es_wd}\s+pasado", "weekday"),
            Form(rf"el\s+pasado\s+{es_wd}", "weekday"),
        ],
        "ru": [
            Form(r"позавчера", "day_before"),
            Form(r"вчера\s+(?:утром|днём|днем|вечером)", "yesterday", "same"),
            Form(r"вчера\s+ночью|прошлой\s+ночью", "yesterday", "night"),
            Form(r"вчера", "yesterday"),
            Form(r"сегодня\s+вечером", "today", "tonight"),
            Form(r"сегодня\s+(?:утром|днём|днем)", "today", "same"),
            Form(r"сегодня", "today"),
            Form(rf"{_num('ru')}\s+(?:день|дня|дней)\s+назад", "ago"),
            Form(r"на\s+прошлой\s+неделе", "last_week"),
            Form(rf"в\s+прошл(?:ый|ую|ое)\s+{ru_acc}", "weekday"),
            # only after "с"/"со" (since): genitive forms
            Form(r"вчерашнего\s+дня", "yesterday", since=True),
            Form(r"позавчерашнего\s+дня", "day_before", since=True),
            Form(r"сегодняшнего\s+утра|утра", "today", "same", since=True),
            Form(r"прошлой\s+недели", "last_week", since=True),
            Form(ru_gen, "weekday", since=True),
        ],
        "pt": [
            Form(r"anteontem", "day_before"),
            Form(
                r"ontem\s+(?:de\s+manhã|à\s+tarde|a\s+tarde|à\s+noite|a\s+noite)",
                "yesterday",
                "same",
            ),
            Form(r"ontem", "yesterday"),
            Form(r"hoje\s+(?:à|a)\s+noite|esta\s+noite", "today", "tonight"),
            Form(
                r"hoje\s+(?:de\s+manhã|à\s+tarde|a\s+tarde)|esta\s+(?:manhã|tarde)", "today", "same"
            ),
            Form(r"hoje", "today"),
            Form(rf"(?:há|faz)\s+{_num('pt')}\s+dias?", "ago"),
            Form(rf"{_num('pt')}\s+dias?\s+atrás", "ago"),
            Form(r"(?:na\s+|a\s+)?semana\s+passada", "last_week"),
            Form(rf"(?:na\s+|no\s+)?{pt_wd}\s+passad[oa]", "weekday"),
            Form(rf"(?:na\s+|no\s+)?últim[oa]\s+{pt_wd}", "weekday"),
        ],
        "zh": [
            Form(r"前天", "day_before"),
            Form(r"昨天(?:早上|上午|中午|下午|傍晚)|昨早", "yesterday", "same"),
            Form(r"昨晚|昨天晚上|昨天夜里|昨夜", "yesterday", "night"),
            Form(r"昨天|昨日", "yesterday"),
            Form(r"今晚|今天晚上", "today", "tonight"),
            Form(r"今天(?:早上|上午|中午|下午)|今早|今天早晨", "today", "same"),
            Form(r"今天|今日", "today"),
            Form(rf"{_num('zh')}\s*天前", "ago"),
            Form(rf"上(?:个)?{_ZH_WD}", "week_day"),
            Form(r"上周|上星期|上个星期|上礼拜|上个礼拜", "last_week"),
            Form(_ZH_WD, "weekday", since=True),
        ],
        "ko": [
            Form(r"그저께|그제", "day_before"),
            Form(r"어제\s*(?:아침|오전|점심|오후|저녁)", "yesterday", "same"),
            Form(r"어젯밤|어제\s*밤", "yesterday", "night"),
            Form(r"어제", "yesterday"),
            Form(r"오늘\s*(?:저녁|밤)", "today", "tonight"),
            Form(r"오늘\s*(?:아침|오전|점심|오후)", "today", "same"),
            Form(r"오늘", "today"),
            Form(rf"(?:{_num('ko')}\s*일|(?P<kn>{_alt(KOREAN_DAYS)}))\s*전", "ago"),
            Form(rf"(?:지난|저번)\s*주\s*{ko_wd}", "week_day"),
            Form(rf"지난\s*{ko_wd}", "weekday"),
            Form(r"지난\s*주|저번\s*주", "last_week"),
            Form(ko_wd, "weekday", since=True),
        ],
    }


FORMS: dict[Language, list[Form]] = _forms()
#: "since" before an expression (Korean and Chinese mark it around the expression instead).
SINCE: dict[Language, str] = {
    "en": r"since",
    "de": r"seit",
    "fr": r"depuis",
    "es": r"desde(?:\s+el)?",
    "ru": r"с|со",
    "pt": r"desde(?:\s+a|\s+o)?",
}
#: Bare weekdays count after "since" ("since Monday", "seit Montag", "depuis lundi").
_SINCE_WEEKDAY: dict[Language, tuple[str, ...]] = {
    "en": _EN_WD, "de": _DE_WD, "fr": _FR_WD, "es": _ES_WD, "pt": _PT_WD,
}  # fmt: skip
#: "since N days" without "ago" ("seit 3 Tagen", "depuis 3 jours", "desde hace 3 días").
_SINCE_DAYS: dict[Language, str] = {
    "de": rf"{_num('de')}\s+tag(?:en)?",
    "fr": rf"{_num('fr')}\s+jours?",
    "es": rf"hace\s+{_num('es')}\s+d[íi]as?",
}
_CJK = frozenset({"zh", "ko"})


def _compile() -> list[tuple[Language, Form, re.Pattern[str]]]:
    compiled: list[tuple[Language, Form, re.Pattern[str]]] = []
    flags = re.IGNORECASE
    for language in LANGUAGES:
        forms = list(FORMS[language])
        if language in _SINCE_WEEKDAY:
            forms.append(Form(_weekday(_SINCE_WEEKDAY[language]), "weekday", since=True))
        if language in _SINCE_DAYS:
            forms.append(Form(_SINCE_DAYS[language], "ago", since=True))
        for form in forms:
            if language == "ko":
                pattern = rf"(?P<body>{form.pattern})(?P<since>\s*부터)?"
            elif language == "zh":
                pattern = (
                    rf"(?P<since>(?:从|自从|自)\s*)?(?P<body>{form.pattern})"
                    r"(?P<since2>\s*(?:开始|以来|起))?"
                )
            elif form.since:
                pattern = (
                    rf"(?<!\w)(?P<since>(?:{SINCE[language]})\s+)(?P<body>{form.pattern})(?!\w)"
                )
            else:
                pattern = (
                    rf"(?<!\w)(?P<since>(?:{SINCE[language]})\s+)?(?P<body>{form.pattern})(?!\w)"
                )
            compiled.append((language, form, re.compile(pattern, flags)))
    return compiled


COMPILED = _compile()


# --- what finding yields --------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """One expression found in a text: exactly ``text[start:end]``."""

    quote: str
    start: int
    end: int
    language: Language | None  # None for an ISO date
    key: Key | None
    part: Part | None = None
    since: bool = False
    n: int | None = None
    weekday: int | None = None
    iso: date | None = None
