#!/usr/bin/env bash
# The one script the workflows call (.github/workflows/): every step a pull request or a deploy of
# the guardrails needs, so that CI systems other than GitHub Actions run the same thing.
#
#   ci/check.sh pr       lint the hooks, run the policy cases, diff the decisions against the base
#                        branch (BASE_REF, default origin/main) and `pulumi preview --diff` against an
#                        emulator (EMULATOR_URL and EMULATOR_KEY, e.g. a service container, else a
#                        throwaway `genv serve --in-memory`); writes the report (markdown, for a PR comment) to
#                        REPORT (default policy-report.md). Exit 1 when a case fails, or when a decision
#                        changed and BLOCK_ON_POLICY_CHANGE=true.
#   ci/check.sh deploy   `pulumi up` of STACK (default prod) against GOOGLE_GEMINI_BASE_URL, or the
#                        hosted API when unset, with GOOGLE_API_KEY; first `genv recover` when an
#                        interrupted deploy left pending operations.
#
# Needs `genv` (the package's bin: npx genv) and `pulumi` on PATH, and a selected Pulumi backend.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
genv=(npx --no-install genv)

case "$mode" in
  pr)
    report="${REPORT:-policy-report.md}"
    base="${BASE_REF:-origin/main}"
    failed=0
    : > "$report"

    echo "--- genv hooks lint" >&2
    "${genv[@]}" hooks lint .agents/hooks.json >&2 || failed=1

    echo "--- genv hooks test" >&2
    "${genv[@]}" hooks test .agents/hooks.json --scripts .agents/hooks-scripts --cases policy/cases.json >&2 || failed=1

    echo "--- genv hooks diff against $base" >&2
    set +e
    "${genv[@]}" hooks diff --base "$base" --path .agents --cases policy/cases.json --format markdown >> "$report"
    diff_status=$?
    set -e
    if [ "$diff_status" -gt 1 ]; then failed=1; fi
    if [ "$diff_status" -eq 1 ] && [ "${BLOCK_ON_POLICY_CHANGE:-false}" = "true" ]; then failed=1; fi

    echo "--- pulumi preview --diff against an emulator" >&2
    # EMULATOR_URL and EMULATOR_KEY: one already running (a CI service container); else a throwaway one.
    url="${EMULATOR_URL:-}"
    key="${EMULATOR_KEY:-}"
    if [ -z "$url" ]; then
      key="ci-$(date +%s)-$$"
      serve_log="$(mktemp)"
      "${genv[@]}" serve --port 0 --in-memory --api-key "$key" > "$serve_log" 2>&1 &
      serve_pid=$!
      trap 'kill "$serve_pid" 2>/dev/null || true; rm -f "$serve_log"' EXIT
      for _ in $(seq 300); do grep -q '^http' "$serve_log" && break; sleep 0.1; done
      url="$(grep -m1 '^http' "$serve_log" || true)"
      if [ -z "$url" ]; then
        echo "genv serve did not start:" >&2
        cat "$serve_log" >&2
        exit 1
      fi
    fi
    pulumi stack select --create "${STACK:-pr}" >&2
    {
      printf '\n### pulumi preview --diff\n\n```diff\n'
      GOOGLE_GEMINI_BASE_URL="$url" GOOGLE_API_KEY="$key" pulumi preview --diff --non-interactive --color never 2>&1 || failed=1
      printf '```\n'
    } >> "$report"

    cat "$report"
    exit "$failed"
    ;;
  deploy)
    pulumi stack select --create "${STACK:-prod}" >&2
    # A cancelled or preempted deploy leaves pending operations: adopt what its creates made before
    # `up` makes them again (`genv recover` refuses, exit 1, when it cannot tell; its message says how
    # to finish by hand). The killed run's lock must be released first (`pulumi cancel`).
    if pulumi stack export | node -e 'process.exit((JSON.parse(require("fs").readFileSync(0, "utf8")).deployment.pending_operations ?? []).length > 0 ? 0 : 1)'; then
      echo "--- genv recover (the last deploy was interrupted)" >&2
      "${genv[@]}" recover >&2
    fi
    pulumi up --yes --non-interactive --color never
    ;;
  *)
    echo "usage: ci/check.sh pr|deploy" >&2
    exit 2
    ;;
esac
