// bb.js over the CRS for selective disclosure in Node: the holder's prover over the packaged disclosure circuits and
// the verifier's UltraHonk check under the committed keys (each held to the disclosure manifest). bb.js stops when the
// scope closes.
import { Effect } from "effect"
import type { ProveDisclosure } from "../confidential/disclosure/Disclose.ts"
import { loadDisclosureCircuits, loadDisclosureKeys } from "../confidential/disclosure/DisclosureFiles.ts"
import { checkProofWith } from "../confidential/disclosure/DisclosureKeys.ts"
import type { CheckProof } from "../confidential/disclosure/Verify.ts"
import { crsDirFromEnv, loadCrsDir } from "../confidential/proving/CrsFiles.ts"
import { makeProver } from "../confidential/proving/Prover.ts"

const prover = (crsDir: string) => Effect.flatMap(loadCrsDir(crsDir), (crs) => makeProver({ crs, threads: 1 }))

/** Proves a disclosure circuit (the CRS of CRS_DIR, else the package's). */
export const disclosureProve = (crsDir: string = crsDirFromEnv()) =>
  Effect.gen(function*() {
    const bb = yield* prover(crsDir)
    const circuits = yield* loadDisclosureCircuits()
    return ((name, inputs) => bb.prove(circuits[name], inputs)) satisfies ProveDisclosure
  })

/** The verifier's step 5 under the committed keys. */
export const disclosureCheck = (crsDir: string = crsDirFromEnv()) =>
  Effect.gen(function*() {
    const bb = yield* prover(crsDir)
    const keys = yield* loadDisclosureKeys()
    return checkProofWith(keys, bb.verifyWithKey!) satisfies CheckProof
  })
