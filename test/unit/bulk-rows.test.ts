import { describe, expect, it } from "@effect/vitest"
import { BulkRows } from "../../src/Contractors/BulkRows.ts"

const G = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"
const C = "CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR"

const reasons = (rows: ReadonlyArray<unknown>) => BulkRows.validate(rows).errors.map((e) => `${e.row}: ${e.reason}`)

describe("BulkRows.validate", () => {
  it("keeps valid rows with their index, blanks as null, numbers as decimal text", () => {
    const { valid, errors } = BulkRows.validate([
      { name: "Ada", email: "ada@example.com", address: G, amount: "1500" },
      { name: "Grace", email: "", address: null, amount: 1200.5 },
      { name: "Contract", address: C }
    ])
    expect(errors).toEqual([])
    expect(valid).toEqual([
      { row: 0, name: "Ada", email: "ada@example.com", address: G, amount: "1500" },
      { row: 1, name: "Grace", email: null, address: null, amount: "1200.5" },
      { row: 2, name: "Contract", email: null, address: C, amount: null }
    ])
  })

  it("names each field's problem by row", () => {
    expect(reasons([
      "not an object",
      [],
      { name: "" },
      { name: "x".repeat(201) },
      { name: "A", email: "bad" },
      { name: "A", address: "GNOTANADDRESS" },
      { name: "A", amount: "-1" },
      { name: "A", amount: "1.12345678" },
      { name: "A", amount: 1e21 }
    ])).toEqual([
      "0: row must be an object",
      "1: row must be an object",
      "2: invalid name: must be 1 to 200 characters",
      "3: invalid name: must be 1 to 200 characters",
      "4: invalid email",
      "5: invalid address: must be a Stellar G... or C... address",
      "6: invalid amount: must be a positive number with at most 7 decimal places",
      "7: invalid amount: must be a positive number with at most 7 decimal places",
      "8: invalid amount: must be a positive number with at most 7 decimal places"
    ])
  })

  it("refuses text the store cannot hold, in any field", () => {
    const [nul, surrogate] = reasons([{ name: "A\u0000B" }, { name: "A", email: "a\ud800@example.com" }])
    expect(nul).toMatch(/^0: invalid name: .*NUL/)
    expect(surrogate).toMatch(/^1: invalid email: /)
  })

  it("refuses duplicates within the import: emails in any case, addresses exactly", () => {
    expect(reasons([
      { name: "A", email: "Ada@Example.com" },
      { name: "B", email: "ada@example.com" },
      { name: "C", address: G },
      { name: "D", address: G }
    ])).toEqual(["1: duplicate email in the import", "3: duplicate address in the import"])
  })
})
