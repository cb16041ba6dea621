import { Effect, Option } from "effect"
import type { Contractor, ContractorStatus } from "../Domain/Contractor.ts"
import type { Outbox } from "../Sql/Outbox.ts"

/** The webhook event a contractor becoming `ready` reports. */
export const CONTRACTOR_READY = "contractor.ready"

/**
 * Writes `contractor.ready` to the outbox for each of `rows` that is ready now and was not before (`before`: the
 * status it had, when the caller knows it). Runs inside the caller's transaction, the one that made it ready.
 */
export const announceReady = (outbox: Outbox, rows: ReadonlyArray<Contractor>, before?: ContractorStatus) =>
  Effect.forEach(
    rows.filter((row) => row.status === "ready" && before !== "ready"),
    (row) =>
      outbox.emit({
        orgId: row.orgId,
        type: CONTRACTOR_READY,
        data: { contractorId: row.id, address: Option.getOrNull(row.address) }
      }),
    { discard: true }
  )
