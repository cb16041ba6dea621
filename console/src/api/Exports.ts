import { useMutation, useQuery } from "@tanstack/react-query"
import { DateTime } from "effect"
import type { BatchId } from "@confidential-payroll/client/contract"
import { run } from "./Client.ts"
import { useClient } from "./useClient.ts"

/** A range from the form's local date-times (read in the user's time zone); empty ends are open. */
export interface Range {
  readonly from: string
  readonly to: string
}

const range = ({ from, to }: Range) => ({
  ...(from === "" ? {} : { from: DateTime.unsafeMake(new Date(from)) }),
  ...(to === "" ? {} : { to: DateTime.unsafeMake(new Date(to)) })
})

export type ExportName = "payouts" | "contractors" | "audit"

/** Hands a CSV the typed client fetched to the browser as a file download. */
const save = (name: string, csv: string) => {
  const url = URL.createObjectURL(new Blob([csv], { type: "text/csv;charset=utf-8" }))
  const link = document.createElement("a")
  link.href = url
  link.download = name
  document.body.append(link)
  link.click()
  link.remove()
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export const useExport = () => {
  const client = useClient()
  return useMutation({
    mutationFn: async ({ name, within, batchId }: { readonly name: ExportName; readonly within: Range; readonly batchId?: BatchId | undefined }) => {
      const csv = name === "payouts"
        ? await run(client.exports.payouts({ urlParams: { ...range(within), ...(batchId === undefined ? {} : { batchId }) } }))
        : name === "audit"
        ? await run(client.exports.audit({ urlParams: range(within) }))
        : await run(client.exports.contractors())
      save(`${name}.csv`, csv)
      return { name, rows: Math.max(0, csv.split("\r\n").filter((line) => line !== "").length - 1) }
    }
  })
}

export const useStatistics = (within: Range) => {
  const client = useClient()
  return useQuery({
    queryKey: ["statistics", within.from, within.to],
    queryFn: ({ signal }) => run(client.exports.statistics({ urlParams: range(within) }), signal)
  })
}
