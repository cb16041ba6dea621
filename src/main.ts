import { fileURLToPath } from "node:url"
import { freshBundle } from "./ServerBundle.ts"
import { DEFAULT_DATA_DIR, prepareCluster } from "./Sql/FirstStart.ts"

/**
 * The entry point (`npm start`). On a first start with the embedded database, initdb takes about as long as loading
 * the rest of the service, so it is started first, from a plain-Node module, and runs meanwhile; the database layer
 * then finds the cluster prepared or waits for it, and reports any failure itself (a failure here is not kept).
 */
if ((process.env.DATABASE_URL ?? "") === "") {
  prepareCluster(process.env.DATA_DIR ?? DEFAULT_DATA_DIR, true).catch(() => undefined)
}

// The bundle loads in about a third of the time the ~2,000 modules take one by one; a stale one is never used.
await import(freshBundle(fileURLToPath(new URL("..", import.meta.url))) ?? "./Launch.ts")
