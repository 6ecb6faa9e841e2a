"""Reading a model reply: JSON parsing and JSON Schema validation, with errors in this project's words.

Validation is the ``jsonschema`` library's (Draft 2020-12); this module only words its errors as
``"<json path>: <reason>"`` (:func:`schema_errors`) and finds the JSON value in a reply
(:func:`parse_reply`: a surrounding code fence or prose is tolerated, nothing is repaired,
NaN/Infinity are rejected). A reply is never evaluated and never used as SQL.

Shapes: :func:`parse_reply` returns ``(value, None)`` or ``(None, reason)``.

Errors: :func:`check_schema` raises ``ValueError`` for an invalid schema (a programming error of the
caller, not of the model); reply problems are returned as reasons, not raised.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .config import one_line


def check_schema(schema: Any) -> None:
    """Raise ``ValueError`` if ``schema`` is not a valid Draft 2020-12 JSON Schema (checked by
    ``jsonschema`` against the metaschema). A programming error of the caller, not of the model."""
    import jsonschema

    if not isinstance(schema, dict):
        raise ValueError("schema must be a JSON object")
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "#"
        raise ValueError(f"invalid JSON Schema at {where}: {one_line(exc.message, 120)}") from None


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _error_words(err) -> str:
    """One ``jsonschema.ValidationError`` as ``"<json path>: <reason>"`` in this project's wording."""
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    kw, arg, inst = err.validator, err.validator_value, err.instance
    if kw == "type":
        allowed = [arg] if isinstance(arg, str) else list(arg)
        return f"{path}: expected {' or '.join(allowed)}, got {_json_kind(inst)}"
    if kw == "enum":
        return f"{path}: {one_line(json.dumps(inst, default=str), 60)} is not one of the allowed values"
    if kw == "const":
        return f"{path}: must equal {json.dumps(arg)}"
    if kw == "required":
        missing = [n for n in arg if isinstance(inst, dict) and n not in inst] or list(arg)
        return f"{path}: missing required property {missing[0]!r}"
    if kw in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{path}: {inst} violates {kw} {arg}"
    if kw == "additionalProperties":
        extra = sorted(set(inst) - set((err.schema.get("properties") or {}))) if isinstance(inst, dict) else []
        return f"{path}: unexpected property {one_line(extra[0] if extra else '?', 40)!r}"
    if kw == "anyOf":
        return f"{path}: matches none of the allowed alternatives"
    if kw == "oneOf":
        return f"{path}: does not match exactly one of the alternatives"
    if kw == "minItems":
        return f"{path}: fewer than {arg} items"
    if kw == "maxItems":
        return f"{path}: more than {arg} items"
    if kw == "minLength":
        return f"{path}: shorter than {arg} characters"
    if kw == "maxLength":
        return f"{path}: longer than {arg} characters"
    if kw == "pattern":
        return f"{path}: does not match pattern {arg!r}"
    return f"{path}: {one_line(err.message, 120)}"


def schema_errors(value: Any, schema: dict, path: str = "$") -> list[str]:
    """Every violation of ``schema`` by ``value`` as ``"<json path>: <reason>"`` (empty = valid).

    The check is ``jsonschema.Draft202012Validator`` (a float with an integral value counts as an
    integer, as JSON does); errors are listed shallowest first. ``path`` is kept for callers that
    prefix their own location (only the default ``$`` is used here).
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errs = sorted(validator.iter_errors(value), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    out = [_error_words(e) for e in errs]
    return [path + s[1:] if path != "$" else s for s in out]


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def parse_reply(content: str | None, schema: dict) -> tuple[Any, str | None]:
    """``(value, None)`` if ``content`` is JSON conforming to ``schema``, else ``(None, reason)``.

    A surrounding code fence (```json ... ```) is tolerated, and so is prose around the JSON (a
    fenced block followed by an explanation, "Here is the JSON: {...}"): the first JSON value of the
    reply is decoded and validated, nothing is repaired. NaN/Infinity are rejected.
    """
    if content is None or not content.strip():
        return None, "the reply was empty"
    text = content.strip()
    m = re.fullmatch(r"```[A-Za-z0-9_-]*[ \t]*\n(.*)\n[ \t]*```", text, flags=re.DOTALL) or \
        re.search(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n[ \t]*```", text, flags=re.DOTALL)
    if m:
        text = m.group(1).strip()
    elif text[:1] not in "{[":
        start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
        if start > 0:
            text = text[start:]
    try:
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data":
                raise
            # the first JSON value, followed by prose: decode that value only
            value, _end = json.JSONDecoder(parse_constant=_reject_constant).raw_decode(text)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    except (ValueError, RecursionError) as exc:
        return None, f"not valid JSON ({one_line(exc, 80)})"
    errs = schema_errors(value, schema)
    if errs:
        more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
        return None, f"does not match the schema: {one_line(errs[0], 160)}{more}"
    return value, None

