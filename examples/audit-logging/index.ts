/**
 * audit-logging (spec/HOOKS.md, worked example 3): after every file view, write or edit, an HTTP hook
 * POSTs the event to the telemetry endpoint. The token never enters hooks.json: the egress proxy injects
 * it on the wire from the allowlist entry's transform, which is a Pulumi secret (encrypted in state).
 */
import * as pulumi from "@pulumi/pulumi";
import { group, GuardedEnvironment, HookBundle, http, NetworkPolicy } from "pulumi-gemini-environments";

const config = new pulumi.Config();
const token = config.requireSecret("telemetryToken");

const hooks = new HookBundle({
  hooks: {
    "audit-logging": group().after(
      "view_file|write_to_file|replace_file_content",
      http("https://telemetry.example.com/api/v1/agent-events", { timeout: 10 }),
    ),
  },
});

const network = NetworkPolicy.allowlist()
  .allow("telemetry.example.com", { transform: { Authorization: pulumi.interpolate`Bearer ${token}` } })
  .allow("*"); // every other domain too; headers are injected for telemetry.example.com only

const env = new GuardedEnvironment("audit-logging", {
  hooks,
  network,
  sources: [{ type: "inline", target: "workspace/notes.md", content: "# Notes\n\nEvery read and write of this file is audited.\n" }],
});

export const environmentId = env.environmentId;
export const status = env.status;
export const fileCount = env.fileCount;
