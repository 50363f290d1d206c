"""A small container for named NumPy arrays and a JSON header, compressed or mapped.

The payload is an 8-byte little-endian header length, the header (UTF-8 JSON: ``meta``
and, for each array, its name, dtype, shape and offset) and the arrays' bytes, each
starting at a multiple of 8 bytes. Writing the same arrays and meta gives the same
payload (sorted keys, no time stamps), so a regenerated file can be compared with a
checked-in one.

Two files hold a payload:

* a **packed** file (shipped): the line ``BODYGRAPH-ARRAYS 1 <sha256 of the payload>``,
  then the payload compressed with zlib. :func:`digest` reads the checksum alone, so a
  cache of the unpacked payload can be named after it without reading the file.
* a **raw** file (a cache): a 32-byte magic block, then the payload as is. :func:`mapped`
  maps it read-only, so the arrays cost no reading and no private memory: pages are
  read when touched and shared by every process that maps the file.
"""

from __future__ import annotations

import hashlib
import io
import json
import mmap
import os
import struct
import tempfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Bundle", "BundleFileError", "decode", "digest", "encode", "mapped", "pack", "unpack",
    "write_raw",
]

PACKED_MAGIC: Final = b"BODYGRAPH-ARRAYS 1 "
RAW_MAGIC: Final = b"BODYGRAPH-ARRAYS-RAW 1\n".ljust(32, b"\0")
_LENGTH: Final = struct.Struct("<Q")
_ALIGN: Final = 8


class BundleFileError(ValueError):
    """A file that is not an array bundle, or a damaged one."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """Named arrays and a JSON-compatible ``meta`` mapping."""

    arrays: Mapping[str, npt.NDArray[Any]]
    meta: Mapping[str, Any]


def _padding(size: int) -> int:
    return -size % _ALIGN


def _layout(bundle: Bundle) -> tuple[bytes, list[npt.NDArray[Any]]]:
    """The header block (length and JSON) and the arrays, in payload order."""
    entries: list[dict[str, Any]] = []
    arrays: list[npt.NDArray[Any]] = []
    offset = 0
    for name in sorted(bundle.arrays):
        array = np.ascontiguousarray(bundle.arrays[name])
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("<"))
        entries.append(
            {"name": name, "dtype": array.dtype.str, "shape": list(array.shape),
             "offset": offset}
        )
        arrays.append(array)
        offset += array.nbytes + _padding(array.nbytes)
    header = json.dumps(
        {"arrays": entries, "meta": bundle.meta}, sort_keys=True, ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    header += b" " * _padding(_LENGTH.size + len(header))
    return _LENGTH.pack(len(header)) + header, arrays


def _write_payload(stream: BinaryIO, bundle: Bundle) -> None:
    """Write the payload of ``bundle`` to ``stream`` without assembling it in memory."""
    head, arrays = _layout(bundle)
    stream.write(head)
    for array in arrays:
        stream.write(memoryview(array.reshape(-1).view(np.uint8).data))
        stream.write(b"\0" * _padding(array.nbytes))


def encode(bundle: Bundle) -> bytes:
    """The payload of ``bundle`` (header length, header, aligned array bytes)."""
    buffer = io.BytesIO()
    _write_payload(buffer, bundle)
    return buffer.getvalue()


def decode(raw: bytes | memoryview | mmap.mmap) -> Bundle:
    """The bundle held by a payload made by :func:`encode`; the arrays view ``raw``."""
    buffer = memoryview(raw)
    if len(buffer) < _LENGTH.size:
        raise BundleFileError("the array bundle is truncated")
    (length,) = _LENGTH.unpack_from(buffer)
    start = _LENGTH.size + length
    try:
        header = json.loads(buffer[_LENGTH.size:start].tobytes().decode("utf-8"))
        arrays: dict[str, npt.NDArray[Any]] = {}
        for entry in header["arrays"]:
            dtype = np.dtype(entry["dtype"])
            shape = tuple(int(size) for size in entry["shape"])
            count = int(np.prod(shape, dtype=np.int64))
            begin = start + int(entry["offset"])
            if begin + count * dtype.itemsize > len(buffer):
                raise BundleFileError(
                    f"the array {entry['name']!r} runs past the end of the bundle"
                )
            arrays[entry["name"]] = np.frombuffer(buffer, dtype, count, begin).reshape(shape)
        return Bundle(arrays, header["meta"])
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise BundleFileError("the array bundle's header is damaged") from exc


def pack(path: Path, bundle: Bundle, *, level: int = 9) -> None:
    """Write ``bundle`` to ``path`` as a packed file (checksum line, zlib payload)."""
    payload = encode(bundle)
    checksum = hashlib.sha256(payload).hexdigest().encode("ascii")
    path.write_bytes(PACKED_MAGIC + checksum + b"\n" + zlib.compress(payload, level))


def digest(path: Path) -> str:
    """The payload checksum named on the first line of the packed file at ``path``."""
    with path.open("rb") as stream:
        line = stream.readline(len(PACKED_MAGIC) + 66)
    checksum = line[len(PACKED_MAGIC):].strip()
    if not line.startswith(PACKED_MAGIC) or len(checksum) != 64:
        raise BundleFileError(f"{path} is not a packed array bundle")
    return checksum.decode("ascii")


def unpack(path: Path) -> bytes:
    """The payload of the packed file at ``path``, checked against its checksum."""
    data = path.read_bytes()
    end = data.find(b"\n")
    if not data.startswith(PACKED_MAGIC) or end < 0:
        raise BundleFileError(f"{path} is not a packed array bundle")
    try:
        payload = zlib.decompress(memoryview(data)[end + 1:])
    except zlib.error as exc:
        raise BundleFileError(f"{path} is damaged: {exc}") from exc
    if hashlib.sha256(payload).hexdigest() != data[len(PACKED_MAGIC):end].decode("ascii"):
        raise BundleFileError(f"{path} is damaged: its checksum does not match")
    return payload


def write_raw(path: Path, bundle: Bundle) -> None:
    """Write ``bundle`` as a raw file, atomically (a reader sees all of it or nothing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(RAW_MAGIC)
            _write_payload(stream, bundle)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def mapped(path: Path) -> Bundle:
    """The bundle of the raw file at ``path``, mapped read-only into memory."""
    with path.open("rb") as stream:
        if os.fstat(stream.fileno()).st_size <= len(RAW_MAGIC):
            raise BundleFileError(f"{path} is not a raw array bundle")
        view = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    if view[:len(RAW_MAGIC)] != RAW_MAGIC:
        view.close()
        raise BundleFileError(f"{path} is not a raw array bundle")
    return decode(memoryview(view)[len(RAW_MAGIC):])
