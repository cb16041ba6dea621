import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "../..")
const config = readFileSync(Path.join(ROOT, ".dependency-cruiser.cjs"), "utf8")
const constant = (name: string) => new RegExp(`^const ${name} = "([^"]+)"`, "m").exec(config)?.[1] ?? ""
const rules = { FEATURES: constant("FEATURES"), INFRASTRUCTURE: constant("INFRASTRUCTURE") }

/** The folder names a rule's `^src/(A|B|…)/` alternation lists. */
const named = (pattern: string) => [...pattern.matchAll(/\^src\/\(([^)]+)\)\//g)].flatMap((m) => m[1]!.split("|"))

describe("dependency rules", () => {
  it("name every folder of src/ as a feature or as infrastructure, once, and no folder that does not exist", () => {
    const folders = readdirSync(Path.join(ROOT, "src")).filter((name) => statSync(Path.join(ROOT, "src", name)).isDirectory()).sort()
    const features = named(rules.FEATURES)
    const infrastructure = named(rules.INFRASTRUCTURE)
    expect([...features, ...infrastructure].sort()).toEqual(folders)
  })
})
