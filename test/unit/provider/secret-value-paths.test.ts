/**
 * `secretValuePaths` (contracts/resource-schema.ts): where a value holds what its schema marks secret,
 * the paths the plugin's Invoke wraps as secrets and the TypeScript functions' outputs make secret.
 */
import { z } from "zod";
import { secretValuePaths } from "../../../provider/contracts/resource-schema";

const Entry = z.object({ domain: z.string(), transform: z.array(z.record(z.string(), z.string())).optional().meta({ description: "headers", secret: true }) });
const Result = z.object({
  id: z.string(),
  network: z.union([z.object({ allowlist: z.array(Entry) }), z.object({ disabled: z.literal(true) })]).optional(),
  key: z.string().optional().meta({ description: "a key", secret: true }),
});

test("each secret value's path, however deep, through arrays and the union's branch that reads the value", () => {
  const value = { id: "env_a", network: { allowlist: [{ domain: "a.example" }, { domain: "b.example", transform: [{ Authorization: "Bearer t" }] }] }, key: "k" };
  expect(secretValuePaths(Result, value)).toEqual([["network", "allowlist", 1, "transform"], ["key"]]);
});

test("none where the secret properties are absent", () => {
  expect(secretValuePaths(Result, { id: "env_a", network: { disabled: true } })).toEqual([]);
  expect(secretValuePaths(Result, { id: "env_a" })).toEqual([]);
});
