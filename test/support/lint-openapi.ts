// `npm run lint:openapi`: Redocly's recommended rules (redocly.yaml) on the document GET /openapi.json serves, built
// here from the same contract and settings (test/openapi-docs.test.ts checks both are the same), with no network.
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Api } from "../../src/Api.ts"
import { deployment, openApiDocument } from "../../src/Http/OpenApiDocument.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const document = await Effect.runPromise(Effect.map(deployment, (d) => openApiDocument(Api, d)))
mkdirSync(join(root, ".data"), { recursive: true })
writeFileSync(join(root, ".data", "openapi.json"), JSON.stringify(document, null, 2))

const redocly = join(root, "node_modules", "@redocly", "cli", "bin", "cli.js")
const lint = spawnSync(process.execPath, [redocly, "lint", ".data/openapi.json", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }
})
process.exit(lint.status ?? 1)
