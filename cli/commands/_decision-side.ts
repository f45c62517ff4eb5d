/** One side of a hooks diff: a verdict as the reports show it (`genv hooks diff`, cases and recorded calls). */
import type { HooksVerdict } from "../../hooks/runtime";

export interface Side {
  decision: "allow" | "deny";
  reason?: string;
  /** Hooks that failed open, as `group/event: failure`. */
  failedOpen: string[];
}

export function sideOf(verdict: HooksVerdict): Side {
  return {
    decision: verdict.decision,
    ...(verdict.reason !== undefined && { reason: verdict.reason }),
    failedOpen: verdict.hooks.filter((hook) => hook.failure !== undefined).map((hook) => `${hook.group || hook.handler}/${hook.event}: ${hook.failure}`),
  };
}

/** `deny (reason) — fails open: …`. */
export function describeSide(side: Side): string {
  return `${side.decision}${side.reason !== undefined ? ` (${side.reason})` : ""}${side.failedOpen.length > 0 ? ` — fails open: ${side.failedOpen.join("; ")}` : ""}`;
}
