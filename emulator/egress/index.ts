/** The egress proxy: network policy, header and credential injection, HTTP hook delivery (README.md). */
export { EgressProxy, sweepSocketDirectories } from "./proxy";
export type { EgressAttachment, EgressContext, EgressProxyOptions } from "./proxy";
export type { HttpHookDelivery, HttpHookRequest } from "./hook-delivery";
export { injectionFor, networkDisabled, policyRefusal } from "./policy";
export { parseRoutes } from "./upstream";
export type { CredentialResolver, EgressCredential, Injection } from "./policy";
