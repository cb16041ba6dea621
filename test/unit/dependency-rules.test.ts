import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "../..")
const config = readFileSync(Path.join(ROOT, ".dependency-cruiser.cjs"), "utf8")
const constant = (name: string) => new RegExp(`^const ${name} = "([^"]+)"`, "m").exec(config)?.[1] ?? ""
const rules = { FEATURES: constant("FEATURES"), INFRASTRUCTURE: constant("INFRASTRUCTURE"), COMPOSITION: constant("COMPOSITION") }

/** The folder names a rule's `^src/(A|B|…)/` alternation lists. */
const named = (pattern: string) => [...pattern.matchAll(/\^src\/\(([^)]+)\)\//g)].flatMap((m) => m[1]!.split("|"))

describe("dependency rules", () => {
  it("name every folder of src/ as a feature, as infrastructure or as the composition root, once, and no folder that does not exist", () => {
    const folders = readdirSync(Path.join(ROOT, "src")).filter((name) => statSync(Path.join(ROOT, "src", name)).isDirectory()).sort()
    const features = named(rules.FEATURES)
    const infrastructure = named(rules.INFRASTRUCTURE)
    const composition = named(rules.COMPOSITION)
    expect([...features, ...infrastructure, ...composition].sort()).toEqual(folders)
  })
})

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(Path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [Path.join(dir, entry.name)] : []
  )

// The console's rule (the-console-reaches-the-service-only-through-the-client) is dependency-cruiser's, on the graph
// `npm run lint:deps` cruises; this holds that it cruises the console, and that the console names the client package.
describe("the console's imports", () => {
  it("are cruised by npm run lint:deps, and reach the service only through the typed client package", () => {
    const scripts = (JSON.parse(readFileSync(Path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
    expect(scripts["lint:deps"]?.split(/\s+/)).toContain("console/src")
    const imported = filesUnder(Path.join(ROOT, "console", "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\b[^"']*?from\s+["']([^"']+)["']/gm)].map((m) =>
        m[1]!.startsWith(".") ? Path.relative(ROOT, Path.resolve(Path.dirname(file), m[1]!)) : m[1]!
      )
    )
    expect(imported).toContain("@confidential-payroll/client/contract")
    expect(imported.filter((path) => path.startsWith("src/") || path.startsWith("client/"))).toEqual([])
  })
})
