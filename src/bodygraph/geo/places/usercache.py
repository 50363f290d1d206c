"""A per-user cache of unpacked array bundles, so a new process maps instead of unpacking.

The packed gazetteer index is unpacked (and its lookup arrays derived) once per machine
and user; the result is written to the cache directory under a name holding the packed
file's checksum, and every later process maps that file read-only (a few milliseconds,
and the pages are shared between processes). A cache that cannot be written (read-only
home, full disk) is not an error: the arrays are then made in memory each time.

The directory is ``$BODYGRAPH_CACHE_DIR`` when set (an empty value turns the cache off),
else the platform's per-user cache folder for ``bodygraph`` as ``platformdirs`` knows it:
``$XDG_CACHE_HOME/bodygraph`` or ``~/.cache/bodygraph`` on Linux,
``~/Library/Caches/bodygraph`` on macOS, ``%LOCALAPPDATA%\\bodygraph\\Cache`` on Windows.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

import platformdirs

from bodygraph.geo.places.store import Bundle, BundleFileError, digest, mapped, write_raw

__all__ = ["cache_dir", "cached"]

_LOG = logging.getLogger(__name__)


def cache_dir() -> Path | None:
    """The cache directory, or ``None`` when caching is turned off."""
    configured = os.environ.get("BODYGRAPH_CACHE_DIR")
    if configured is not None:
        return Path(configured).expanduser() if configured.strip() else None
    return Path(platformdirs.user_cache_dir("bodygraph", appauthor=False))


def cached(source: Path, part: str, make: Callable[[], Bundle]) -> Bundle:
    """The bundle ``make()`` derives from the packed file ``source``, cached as ``part``.

    The cached file is named after ``source``'s checksum, so a new ``source`` never
    meets a stale cache. ``make`` runs when the cache is off, empty or damaged.
    """
    directory = cache_dir()
    if directory is None:
        return make()
    target = directory / f"{source.stem}-{digest(source)[:20]}-{part}.arrays"
    try:
        return mapped(target)
    except FileNotFoundError:
        pass
    except (BundleFileError, OSError) as exc:
        _LOG.warning("rebuilding the damaged cache file %s: %s", target, exc)
    bundle = make()
    try:
        write_raw(target, bundle)
    except OSError as exc:
        _LOG.info("cannot cache %s (%s); keeping it in memory", target, exc)
        return bundle
    return mapped(target)
