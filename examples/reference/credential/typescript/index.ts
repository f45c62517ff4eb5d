import * as pulumi from "@pulumi/pulumi";
import { Credential, Environment } from "pulumi-gemini-environments";

const config = new pulumi.Config();

const github = new Credential("github", {
    credentialId: "github-token",
    type: "bearer_token",
    token: config.requireSecret("githubToken"),
});

const agent = new Environment("agent", {
    network: { allowlist: [{ domain: "api.github.com", credential: github.credentialId }] },
});

export const credentialId = github.credentialId;
export const environmentId = agent.id;
