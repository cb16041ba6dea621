// The circuits a wallet proves with, checked against the deployment before the first proof of each (SDK.md §8.2:
// the verification key the token's verifier holds must be the one our artifact implies, by content).
import { Effect } from "effect"
import type { ChainReader } from "./chain/ChainReader.ts"
import { fromChain } from "./chain/FromChain.ts"
import { VersionMismatch } from "./Errors.ts"
import type { LoadedCircuit } from "./proving/Artifacts.ts"
import type { Prover } from "./proving/Prover.ts"
import { assertSameVk, decodeBinaryVk, decodeFieldsVk, VK_BINARY_BYTES } from "./proving/VerificationKey.ts"

export type OperationCircuit = "register" | "transfer" | "withdraw"

export interface ProvingSetup {
  readonly prover: Prover
  readonly circuits: Readonly<Record<OperationCircuit, LoadedCircuit>>
  /** The OZ commit the artifacts were compiled from (the manifest's), named in a VersionMismatch. */
  readonly version: string
}

/** The verifier's key as it stores it: bb's binary form, or OZ's fields form (a JSON array of hex Fr, `vks/`). */
const decodeDeployed = (bytes: Uint8Array) => {
  if (bytes.length === VK_BINARY_BYTES) return decodeBinaryVk(bytes)
  return Effect.try({ try: () => JSON.parse(new TextDecoder().decode(bytes)) as unknown, catch: () => undefined }).pipe(
    Effect.orElseSucceed(() => undefined),
    Effect.flatMap((json) =>
      json === undefined
        ? new VersionMismatch({
          subject: "verification key",
          expected: `${VK_BINARY_BYTES} bytes or a JSON array of fields`,
          actual: `${bytes.length} bytes`,
          message: "the deployment's verification key is in neither of the forms a verifier holds"
        })
        : decodeFieldsVk(json)
    )
  )
}

/** Checks each circuit once per setup and remembers it: a VersionMismatch names the circuit and the version. */
export const makeKeyCheck = (setup: ProvingSetup, reader: ChainReader) => {
  const checked = new Set<OperationCircuit>()
  return (name: OperationCircuit) =>
    Effect.gen(function*() {
      if (checked.has(name)) return
      const ours = yield* Effect.flatMap(setup.prover.verificationKey(setup.circuits[name]), decodeBinaryVk)
      const deployed = yield* fromChain(`the ${name} verification key`, () => reader.verificationKey(name))
      yield* assertSameVk(name, setup.version, ours, yield* decodeDeployed(deployed))
      checked.add(name)
    })
}
