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

/**
 * What the console (console/src) may import from src/: the contract (src/Api.ts, the features' `…Api.ts` files, the
 * schemas they are made of in src/Domain, Audit/AuditRecord.ts and Auth/Scopes.ts), the files the typed client reaches.
 */
const CONTRACT = /^src\/(Api\.ts$|Domain\/|[A-Za-z]+\/[A-Za-z]*Api\.ts$|Audit\/AuditRecord\.ts$|Auth\/Scopes\.ts$)/

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(Path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [Path.join(dir, entry.name)] : []
  )

// dependency-cruiser's SWC parser reads no TSX, so the console's one rule is checked here, on its import statements.
describe("the console's imports", () => {
  it("reach src/ only for the contract (the typed client's rule), never the server's implementation", () => {
    const reached = filesUnder(Path.join(ROOT, "console", "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\b[^"']*?from\s+["'](\.[^"']+)["']/gm)].map((m) =>
        Path.relative(ROOT, Path.resolve(Path.dirname(file), m[1]!))
      )
    )
    const server = reached.filter((path) => path.startsWith("src/") && !CONTRACT.test(path))
    expect(reached.some((path) => path.startsWith("client/src/"))).toBe(true)
    expect(server).toEqual([])
  })
})
