/**
 * The Credential dynamic provider at the path that stacks made before provider/ was grouped by resource
 * hold in their state (`require("pulumi-gemini-environments/dist/provider/credential-provider.js")`): their
 * serialized provider keeps loading from here. New stacks record credential/dynamic-provider.
 */
export * from "./credential/dynamic-provider";
