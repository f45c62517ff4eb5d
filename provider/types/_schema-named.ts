/**
 * A zod type as schema.json names it: every object key in camelCase, however deep (`pre_tool_execution`
 * → `preToolExecution`, as `schemaName` renames it for the schema), a map's own keys (group names,
 * header names) kept. The provider takes either spelling (`withWireNames`); these types say the one
 * every SDK documents.
 */
type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name;

export type SchemaNamed<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends ReadonlyArray<infer Item>
    ? Array<SchemaNamed<Item>>
    : string extends keyof T
      ? { [key: string]: SchemaNamed<T[string & keyof T]> }
      : { [K in keyof T as K extends string ? CamelCase<K> : K]: SchemaNamed<T[K]> };
