#!/usr/bin/env bash
# The one script the workflows call (.github/workflows/): every step a pull request or a deploy of
# the guardrails needs, so that CI systems other than GitHub Actions run the same thing.
#
#   ci/check.sh pr       lint the hooks, run the policy cases, diff the decisions against the base
#                        branch (BASE_REF, default origin/main) with the PR's fail-open findings (genv hooks
#                        probe; those the base does not have marked new), and `pulumi preview --diff` of STACK (default
#                        prod: the stack being deployed, so the diff is what merging changes) with the policy
#                        pack (POLICY_PACK, default the package's policy-pack/; POLICY_PACK_CONFIG, default
#                        policy/pack-config.json). The preview calls no API (check and diff are local), so
#                        the job needs no GOOGLE_API_KEY, only the state backend (see README). Writes the
#                        report (markdown, for a PR comment: decisions, fail-open findings, impact on recorded calls, policy
#                        violations by rule and resource, the diff) to REPORT (default policy-report.md).
#                        Recorded calls: the JSONL file RECORDED_CALLS (an audit endpoint's), else, with
#                        GOOGLE_GEMINI_BASE_URL and GOOGLE_API_KEY (the emulator), `genv env calls` of each
#                        environment in STACK's state since CALLS_SINCE (default 7d); they are replayed
#                        against the base's hooks and the PR's. Exit 1 when a case fails, a mandatory
#                        policy fails, a decision changed and BLOCK_ON_POLICY_CHANGE=true, or a recorded
#                        call flips as CALLS_FAIL_ON says (any, allow-to-deny, deny-to-allow; default: report).
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
    "${genv[@]}" hooks diff --base "$base" --path .agents --cases policy/cases.json --probe --format markdown >> "$report"
    diff_status=$?
    set -e
    if [ "$diff_status" -gt 1 ]; then failed=1; fi
    if [ "$diff_status" -eq 1 ] && [ "${BLOCK_ON_POLICY_CHANGE:-false}" = "true" ]; then failed=1; fi

    stack="${STACK:-prod}"
    pulumi stack select --create "$stack" >&2
    calls="${RECORDED_CALLS:-}"
    calls_read=""
    if [ -z "$calls" ] && [ -n "${GOOGLE_GEMINI_BASE_URL:-}" ] && [ -n "${GOOGLE_API_KEY:-}" ]; then
      calls="$(mktemp)"
      calls_read="$calls"
      echo "--- genv env calls of stack $stack's environments, since ${CALLS_SINCE:-7d}" >&2
      # Every Environment in the state, whichever provider made it (the plugin's or the dynamic one's type).
      for id in $(pulumi stack export | node -e 'for (const r of JSON.parse(require("fs").readFileSync(0, "utf8")).deployment.resources ?? []) if (/(^|[:/])gemini-environments:(index:)?Environment$/.test(r.type) && r.id) console.log(r.id)'); do
        "${genv[@]}" env calls "$id" --since "${CALLS_SINCE:-7d}" >> "$calls" || failed=1
      done
    fi
    printf '\n' >> "$report"
    if [ -n "$calls" ]; then
      echo "--- genv hooks diff --calls: impact on recorded calls" >&2
      set +e
      "${genv[@]}" hooks diff --base "$base" --path .agents --calls "$calls" --format markdown ${CALLS_FAIL_ON:+--fail-on "$CALLS_FAIL_ON"} >> "$report"
      calls_status=$?
      set -e
      if [ "$calls_status" -ne 0 ]; then failed=1; fi
    else
      printf '### Impact on recorded calls\n\nNo recorded calls: set RECORDED_CALLS to an audit endpoint'"'"'s JSONL, or GOOGLE_GEMINI_BASE_URL and GOOGLE_API_KEY for the emulator'"'"'s record.\n' >> "$report"
    fi

    echo "--- pulumi preview --diff of stack $stack, with the policy pack" >&2
    pack="${POLICY_PACK:-$(node -p 'require("path").join(require("path").dirname(require.resolve("pulumi-gemini-environments/package.json")), "policy-pack")')}"
    events="$(mktemp)"
    preview_log="$(mktemp)"
    trap 'rm -f "$events" "$preview_log" ${calls_read:+"$calls_read"}' EXIT
    # --event-log (a debug flag) gives the policy events as JSON from the same run as the diff.
    set +e
    PULUMI_DEBUG_COMMANDS=true pulumi preview --diff --non-interactive --color never \
      --policy-pack "$pack" --policy-pack-config "${POLICY_PACK_CONFIG:-policy/pack-config.json}" \
      --event-log "$events" > "$preview_log" 2>&1
    preview_status=$?
    set -e
    if [ "$preview_status" -ne 0 ]; then failed=1; fi
    {
      printf '\n'
      "${genv[@]}" policy report --events "$events"
      printf '\n### pulumi preview --diff (stack %s)\n\n```diff\n' "$stack"
      cat "$preview_log"
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
