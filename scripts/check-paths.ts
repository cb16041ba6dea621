// Every file path a comment or a document names exists (issue 24 §4): paths rooted at a top folder of the project
// (`src/Server/App.ts`, `test/support/TestApp.ts`, `bench/README.md`) anywhere, and paths relative to src/ (`Auth/Keys.ts`)
// in the sources. Run by .ci/run; `node scripts/check-paths.ts` prints each missing path with where it is named.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import * as Path from "node:path"

const root = Path.resolve(import.meta.dirname, "..")
const TOP = ["src", "test", "bench", "scripts", "migrations", "docs", "client", "console"]
const ROOTED = new RegExp(`(?<![\\w./-])((?:${TOP.join("|")})/[\\w./-]*\\w\\.(?:ts|tsx|md|cjs|mjs|json|sql))\\b`, "g")
/** `Auth/Keys.ts`: a feature or infrastructure folder of src/ and a file in it. */
const SRC_RELATIVE = /(?<![\w./-])([A-Z]\w+\/[A-Z]\w+\.ts)\b/g

/**
 * A path of another repository (`docs/indexer.md` of OpenZeppelin/stellar-contracts, `src/tests/sep1/tests.ts` of
 * `@stellar/anchor-tests`) is cited with that repository, a package or a commit on its line or the two before it.
 */
const EXTERNAL = /\b(?:OpenZeppelin|Effect-TS|stellar|tim-smart|noir-lang|AztecProtocol)\/[\w.-]+|@[\w-]+\/[\w.-]+|\bat [0-9a-f]{7,40}\b/
const citedElsewhere = (lines: ReadonlyArray<string>, index: number) =>
  lines.slice(Math.max(0, index - 2), index + 1).some((line) => EXTERNAL.test(line.replace(ROOTED, "")))

const walk = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) return []
    const path = Path.join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : /\.(ts|tsx|md|cjs)$/.test(name) ? [path] : []
  })

const files = [
  ...TOP.filter((top) => existsSync(Path.join(root, top))).flatMap((top) => walk(Path.join(root, top))),
  ...["README.md", ".dependency-cruiser.cjs", ".ci/run"].map((f) => Path.join(root, f)).filter(existsSync)
]

const missing: Array<string> = []
for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n")
  const where = Path.relative(root, file)
  lines.forEach((line, i) => {
    for (const [, named] of line.matchAll(ROOTED)) {
      if (!existsSync(Path.join(root, named!)) && !citedElsewhere(lines, i)) missing.push(`${where}:${i + 1}: ${named}`)
    }
    if (file.endsWith(".md")) return
    for (const [, named] of line.matchAll(SRC_RELATIVE)) {
      if (existsSync(Path.join(root, "src", named!)) || existsSync(Path.join(Path.dirname(file), named!))) continue
      if (!citedElsewhere(lines, i)) missing.push(`${where}:${i + 1}: ${named} (under src/)`)
    }
  })
}
if (missing.length > 0) {
  console.error(`${missing.length} named paths do not exist:\n${missing.map((m) => `  ${m}`).join("\n")}`)
  process.exit(1)
}
console.log(`every named path exists (${files.length} files read)`)
