import { describe, expect, it } from "@effect/vitest"
import { Cause, Exit } from "effect"
import { itemResult as resultOf } from "../../src/BatchRuns/ItemResult.ts"
import { Forbidden, InvalidRequest, UpstreamUnavailable } from "../../src/Domain/Errors.ts"
import { SponsorRefused, TransferRejected, TransferResult, TransferTimeout } from "../../src/Domain/Transfer.ts"

describe("batch-run item results", () => {
  it("each outcome by its tag: SUCCESS, FAILED, TIMEOUT, ERROR, REFUSED", () => {
    expect(resultOf(0, "inner", Exit.succeed(new TransferResult({ hash: "outer", status: "SUCCESS" }))))
      .toEqual({ i: 0, hash: "outer", status: "SUCCESS", error: null })
    expect(resultOf(1, "inner", Exit.fail(new TransferRejected({ error: "the transaction failed on the ledger", hash: "outer", resultCode: "txFailed" }))))
      .toEqual({ i: 1, hash: "outer", status: "FAILED", error: "the transaction failed on the ledger (txFailed)" })
    expect(resultOf(2, "inner", Exit.fail(new TransferTimeout({ error: "not final", hash: "outer" }))))
      .toEqual({ i: 2, hash: "outer", status: "TIMEOUT", error: "not final" })
    expect(resultOf(3, "inner", Exit.fail(new UpstreamUnavailable({ error: "rpc down" }))))
      .toEqual({ i: 3, hash: "inner", status: "ERROR", error: "rpc down" })
    expect(resultOf(4, "inner", Exit.fail(new SponsorRefused({ rule: "fee", error: "too dear" }))))
      .toEqual({ i: 4, hash: "inner", status: "REFUSED", error: "too dear" })
    expect(resultOf(5, "inner", Exit.fail(new Forbidden({ error: "not ours" })))).toMatchObject({ status: "REFUSED", error: "not ours" })
    expect(resultOf(6, "", Exit.fail(new InvalidRequest({ error: "garbage" })))).toMatchObject({ hash: "", status: "REFUSED" })
  })

  it("a defect is an ERROR that leaks nothing", () => {
    expect(resultOf(7, "inner", Exit.failCause(Cause.die(new Error("secret internals")))))
      .toEqual({ i: 7, hash: "inner", status: "ERROR", error: "internal error" })
  })
})
