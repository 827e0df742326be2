"""Checks recorded model requests against a JSON Schema of each wire's
request body (tests/model-server/schemas/*.request.schema.json: our
transcription of the wire reference, strict on message objects), so a member
a wire does not define (finish_reason on a Chat message, say) fails a test
instead of failing at a strict server."""
import json
import os

import jsonschema

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model-server", "schemas")

# The request path's ending → the schema of its body.
ROUTES = [
    ("/chat/completions", "openai-chat"),
    ("/responses", "openai-responses"),
    ("/messages", "anthropic-messages"),
    (":generateContent", "gemini-generate-content"),
    (":streamGenerateContent", "gemini-generate-content"),
    ("/api/chat", "ollama-chat"),
]

_validators = {}


def validator(name):
    if name not in _validators:
        with open(os.path.join(SCHEMA_DIR, name + ".request.schema.json")) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        _validators[name] = jsonschema.Draft202012Validator(schema)
    return _validators[name]


def schema_for(path):
    for suffix, name in ROUTES:
        if path.split("?")[0].endswith(suffix):
            return name
    return None


def problems(request):
    """The schema errors of one recorded request ({method, path, body, …}),
    as readable lines; [] when it conforms. A model POST on an unknown route
    is a problem too: every request must be checked by something."""
    name = schema_for(request["path"])
    if name is None:
        return [f"{request['path']}: no request schema for this route"]
    out = []
    for e in sorted(validator(name).iter_errors(request["body"]), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in e.absolute_path) or "(body)"
        # oneOf/anyOf failures say little; name the member that broke them.
        detail = "; ".join(sorted({c.message for c in (e.context or [])}))[:400]
        out.append(f"{name} {where}: {e.message[:200]}" + (f" [{detail}]" if detail else ""))
    return out


def model_requests(requests):
    return [r for r in requests if r["method"] == "POST" and schema_for(r["path"]) is not None]
