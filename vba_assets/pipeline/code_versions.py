"""Per-stage code versions: what an asset's Dagster ``code_version`` covers.

An asset's code version hashes the protocol and prompt versions a new revision freezes, the code of
its own stage (its run function and its checks' names, blocking flags and functions) and the code
version of the stage before it. So a change to the plan's checks stales ``resolution_plan`` and
everything downstream of it, and nothing upstream (``tests/unit/test_code_versions.py`` pins
that); before, every asset hashed the whole of the modules holding all stages and all checks, so
one new check showed every partition of every asset as "code version changed".

"The code of a stage" is the source of its functions plus, transitively, of every function and
class of this project's pipeline and domain packages that they refer to by name (a global, or an
attribute of an imported project module, found in their bytecode's names). Stage-independent code
that a stage reaches only through an object (a method of a parameter) is covered through the class
that defines it when the stage names that class.
"""

import hashlib
import linecache
from collections.abc import Iterator, Sequence
from types import CodeType, FunctionType, ModuleType

from vba_assets.domain.prompting.prompts import CURRENT_PROMPT_VERSION
from vba_assets.domain.protocol import CURRENT_PROTOCOL_VERSION
from vba_assets.domain.stages import Stage
from vba_assets.pipeline.registry import STAGE_SPECS, StageSpec

#: The packages whose code a stage's fingerprint follows.
FOLLOWED_PACKAGES = ("vba_assets.pipeline", "vba_assets.domain")


def _names(code: CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _names(const)


def _followed(obj: object) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return any(module == p or module.startswith(p + ".") for p in FOLLOWED_PACKAGES)


def _referenced(function: FunctionType) -> Iterator[object]:
    """The project functions, classes and modules ``function`` names (globals and closures)."""
    names = set(_names(function.__code__))
    scope = function.__globals__
    cells = [cell.cell_contents for cell in function.__closure__ or ()]
    for value in [*(scope[n] for n in sorted(names) if n in scope), *cells]:
        if isinstance(value, ModuleType):
            for name in sorted(names):
                attribute = getattr(value, name, None)
                if attribute is not None and _followed(attribute):
                    yield attribute
        elif isinstance(value, FunctionType | type) and _followed(value):
            yield value
        elif callable(value) and isinstance(getattr(value, "__wrapped__", None), FunctionType):
            yield value.__wrapped__


def _function_source(code: CodeType) -> str:
    """The source lines a function's code spans (from its first line, decorators included, to
    the last line its bytecode maps to): what ``inspect.getsource`` returns without tokenizing."""
    lines = linecache.getlines(code.co_filename)
    last = max((line for _, _, line in code.co_lines() if line is not None), default=0)
    if not lines or last < code.co_firstlineno:
        return code.co_qualname  # no source (generated code)
    return "".join(lines[code.co_firstlineno - 1 : last])


def _source(item: FunctionType | type) -> str:
    """A function's source; for a class, its annotations and its own functions' sources
    (``inspect.getsource`` of a class parses its whole module: seconds over the project)."""
    if isinstance(item, FunctionType):
        return _function_source(item.__code__)
    parts = [repr(getattr(item, "__annotations__", {}))]
    for name, value in sorted(vars(item).items()):
        if isinstance(value, FunctionType):
            parts.append(_source(value))
        elif isinstance(value, str | int | float | bool | tuple | frozenset):
            parts.append(f"{name}={_stable_repr(value)}")
    return "\n".join(parts)


def _stable_repr(value: object) -> str:
    """A ``repr`` that is the same in every process. Two things in the plain ``repr`` were not,
    and gave each process its own code versions: a frozenset's member order follows the string
    hash seed (``PYTHONHASHSEED``), and a function or class inside a tuple (a ``NamedTuple``'s
    ``__orig_bases__``) shows its memory address. Sets are sorted; functions and classes are named.
    """
    if isinstance(value, frozenset | set):
        return "frozenset({" + ", ".join(sorted(_stable_repr(v) for v in value)) + "})"
    if isinstance(value, tuple):
        inner = ", ".join(_stable_repr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, str | int | float | bool | None):
        return repr(value)
    module = getattr(value, "__module__", None) or type(value).__module__
    name = getattr(value, "__qualname__", None) or type(value).__qualname__
    return f"<{module}.{name}>"


def reached_sources(roots: Sequence[object]) -> dict[str, str]:
    """The source of ``roots`` and of the project code they reach by name, by qualified name."""
    seen: dict[str, str] = {}
    stack = list(roots)
    while stack:
        item = stack.pop()
        if not isinstance(item, FunctionType | type):
            continue
        key = f"{item.__module__}.{item.__qualname__}"
        if key in seen:
            continue
        seen[key] = _source(item)
        functions = (
            [item]
            if isinstance(item, FunctionType)
            else [v for v in vars(item).values() if isinstance(v, FunctionType)]
        )
        for function in functions:
            stack.extend(_referenced(function))
    return seen


def code_fingerprint(roots: Sequence[object]) -> str:
    """sha256 over :func:`reached_sources` of ``roots`` (independent of their order)."""
    seen = reached_sources(roots)
    digest = hashlib.sha256()
    for key in sorted(seen):
        digest.update(key.encode())
        digest.update(b"\0")
        digest.update(seen[key].encode())
        digest.update(b"\0")
    return digest.hexdigest()


def stage_code_versions(specs: Sequence[StageSpec] = STAGE_SPECS) -> dict[Stage, str]:
    """Each stage's code version, in pipeline order (each folds in the one before)."""
    versions: dict[Stage, str] = {}
    previous = ""
    for spec in specs:
        checks = "".join(f"{c.name}:{c.blocking};" for c in spec.checks)
        own = code_fingerprint([spec.run, *(c.evaluate for c in spec.checks)])
        digest = hashlib.sha256(f"{previous}|{checks}|{own}".encode()).hexdigest()[:12]
        previous = f"protocol-{CURRENT_PROTOCOL_VERSION}.prompts-{CURRENT_PROMPT_VERSION}.{digest}"
        versions[spec.stage] = previous
    return versions
