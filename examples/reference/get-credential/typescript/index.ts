import * as pulumi from "@pulumi/pulumi";
import { Environment, getCredentialOutput } from "pulumi-gemini-environments";

const config = new pulumi.Config();
const github = getCredentialOutput({ credentialId: config.require("credentialId") });

const agent = new Environment("agent", {
    network: { allowlist: [{ domain: "api.github.com", credential: github.credentialId }] },
});

export const credentialType = github.type;
export const credentialStatus = github.status;
export const environmentId = agent.id;
