import { describe, expect, it } from "@effect/vitest"
import { contractorRows, parseCsv } from "../../console/src/lib/Csv.ts"

describe("the console's CSV import", () => {
  it("reads RFC 4180: quotes, doubled quotes, commas and line breaks in cells, CRLF, a BOM, blank lines", () => {
    const text = "\uFEFFname,email\r\n\"Lovelace, Ada\",ada@example.com\r\n\"Grace \"\"Amazing\"\" Hopper\",\"g@example.com\"\n\n\"two\nlines\",\n"
    expect(parseCsv(text)).toEqual([
      ["name", "email"],
      ["Lovelace, Ada", "ada@example.com"],
      ["Grace \"Amazing\" Hopper", "g@example.com"],
      ["two\nlines", ""]
    ])
  })

  it("maps the named columns in any order and case, leaving out empty cells", () => {
    expect(contractorRows("Amount,NAME,address\n4500,Ada,GABC\n,Grace,\n")).toEqual({
      rows: [{ name: "Ada", address: "GABC", amount: "4500" }, { name: "Grace" }]
    })
    expect(contractorRows("")).toEqual({ problem: "the file is empty" })
    expect(contractorRows("email\nx@example.com")).toMatchObject({ problem: expect.stringContaining("name") })
    expect(contractorRows("name\n")).toEqual({ problem: "the file has a header row but no contractor" })
  })
})
