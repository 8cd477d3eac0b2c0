"""Keyword rules that give a report its interpretation category and scope (heuristic).

Each category has a list of phrase patterns (English, with the German equivalents of the common
ones). A pattern that occurs in the title counts twice, in any other readable source once; each
pattern counts at most once per source. The category with the highest score wins; ties go to the
earlier category in :data:`CATEGORY_RULES` (the more specific in-game kinds first). No hit at all
gives ``other``.

Scope (protocol v1-v3): a report is out of scope only when it reads like a feature request or a
suggestion (:data:`OUT_OF_SCOPE`); every other admitted report is taken as a report about the game.
Scope (protocol v4): :func:`scope_class` reads every out-of-scope class of the contract from cue
phrases in the reporters' eight languages (:data:`SCOPE_RULES`).

What it cannot do: it counts words, it does not understand them. A report that describes its
problem without any listed phrase gets ``other``; a report that mentions several problems gets
the one with the most listed phrases.
"""

import re
from collections.abc import Sequence

from vba_assets.domain.interpretation.models import InterpretationCategory, OutOfScopeClass
from vba_assets.domain.stage_context import SourceView


def _patterns(*phrases: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(rf"(?<!\w){phrase}(?!\w)", re.IGNORECASE) for phrase in phrases)


#: Category -> cue patterns, in tie-break order.
CATEGORY_RULES: tuple[tuple[InterpretationCategory, tuple[re.Pattern[str], ...]], ...] = (
    (
        "missing_or_unreachable_npc",
        _patterns(
            r"can'?t find",
            r"cannot find",
            r"can'?t see",
            r"cannot see",
            r"can'?t target",
            r"nowhere",
            r"missing",
            r"(?:doesn'?t|does not|don'?t|do not|not) (?:spawn|spawning|appear|show up)",
            r"see nothing",
            r"no [\w' -]{1,30} in sight",
            r"kein(?:e|en)? einzige[rns]?",
            r"nicht auffindbar",
            r"nicht zu sehen",
            r"zu sehen",
            r"spawnen",
        ),
    ),
    (
        "quest_progression",
        _patterns(
            r"turn(?:ed)?[ -]in",
            r"turn it in",
            r"won'?t take my quest",
            r"(?:doesn'?t|does not|don'?t|do not|didn'?t|not) (?:count|counting|counted)",
            r"no counter",
            r"can'?t (?:complete|accept|finish)",
            r"quest (?:credit|objective|progress)",
            r"not in (?:his|her|the) list",
            r"question mark",
            r"abandon(?:ed)? the quest",
            r"quest (?:nicht|kann nicht)",
            r"abgeben",
        ),
    ),
    (
        "npc_behaviour",
        _patterns(
            r"evad(?:es|ed|ing|e)",
            r"reset(?:s|ted)?",
            r"gossip",
            r"vendor",
            r"trainer",
            r"aggro",
            r"pathing",
            r"walks? (?:on|away|through)",
            r"keeps walking",
        ),
    ),
    (
        "item_or_loot",
        _patterns(r"loot(?:ed)?", r"drops?", r"dropped", r"reward", r"item", r"inventory"),
    ),
    (
        "spell_or_ability",
        _patterns(
            r"spell",
            r"ability",
            r"talent",
            r"aura",
            r"buff",
            r"debuff",
            r"cooldown",
            r"stun",
            r"cast(?:ing)?",
            r"does nothing",
        ),
    ),
    (
        "world_object",
        _patterns(
            r"chest",
            r"door",
            r"node",
            r"game ?object",
            r"transport",
            r"boat",
            r"zeppelin",
            r"elevator",
            r"terrain",
            r"fell through",
        ),
    ),
    (
        "ui_or_client",
        _patterns(
            r"settings?",
            r"font(?: size)?",
            r"chat tabs?",
            r"interface",
            r"addons?",
            r"ui",
            r"display",
            r"sound",
            r"graphics",
            r"keybinds?",
            r"macros?",
            r"resets? to",
        ),
    ),
    (
        "chat_or_social",
        _patterns(
            r"channels?", r"whispers?", r"mail(?:box)?", r"guild", r"friends? list", r"party invite"
        ),
    ),
    (
        "performance_or_connectivity",
        _patterns(
            r"lag(?:gy|s)?",
            r"disconnect(?:s|ed)?",
            r"latency",
            r"can'?t log ?in",
            r"realm down",
            r"server restart",
            r"crash(?:es|ed)?",
            r"freez(?:e|es|ing)",
        ),
    ),
    (
        "account_or_billing",
        _patterns(
            r"account",
            r"banned",
            r"suspended",
            r"password",
            r"payment",
            r"refund",
            r"shop",
            r"character transfer",
        ),
    ),
)

#: Phrases that make a report a request rather than a report of something wrong.
OUT_OF_SCOPE = _patterns(
    r"feature request", r"suggestion", r"would be nice", r"please add", r"could you add",
    r"it would be cool",
)  # fmt: skip


def category_scores(sources: Sequence[SourceView]) -> dict[InterpretationCategory, int]:
    """Score of every category (title hits count twice)."""
    scores: dict[InterpretationCategory, int] = {name: 0 for name, _ in CATEGORY_RULES}
    for source in sources:
        if not source.readable or not source.text:
            continue
        weight = 2 if source.kind == "title" else 1
        for name, patterns in CATEGORY_RULES:
            scores[name] += weight * sum(1 for p in patterns if p.search(source.text))
    return scores


def categorize(sources: Sequence[SourceView]) -> tuple[InterpretationCategory, int]:
    """The winning category and its score (``("other", 0)`` when nothing matched)."""
    scores = category_scores(sources)
    best = max(scores.values())
    if best == 0:
        return "other", 0
    return next(name for name, _ in CATEGORY_RULES if scores[name] == best), best


def out_of_scope_phrase(sources: Sequence[SourceView]) -> str | None:
    """The first feature-request phrase of the readable sources, or None."""
    for source in sources:
        if source.readable and source.text:
            for pattern in OUT_OF_SCOPE:
                match = pattern.search(source.text)
                if match:
                    return match.group(0)
    return None


# --- protocol v4: out-of-scope classes ------------------------------------------------------------

#: Out-of-scope class -> cue patterns in the reporters' languages (en, de, fr, es, ru, pt, zh, ko),
#: in tie-break order. A cue in the title counts twice. ``not_game_world`` is decided from the
#: title only (a body often names the website or the forum in passing).
SCOPE_RULES: tuple[tuple[OutOfScopeClass, tuple[re.Pattern[str], ...]], ...] = (
    (
        "cheating_report",
        _patterns(
            r"(?:speed|fly|wall|teleport|tele)[ -]?hack\w*", r"hack(?:er|ers)", r"cheat(?:er|ers|ing)",
            r"(?:is|was|were|are) hacking", r"bott(?:er|ers|ing)", r"using (?:hacks|cheats|bots?)",
            r"gold ?sell(?:er|ers|ing)",
            r"cheater", r"speedhack\w*", r"tricheu?r?\w*", r"tramposo\w*", r"haciendo trampa",
            r"hackeando", r"читер\w*", r"спидхак\w*", r"хакер\w*", r"trapace\w*", r"trapaça",
            r"外挂", r"作弊", r"开挂", r"핵 ?사용", r"치트", r"작업장",
        ),
    ),
    (
        "account_or_billing",
        _patterns(
            r"account (?:(?:was|is|got|has been|been) )?(?:banned|suspended|locked|hacked|stolen|"
            r"compromised|deleted|disabled)",
            r"(?:i|we) (?:was|were|got|have been|am) (?:perma)?banned", r"(?:un)?ban appeal",
            r"password", r"(?:recover|restore|return) (?:my |the |it|them)?\s*(?:account|character|"
            r"char|items?|gold|it|them)", r"refund", r"donat(?:e|ed|ion|ions)", r"payment", r"paypal",
            r"dear gm", r"character (?:transfer|rename|restore|restoration|deletion)",
            r"account (?:gesperrt|gehackt)", r"gesperrt", r"passwort", r"spende\w*",
            r"wiederherstell\w*", r"compte (?:banni|suspendu|bloqu[ée]|pirat[ée])", r"banni",
            r"mot de passe", r"remboursement", r"cuenta (?:baneada|suspendida|bloqueada|hackeada)",
            r"baneado", r"contraseña", r"reembolso", r"donaci[oó]n", r"recuperar (?:mi )?"
            r"(?:cuenta|personaje)", r"аккаунт\w* (?:забан\w*|заблокир\w*|взлом\w*)", r"забанил\w*",
            r"пароль", r"донат\w*", r"conta (?:banida|suspensa|bloqueada|hackeada)", r"banido",
            r"senha", r"doa[çc][ãa]o", r"recuperar (?:minha )?(?:conta|personagem)", r"封号",
            r"账号被", r"密码", r"充值", r"退款", r"계정 ?(?:정지|해킹|차단)", r"비밀번호", r"환불",
            r"결제", r"후원",
        ),
    ),
    (
        "client_or_addon",
        _patterns(
            r"critical error", r"error\s*#?\s*13[24]", r"wow\.exe", r"lua error",
            r"addons? (?:(?:is|are|do not|does not|don'?t|doesn'?t|not|won'?t) work\w*|broken|"
            r"not loading)", r"(?:with |all )addons? disabled", r"disabled? (?:all )?(?:my )?addons",
            r"(?:graphics|video) (?:card|driver)s?", r"gpu", r"directx", r"pc specs?",
            r"client crash(?:es|ed)?", r"crash(?:es|ed)? to desktop", r"(?:low|fps) (?:fps|drops?)",
            r"blue ?screen", r"memory could not be read", r"access violation",
            r"absturz", r"stürzt ab", r"grafikkarte", r"plantage", r"carte graphique",
            r"se cierra el juego", r"crashea", r"tarjeta gr[aá]fica", r"вылетает (?:игра|клиент)",
            r"вылет\w* (?:игры|клиента|из игры)", r"видеокарт\w*", r"o jogo fecha",
            r"placa de v[ií]deo", r"崩溃", r"闪退", r"显卡", r"튕김", r"튕겨", r"그래픽 ?카드",
        ),
    ),
    (
        "feature_request",
        _patterns(
            r"feature request", r"suggestion", r"would be (?:nice|great|cool)", r"please add",
            r"could you (?:please )?add", r"it would be cool", r"\[custom\]", r"add(?:ing)? new",
            r"i (?:would like|want) (?:to see|you to add)", r"vorschlag", r"w[äa]re (?:schön|toll|cool)",
            r"bitte (?:fügt|hinzufügen)", r"ce serait (?:bien|cool|génial)",
            r"pourriez-vous ajouter", r"sugerencia", r"ser[ií]a (?:bueno|genial)",
            r"podr[ií]an (?:añadir|agregar)", r"предложение", r"было бы (?:неплохо|здорово|хорошо)",
            r"добавьте", r"sugest[ãa]o", r"seria (?:bom|legal)", r"adicionem", r"建议",
            r"希望(?:能)?(?:添加|增加)", r"건의", r"제안", r"추가해 ?주세요",
        ),
    ),
    (
        "not_game_world",
        _patterns(
            r"web ?site", r"forum", r"launcher", r"discord", r"(?:vote|voting) (?:site|page|reward)",
            r"webseite", r"site web", r"p[aá]gina web", r"foro", r"сайт\w*", r"форум\w*", r"网站",
            r"论坛", r"登录器", r"홈페이지", r"웹사이트", r"포럼", r"런처",
        ),
    ),
)  # fmt: skip
_TITLE_ONLY: frozenset[OutOfScopeClass] = frozenset({"not_game_world"})
_MAIN_KINDS = ("title", "body")
#: Tracker template comments are not the reporter's words (``[//]: # (...)``, ``<!-- ... -->``).
_TEMPLATE_COMMENT = re.compile(r"^\[//\]: # \(.*$|<!--.*?-->", re.MULTILINE | re.DOTALL)


def scope_class(sources: Sequence[SourceView]) -> tuple[OutOfScopeClass, str] | None:
    """The out-of-scope class the report's title and body read as, with its first cue; None for
    a report about the game world (see :data:`SCOPE_RULES`)."""
    scores: dict[OutOfScopeClass, int] = {}
    first: dict[OutOfScopeClass, str] = {}
    for source in sources:
        if not source.readable or not source.text or source.kind not in _MAIN_KINDS:
            continue
        weight = 2 if source.kind == "title" else 1
        text = _TEMPLATE_COMMENT.sub(" ", source.text)
        for name, patterns in SCOPE_RULES:
            if name in _TITLE_ONLY and source.kind != "title":
                continue
            for pattern in patterns:
                match = pattern.search(text)
                if match:
                    scores[name] = scores.get(name, 0) + weight
                    first.setdefault(name, match.group(0))
    if not scores:
        return None
    best = max(scores.values())
    chosen = next(name for name, _ in SCOPE_RULES if scores.get(name) == best)
    return chosen, first[chosen]
