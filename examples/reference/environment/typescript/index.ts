import { Environment } from "pulumi-gemini-environments";

const agent = new Environment("agent", {
    sources: [{ type: "inline", target: "workspace/TASK.md", content: "Triage the open issues.\n" }],
    network: { allowlist: [{ domain: "api.github.com" }] },
});

export const environmentId = agent.id;
export const status = agent.status;
