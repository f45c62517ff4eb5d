/**
 * A policy case: a tool call and the decision the hooks must give it (`genv hooks test`, `genv hooks
 * diff`, a `HookBundle`'s `tests`). The runner is the emulator's (`emulator/sandbox/policy-cases.ts`): cases
 * run in its sandbox.
 */
import { z } from "zod";
import { ToolCall } from "../client/schemas";
import { Decision, HookEventName } from "./schema";

export const HooksTestCase = z.strictObject({
  name: z.string().optional().meta({ description: "Shown in the results; default `#<index> <tool>`." }),
  tool_call: ToolCall.meta({ description: 'The tool call: `{name, args}`, e.g. `{name: "code_execution", args: {code: "rm -rf /"}}`.' }),
  event: HookEventName.default("pre_tool_execution").meta({ description: "The hooks that decide: `pre_tool_execution` (default) or `post_tool_execution`." }),
  expect: Decision.meta({ description: "The decision expected: `allow` or `deny`." }),
  reason: z.string().optional().meta({ description: "A substring the deny's reason must contain." }),
  error: z.string().optional().meta({ description: "The post payload's `error`, as after a failed tool." }),
}).meta({ description: "A policy case: a tool call and the decision the hooks must give it, with an optional substring of the deny's reason." });
export type HooksTestCase = z.infer<typeof HooksTestCase>;
/** A case as written by hand: `event` may be left out. */
export type HooksTestCaseInput = z.input<typeof HooksTestCase>;
export const HooksTestCases = z.array(HooksTestCase, { error: "must be a JSON array of cases" });
