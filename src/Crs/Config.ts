import { Config, Either, Option } from "effect"
import * as Path from "node:path"
import { NetworkPassphrase } from "../Config.ts"
import { DEFAULT_DATA_DIR } from "../EmbeddedPostgres/FirstStart.ts"
import { installedCrs } from "./InstalledCrs.ts"

/** CRS_DIR, else DATA_DIR/crs: where `npm run crs` writes (`crsDirFromEnv`, client/src/confidential/proving/CrsFiles.ts). */
const CrsDir = Config.all({
  crsDir: Config.option(Config.string("CRS_DIR")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR))
}).pipe(Config.map(({ crsDir, dataDir }) => Path.resolve(Option.getOrElse(crsDir, () => Path.join(dataDir, "crs")))))

/**
 * The proving CRS in CRS_DIR, read and checked against NETWORK_PASSPHRASE with the other settings, before the
 * database starts: none when the directory holds neither file; a refused setting naming CRS_DIR when it holds one
 * file, a malformed CRS, or a test CRS for testnet or the public network.
 */
export const CrsConfig = Config.all({ dir: CrsDir, networkPassphrase: NetworkPassphrase }).pipe(
  Config.mapOrFail(({ dir, networkPassphrase }) => Either.map(installedCrs(dir, networkPassphrase), (installed) => ({ dir, installed })))
)
export type CrsConfig = Config.Config.Success<typeof CrsConfig>
