#!/usr/bin/env python3
"""security-gate: denies any tool call whose arguments contain `rm -rf`.

Reads the event JSON ({"tool_call": {"name", "args"}, "environment_id"}) on stdin and prints the
decision JSON on stdout. Anything it cannot read is allowed: hooks fail open (spec/HOOKS.md).
"""
import json
import re
import sys

DESTRUCTIVE = re.compile(r"\brm\s+-(rf|fr)\b")


def strings(value):
    """Every string inside the arguments, however deeply nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def decide(event):
    args = event.get("tool_call", {}).get("args", {})
    if any(DESTRUCTIVE.search(text) for text in strings(args)):
        return {"decision": "deny", "reason": "Destructive command blocked by security gate."}
    return {"decision": "allow"}


if __name__ == "__main__":
    try:
        event = json.load(sys.stdin)
    except ValueError:
        event = {}
    print(json.dumps(decide(event if isinstance(event, dict) else {})))
