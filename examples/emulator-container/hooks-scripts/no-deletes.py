#!/usr/bin/env python3
"""no-deletes: denies a code_execution call whose code deletes files (rm, rmdir, unlink, os.remove, shutil.rmtree).

Reads the event JSON ({"tool_call": {"name", "args"}, "environment_id"}) on stdin and prints the decision
JSON on stdout; what it cannot read is allowed, as hooks fail open (spec/HOOKS.md).
"""
import json
import re
import sys

DELETES = re.compile(r"\b(rm|rmdir|unlink)\s|os\.remove\(|shutil\.rmtree\(")

try:
    code = json.load(sys.stdin)["tool_call"]["args"]["code"]
except (ValueError, KeyError, TypeError):
    code = ""
if isinstance(code, str) and DELETES.search(code):
    print(json.dumps({"decision": "deny", "reason": "This workspace keeps its files: deletes are blocked."}))
else:
    print(json.dumps({"decision": "allow"}))
