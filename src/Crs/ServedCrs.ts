import { Effect } from "effect"
import { CrsConfig } from "./Config.ts"
import type { CrsFile } from "./InstalledCrs.ts"

export type CrsFileName = "g1" | "g2"

/** The CRS files GET /crs/* serve, read and checked once at start and kept in memory (about 2 MiB). */
export class ServedCrs extends Effect.Service<ServedCrs>()("Crs/ServedCrs", {
  effect: Effect.gen(function*() {
    const { dir, installed } = yield* CrsConfig
    yield* Effect.logInfo(`serving the proving CRS in CRS_DIR (${dir}): Aztec Ignition's first ${installed.points} points`)
    return {
      file: (name: CrsFileName): CrsFile => installed[name]
    }
  })
}) {}
