#!/usr/bin/env python3
"""privacy-gate: denies view_file on any path containing `/private/`.

The reason tells the model where to go instead, so that it recovers in the same interaction and, in
a follow-up interaction in the same environment, reads the public summary. Fails open on bad input.
"""
import json
import sys

REASON = (
    "Access to confidential `/private/` records is blocked by PII compliance policy. "
    "Query approved `/public/` summary tables instead."
)


def decide(event):
    tool_call = event.get("tool_call", {})
    if tool_call.get("name") != "view_file":
        return {"decision": "allow"}
    args = tool_call.get("args", {})
    paths = [value for value in args.values() if isinstance(value, str)] if isinstance(args, dict) else []
    if any("/private/" in ("/" + path.lstrip("/")) for path in paths):
        return {"decision": "deny", "reason": REASON}
    return {"decision": "allow"}


if __name__ == "__main__":
    try:
        event = json.load(sys.stdin)
    except ValueError:
        event = {}
    print(json.dumps(decide(event if isinstance(event, dict) else {})))
