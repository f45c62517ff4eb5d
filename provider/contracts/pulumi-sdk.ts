/**
 * The parts of `@pulumi/pulumi` that the provider's resources and components use, under the names
 * its index gives them (`import * as pulumi from "../contracts/pulumi-sdk"` reads as usual).
 *
 * Not the index itself: it also loads the Automation API (npm's arborist, pacote, …), about 0.4 s
 * of module loading that the plugin paid in its first `construct` of every operation, for nothing
 * a resource uses. The classes are the index's own (the same modules), so a program mixing both
 * imports sees one `Output`, one `Resource`.
 */
export * from "@pulumi/pulumi/config";
export * from "@pulumi/pulumi/errors";
export * from "@pulumi/pulumi/metadata";
export * from "@pulumi/pulumi/output";
export * from "@pulumi/pulumi/resource";
export * as dynamic from "@pulumi/pulumi/dynamic";
export * as log from "@pulumi/pulumi/log";
