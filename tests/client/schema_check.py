"""Whether a typed dictionary of the client describes exactly what a JSON Schema of the
service describes: the same keys, all required, the same JSON types, every Literal's
values equal to the schema's enum, unions matching ``oneOf`` member by member.
``$ref`` pointers are looked up in ``document`` (the OpenAPI document they point into)."""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

_JSON_TYPES = {str: "string", int: "integer", bool: "boolean"}


def resolve(schema: dict[str, Any], document: dict[str, Any] | None) -> dict[str, Any]:
    """``schema``, or what its ``$ref`` (``#/...``) names in ``document``."""
    while "$ref" in schema:
        assert document is not None, schema["$ref"]
        target: Any = document
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        schema = target
    return schema


def conforms(hint: Any, schema: dict[str, Any], where: str,
             document: dict[str, Any] | None = None) -> None:
    """``hint`` describes exactly the JSON ``schema`` describes (types, keys, enums)."""
    schema = resolve(schema, document)
    if is_typeddict(hint):
        hints = get_type_hints(hint)
        assert schema["type"] == "object", where
        assert set(hints) == set(schema["properties"]), where
        assert hint.__required_keys__ == set(schema["required"]), where
        for key, sub in hints.items():
            conforms(sub, schema["properties"][key], f"{where}.{key}", document)
    elif get_origin(hint) in (Union, types.UnionType):
        options = schema["oneOf"]
        assert len(get_args(hint)) == len(options), where
        for i, (arg, option) in enumerate(zip(get_args(hint), options, strict=True)):
            if arg is type(None):
                assert option == {"type": "null"}, where
            else:
                conforms(arg, option, f"{where}|{i}", document)
    elif get_origin(hint) is list:
        assert schema["type"] == "array", where
        conforms(get_args(hint)[0], schema["items"], f"{where}[]", document)
    elif get_origin(hint) is Literal:
        values = get_args(hint)
        assert schema.get("type", _JSON_TYPES[type(values[0])]) == _JSON_TYPES[
            type(values[0])], where
        assert sorted(values) == sorted(schema["enum"]), where
    else:
        assert _JSON_TYPES.get(hint) == schema["type"], where
