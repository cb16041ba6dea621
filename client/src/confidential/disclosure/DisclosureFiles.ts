// Node only: the disclosure circuits and keys as the package carries them (client/circuits/disclosure), loaded and
// checked against their manifest: what `payroll disclose` proves with and `payroll verify` verifies with.
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { type CircuitArtifact, type LoadedCircuit, loadCircuit } from "../proving/Artifacts.ts"
import { DISCLOSURE_CIRCUITS, type DisclosureCircuitName, type DisclosureManifest } from "./DisclosureCircuits.ts"
import { disclosureKeys } from "./DisclosureKeys.ts"

/** Built, this file is dist/client/src/confidential/disclosure/; run from source, client/src/confidential/disclosure/. */
export const disclosureDir = (): string => {
  const [built, source] = ["../../../../../circuits/disclosure/", "../../../circuits/disclosure/"].map((r) => fileURLToPath(new URL(r, import.meta.url)))
  return existsSync(Path.join(built!, "manifest.json")) ? built! : source!
}

const json = <A>(path: string) => JSON.parse(readFileSync(path, "utf8")) as A

export const disclosureManifest = (dir: string = disclosureDir()): DisclosureManifest => json<DisclosureManifest>(Path.join(dir, "manifest.json"))

/** Every disclosure circuit, each ACIR checked against the manifest. */
export const loadDisclosureCircuits = (dir: string = disclosureDir()) =>
  Effect.gen(function* () {
    const manifest = disclosureManifest(dir)
    const circuits: Partial<Record<DisclosureCircuitName, LoadedCircuit>> = {}
    for (const name of DISCLOSURE_CIRCUITS) circuits[name] = yield* loadCircuit(name, json<CircuitArtifact>(Path.join(dir, `${name}.json`)), manifest)
    return circuits as Readonly<Record<DisclosureCircuitName, LoadedCircuit>>
  })

/** The committed keys (vks/), each checked against the manifest's sha256. */
export const loadDisclosureKeys = (dir: string = disclosureDir()) =>
  disclosureKeys(disclosureManifest(dir), (name) => readFileSync(Path.join(dir, "vks", `${name}.vk.json`), "utf8"))
