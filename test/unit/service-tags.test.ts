import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import * as Path from "node:path"

const SRC = Path.resolve(import.meta.dirname, "../../src")
const files = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = Path.join(dir, name)
    return statSync(path).isDirectory() ? files(path) : name.endsWith(".ts") ? [path] : []
  })

/** `class Drain extends Effect.Service<Drain>()("Http/Drain", …`, `Context.Tag("…")<Name, …>`, a middleware tag. */
const TAG = /class (\w+) extends (?:Effect\.Service<\w+>\(\)|Context\.Tag|HttpApiMiddleware\.Tag<\w+>\(\))\("([^"]+)"/g

describe("service tags", () => {
  it("each names its class in the folder of its file, so a tag in a trace or an error says where to look", () => {
    const wrong: Array<string> = []
    let seen = 0
    for (const file of files(SRC)) {
      const folder = Path.relative(SRC, Path.dirname(file))
      for (const [, name, tag] of readFileSync(file, "utf8").matchAll(TAG)) {
        seen += 1
        if (tag !== (folder === "" ? name : `${folder}/${name}`)) wrong.push(`${Path.relative(SRC, file)}: ${name} tagged "${tag}"`)
      }
    }
    expect(wrong).toEqual([])
    expect(seen).toBeGreaterThan(50)
  })
})
