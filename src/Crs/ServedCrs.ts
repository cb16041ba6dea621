import { Effect, Option } from "effect"
import { CrsConfig } from "./Config.ts"
import type { CrsFile } from "./InstalledCrs.ts"

export type CrsFileName = "g1" | "g2"

/** The CRS files GET /crs/* serve, read and checked once at start and kept in memory (about 2 MiB). */
export class ServedCrs extends Effect.Service<ServedCrs>()("Crs/ServedCrs", {
  effect: Effect.gen(function*() {
    const { dir, installed } = yield* CrsConfig
    yield* Option.match(installed, {
      onNone: () =>
        Effect.logInfo(`no proving CRS in CRS_DIR (${dir}): GET /crs/* answer 404 until npm run crs puts one there and the service restarts`),
      onSome: (crs) =>
        Effect.logInfo(
          `serving the proving CRS in CRS_DIR (${dir}): ${crs.kind === "ignition" ? "Aztec Ignition's" : "a test CRS of"} ${crs.points} points`
        )
    })
    return {
      file: (name: CrsFileName): Option.Option<CrsFile> => Option.map(installed, (crs) => crs[name])
    }
  })
}) {}
