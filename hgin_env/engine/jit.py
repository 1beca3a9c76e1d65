"""The engine's one kernel compiler: numba, compiled once and cached on disk.

``kernel`` is ``numba.njit(cache=True, nogil=True)``. The first import of a module that
defines kernels compiles nothing; the first call of each kernel loads its machine code
from the on-disk cache, or compiles it once (a few seconds) and writes the cache.

Where the cache lives is numba's own rule: ``NUMBA_CACHE_DIR`` when set; else the
``__pycache__`` folder beside the source file when it is writable (a clone, an editable
install); else the user's cache folder (``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``,
for a wheel installed into a read-only site-packages). Every process (env workers,
pytest-xdist workers, Ray workers) reads the same cache; numba writes each entry to a
temporary file and renames it, so processes that compile at the same time do not clash.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit

F = TypeVar("F", bound=Callable[..., Any])


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba (nopython, no GIL held, cached on disk)."""
    return cast(F, njit(cache=True, nogil=True)(fn))


def inline_kernel(fn: F) -> F:
    """``kernel``, inlined into the kernels that call it (for small per-row helpers)."""
    return cast(F, njit(cache=True, nogil=True, inline="always")(fn))


def entry_point(dispatcher: Any, *args: Any) -> Callable[..., Any]:
    """The compiled entry of ``dispatcher`` for the types of ``args``, without numba's dispatch.

    Calling a kernel through its dispatcher first works out the numba type of every
    argument (about a microsecond for the engine's step); the entry point of one compiled
    signature skips that. Only for callers that always pass the same types (the engine's
    own buffers): a call with other types is not checked.
    """
    import numba

    typeof: Callable[[Any], Any] = numba.typeof
    signature = tuple(typeof(a) for a in args)
    overload = dispatcher.overloads.get(signature)
    if overload is None:
        dispatcher.compile(signature)
        overload = dispatcher.overloads[signature]
    return cast(Callable[..., Any], overload.entry_point)
