import { getCredentialsOutput } from "pulumi-gemini-environments";

export const credentials = getCredentialsOutput().credentials;
