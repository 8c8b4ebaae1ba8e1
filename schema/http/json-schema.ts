// The JSON Schema (draft 2020-12) object type used by the validator and the OpenAPI document alike.
export interface JsonSchema {
  [keyword: string]: unknown;
}
