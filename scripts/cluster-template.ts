// Makes the cluster template that a first start of the embedded PostgreSQL copies instead of running initdb (about
// 0.2 s instead of a second; src/Sql/FirstStart.ts): node_modules/.cache/confidential-payroll/pg-<binaries' version>.
// Run by `npm install` (prepare) and `npm run build`. It never fails an install: without a template (binaries that
// cannot run here, a checkout the `postgres` user cannot reach as root), first starts run initdb as before.
import { makeTemplate } from "../src/Sql/FirstStart.ts"

const started = performance.now()
try {
  const { dir, made } = await makeTemplate()
  console.log(made
    ? `cluster-template: ${dir} in ${Math.round(performance.now() - started)} ms`
    : `cluster-template: ${dir} is there already`)
} catch (error) {
  console.warn(`cluster-template: none made, first starts of the embedded PostgreSQL run initdb: ${error instanceof Error ? error.message : String(error)}`)
}
