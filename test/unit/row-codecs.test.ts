import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import {
  Batch,
  batchFromRow,
  BatchFromRow,
  batchToJson,
  Payout,
  payoutFromRow,
  PayoutFromRow,
  payoutToJson
} from "../../src/Domain/Batch.ts"
import { ArchiveEventPage, archiveEventPageToJson } from "../../src/Archive/Event.ts"
import { Contractor, contractorFromRow, contractorToJson } from "../../src/Domain/Contractor.ts"

/**
 * The hand-written codecs of the lists read on every request, against the schemas they stand in for: on generated
 * values (every Option some or none, any times the schemas allow), each answers exactly what Schema's decoder or
 * encoder answers, key for key.
 */
const holdsTo = <A extends Shown, I, Row, Shown, Json>(name: string, codec: {
  readonly Type: Schema.Schema<A, I>
  readonly Row: Schema.Schema<A, Row>
  /** What the API shows: the value, or a part of it. */
  readonly Json: Schema.Schema<Shown, Json>
  readonly fromRow: (row: Row) => A
  readonly toJson: (value: A) => Json
}) =>
  describe(`the ${name}'s hand-written codecs`, () => {
    const values = Arbitrary.make(codec.Type)
    const encodeRow = Schema.encodeSync(codec.Row)
    const decodeRow = Schema.decodeUnknownSync(codec.Row)
    const encodeJson = Schema.encodeSync(codec.Json)

    it("a row decodes as Schema decodes it", () => {
      fc.assert(fc.property(values, (value) => {
        const row = encodeRow(value)
        const fast = codec.fromRow(row)
        expect(fast).toStrictEqual(decodeRow(row))
        expect(encodeRow(fast)).toStrictEqual(row)
      }), { numRuns: 300, seed: 18 })
    })

    it("a value encodes as the API's schema encodes it", () => {
      fc.assert(fc.property(values, (value) => {
        const fast = codec.toJson(value)
        const reference = encodeJson(value)
        expect(fast).toStrictEqual(reference)
        expect(Object.keys(fast as object)).toEqual(Object.keys(reference as object))
      }), { numRuns: 300, seed: 18 })
    })
  })

holdsTo("contractor", {
  Type: Contractor,
  Row: Contractor,
  Json: Contractor.json,
  fromRow: contractorFromRow,
  toJson: contractorToJson
})
holdsTo("batch", { Type: Batch, Row: BatchFromRow, Json: Batch, fromRow: batchFromRow, toJson: batchToJson })
holdsTo("payout", { Type: Payout, Row: PayoutFromRow, Json: Payout, fromRow: payoutFromRow, toJson: payoutToJson })

describe("the archive's hand-written page encoder", () => {
  it("a page of events encodes as ArchiveEventPage encodes it, key for key", () => {
    const encode = Schema.encodeSync(ArchiveEventPage)
    fc.assert(fc.property(Arbitrary.make(ArchiveEventPage), (page) => {
      const fast = archiveEventPageToJson(page)
      expect(fast).toStrictEqual(encode(page))
      expect(fast.events.map((event) => Object.keys(event))).toEqual(encode(page).events.map((event) => Object.keys(event)))
    }), { numRuns: 200, seed: 18 })
  })
})
