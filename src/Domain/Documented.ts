import type { Array, Schema } from "effect"

/**
 * A class's description and examples, the examples checked against its fields: a class cannot name its own type in
 * the expression it extends (TypeScript reports a circular base type), so they are typed by the fields instead. The
 * OpenAPI document shows them encoded (dates as ISO strings, absent options left out). The answer is typed
 * `Annotations.Schema<any>` on purpose: the class's own type, the one it should carry, is what cannot be named here,
 * and neither `unknown` nor `never` fits the class's annotations parameter (its functions take the class's type).
 */
export const documented = <Fields extends Schema.Struct.Fields>(
  _fields: Fields,
  annotations: {
    readonly description: string
    readonly examples: Array.NonEmptyReadonlyArray<Schema.Struct.Type<Fields>>
  }
): Schema.Annotations.Schema<any> => annotations
