import { readFileSync, statSync } from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

/**
 * The bundled service (dist/server/launch.mjs, built by scripts/build-server.ts at `npm install` and by `npm run
 * build`) when it is newer than every project file it was built from and than the installed packages
 * (package.json, package-lock.json); none when it is missing or stale, e.g. after an edit under src/: the service then
 * loads from source. Plain Node only: it runs before anything else is loaded.
 */
export const freshBundle = (root: string): string | undefined => {
  try {
    const bundle = Path.join(root, "dist", "server", "launch.mjs")
    const built = statSync(bundle).mtimeMs
    const { inputs } = JSON.parse(readFileSync(Path.join(root, "dist", "server", "inputs.json"), "utf8")) as { inputs: Array<string> }
    for (const file of [...inputs, "package.json", "package-lock.json"]) {
      if (statSync(Path.join(root, file)).mtimeMs > built) return undefined
    }
    return pathToFileURL(bundle).href
  } catch {
    return undefined
  }
}
