/**
 * schema.json's named types by the schema's names, for TypeScript programs: `types.input.EgressPolicyArgs`,
 * `types.output.EnvironmentInfo`, `types.enums.SourceType`, laid out as a generated Node.js SDK lays
 * them out. test/unit/schema/typescript-names.test.ts keeps their properties equal to the schema's.
 */
export type * as input from "./input";
export type * as output from "./output";
export type * as enums from "./enums";
