"""The project's JSON Schemas (the contract's, ``bodygraph.model.contract.json_schema``) as
validators, each schema checked against its meta-schema once per test process.

``jsonschema.validate(instance, schema)`` checks the schema against the meta-schema on
every call (about 15 ms of CPU for the chart result's schema) and then validates the
instance (about 0.5 ms). :func:`validate_contract` does the same two checks and raises
the same error (``best_match`` of the instance's errors), with the schema's check made
once. jsonschema is imported here when first used, not in every worker that collects a
module importing this one.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from bodygraph.model.contract import json_schema

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


@cache
def contract_validator(name: str, *, formats: bool = False) -> Validator:
    """A validator of the schema ``name``, whose schema has been checked; with
    ``formats``, the ``format`` keywords are checked too."""
    from jsonschema import FormatChecker
    from jsonschema.validators import validator_for

    schema = json_schema(name)
    kind = validator_for(schema)
    kind.check_schema(schema)
    return kind(schema, format_checker=FormatChecker() if formats else None)


def validate_contract(instance: Any, name: str, *, formats: bool = False) -> None:
    """``instance`` is valid against the schema ``name`` (``jsonschema.validate``, the
    schema checked once; ``formats`` as ``format_checker=FormatChecker()``)."""
    from jsonschema.exceptions import best_match

    error = best_match(contract_validator(name, formats=formats).iter_errors(instance))
    if error is not None:
        raise error
