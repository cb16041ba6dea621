import type { LedgerRange } from "./EventRepo.ts"

/**
 * The ledgers the archive lacks for good (indexer.md "Ingestion Contract": a gap that can no longer be filled is
 * permanent): the holes between its ingested ranges, and before the first one when ingestion was told to start
 * earlier (`EVENTS_START_LEDGER`), as far as they lie below the RPC's retention floor (`oldest`). The part of a hole
 * the RPC still retains is not a gap yet: the ingester fills it. Oldest first.
 */
export const permanentGaps = (
  ranges: ReadonlyArray<LedgerRange>,
  oldest: number,
  start: number | undefined
): ReadonlyArray<LedgerRange> => {
  const holes: Array<LedgerRange> = []
  const first = ranges[0]
  if (first !== undefined && start !== undefined && start < first.from) holes.push({ from: start, to: first.from - 1 })
  for (let i = 1; i < ranges.length; i++) holes.push({ from: ranges[i - 1]!.to + 1, to: ranges[i]!.from - 1 })
  return holes.filter((hole) => hole.from < oldest).map((hole) => ({ from: hole.from, to: Math.min(hole.to, oldest - 1) }))
}
