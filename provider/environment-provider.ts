/**
 * The Environment dynamic provider at the path that stacks made before provider/ was grouped by resource
 * hold in their state (`require("pulumi-gemini-environments/dist/provider/environment-provider.js")`): their
 * serialized provider keeps loading from here. New stacks record environment/dynamic-provider.
 */
export * from "./environment/dynamic-provider";
