import { Config, Either } from "effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { installedCrs } from "./InstalledCrs.ts"

/** Aztec Ignition's prefix as the project carries it (client/crs): the same two levels up from src/Crs and dist/server. */
export const BUNDLED_CRS_DIR = fileURLToPath(new URL("../../client/crs", import.meta.url))

/** CRS_DIR, else the project's own copy of Ignition's files. */
const CrsDir = Config.string("CRS_DIR").pipe(Config.withDefault(BUNDLED_CRS_DIR), Config.map((dir) => Path.resolve(dir)))

/**
 * The proving CRS in CRS_DIR, read and checked with the other settings, before the database starts: a refused
 * setting naming CRS_DIR when a file is missing or unreadable, or is not Aztec Ignition's.
 */
export const CrsConfig = Config.all({ dir: CrsDir }).pipe(
  Config.mapOrFail(({ dir }) => Either.map(installedCrs(dir), (installed) => ({ dir, installed })))
)
export type CrsConfig = Config.Config.Success<typeof CrsConfig>
