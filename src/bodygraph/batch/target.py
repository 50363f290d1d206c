"""The output file of a job: refused when it is the input, written as a temporary file in
its folder and renamed over it only when the job has ended well, so that a job that fails
or is interrupted leaves an earlier output as it was."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from bodygraph.batch.errors import BatchOptionError


def check_target(source: Path, target: Path) -> None:
    """A :class:`BatchOptionError` when ``target`` cannot be the output of a job reading
    ``source``: it is a folder, or it is the input file itself (by another path, a
    symbolic link or a hard link)."""
    if target.is_dir():
        raise BatchOptionError(f"the output {target} is a folder: name a file to write")
    if _same_file(source, target):
        raise BatchOptionError(
            f"the output {target} is the input file: write the charts to another file")


@contextlib.contextmanager
def staged(target: Path) -> Iterator[Path]:
    """A new empty file in the folder of ``target`` (of the file it points to, when it is a
    symbolic link) to write the output to: renamed to ``target`` when the block ends well,
    with the mode of the file it replaces, and removed when the block raises (Ctrl-C too)."""
    final = Path(os.path.realpath(target))
    temporary = _created_beside(final)
    try:
        yield temporary
        _sync(temporary)
        if final.exists():
            shutil.copymode(final, temporary)
        temporary.replace(final)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _same_file(first: Path, second: Path) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:  # the second does not exist (yet): the same only by its name
        return os.path.realpath(first) == os.path.realpath(second)


def _created_beside(final: Path) -> Path:
    """A new file with a random name after ``final`` in its folder, with the mode a new
    file gets there (the process's umask applies)."""
    path = final.with_name(f".{final.name}.{secrets.token_hex(8)}.part")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:  # reported as the output the user named
        raise OSError(exc.errno, exc.strerror, str(final)) from None
    return path


def _sync(path: Path) -> None:
    """``path``'s content on the disk before it replaces anything."""
    handle = os.open(path, os.O_RDWR)  # some systems sync only a file open for writing
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
