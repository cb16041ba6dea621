import { Schema } from "effect"

/** An optional field of a response: `Option` in the service, an absent key in JSON. */
export const Optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { as: "Option", exact: true })

/**
 * Decodes a database row (`fields`: the columns, with their database encodings such as `OptionFromNullOr` and
 * `DateTimeUtcFromDate`) straight into an instance of the API class `Class`, which has the same keys.
 */
export const fromRow = <Fields extends Schema.Struct.Fields, A, I>(
  Class: Schema.Schema<A, I, never> & (new(props: Schema.Struct.Type<Fields>) => A),
  fields: Fields
) =>
  Schema.transform(Schema.Struct(fields), Schema.typeSchema(Class), {
    strict: false,
    decode: (row) => new Class(row as Schema.Struct.Type<Fields>),
    encode: (value) => value
  })
