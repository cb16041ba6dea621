// The verifier's trusted key set (SELECTIVE_DISCLOSURE.md §5: "the verification-key set is a trusted input"): the
// committed client/circuits/disclosure/vks, each held to the sha256 the manifest pins before it is used, in bb's
// binary form. Browser-safe: the caller reads the files (Node: DisclosureFiles.ts; a page: fetch beside the prover).
import { Effect } from "effect"
import { VersionMismatch } from "../Errors.ts"
import type { ProofFailed } from "../Errors.ts"
import { sha256Hex } from "../proving/Artifacts.ts"
import type { Proof } from "../proving/Prover.ts"
import { parseFieldsVk, toBinaryVk } from "../proving/VerificationKey.ts"
import { DISCLOSURE_CIRCUITS, type DisclosureCircuitName, type DisclosureManifest } from "./DisclosureCircuits.ts"
import type { CheckProof } from "./Verify.ts"

export type DisclosureKeys = Readonly<Record<DisclosureCircuitName, Uint8Array>>

/** Each key file's text (vks/<name>.vk.json) checked against the manifest, then parsed. */
export const disclosureKeys = (manifest: DisclosureManifest, text: (name: DisclosureCircuitName) => string) =>
  Effect.gen(function* () {
    const keys: Partial<Record<DisclosureCircuitName, Uint8Array>> = {}
    for (const name of DISCLOSURE_CIRCUITS) {
      const body = text(name)
      const actual = sha256Hex(new TextEncoder().encode(body))
      const expected = manifest.circuits[name].vkSha256
      if (actual !== expected) {
        return yield* new VersionMismatch({ subject: `${name} verification key`, expected, actual, message: `the ${name} key is not the one the disclosure manifest pins` })
      }
      keys[name] = yield* Effect.try({
        try: () => toBinaryVk(parseFieldsVk(JSON.parse(body) as unknown)),
        catch: () => new VersionMismatch({ subject: `${name} verification key`, expected: "OZ's fields form", actual: "unreadable", message: `the ${name} key does not parse` })
      })
    }
    return keys as DisclosureKeys
  })

/** The verifier's step 5 over bb.js: `verify` is Prover.verifyWithKey (Node) or a worker's (a page). */
export const checkProofWith = (
  keys: DisclosureKeys,
  verify: (name: string, proof: Proof, key: Uint8Array) => Effect.Effect<boolean, ProofFailed>
): CheckProof => (circuit, proof) => verify(circuit, proof, keys[circuit])
