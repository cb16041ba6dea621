// The compiled circuits the client proves with: OpenZeppelin/stellar-contracts packages/tokens/src/confidential/circuits
// at 8af46e2c, compiled by scripts/compile-circuits.ts into client/circuits/8af46e2c/ (bytecode and ABI only: no
// debug symbols, no file map, so none of OZ's Noir source travels with the client). Browser-safe: no node:* imports.
import { sha256 } from "@noble/hashes/sha2.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import type { CompiledCircuit } from "@noir-lang/noir_js"
import { Effect } from "effect"
import type { DisclosureCircuitName, DisclosureManifest, DisclosureManifestCircuit } from "../disclosure/DisclosureCircuits.ts"
import { VersionMismatch } from "../Errors.ts"

export const CIRCUITS = ["register", "transfer", "withdraw", "set_spender", "spender_transfer", "revoke_spender"] as const
export type CircuitName = (typeof CIRCUITS)[number]

export type Abi = CompiledCircuit["abi"]
type AbiType = Abi["parameters"][number]["type"]

/** One circuit as client/circuits/<commit>/<name>.json holds it. */
export interface CircuitArtifact {
  readonly noir_version: string
  /** Noir's own hash of the program (a u64 in decimal). */
  readonly hash: string
  readonly abi: Abi
  /** base64 of the gzipped ACIR, as nargo writes it. */
  readonly bytecode: string
}

export interface VkHeader {
  readonly circuitSize: number
  /** Including bb's 16 pairing-point fields. */
  readonly numPublicInputs: number
  readonly pubInputsOffset: number
}

export interface ManifestCircuit {
  readonly acirSha256: string
  readonly bytecodeSha256: string
  readonly noirHash: string
  /** Field elements the circuit's public parameters (and public return value) take, without bb's pairing points. */
  readonly publicInputs: number
  readonly parameters: ReadonlyArray<string>
  /** bb's dyadic circuit size for this ACIR (`acirGetCircuitSizes`), so the CRS needs circuitSize + 1 points. */
  readonly circuitSize: number
  /** The header of OZ's committed vks/<name>.vk.json at the same commit. */
  readonly ozVk: VkHeader
}

export interface Manifest {
  readonly commit: string
  readonly repository: string
  readonly circuitsPath: string
  readonly compiler: string
  readonly executor: string
  readonly prover: string
  readonly circuits: Readonly<Record<string, ManifestCircuit>>
}

const fieldCount = (type: AbiType): number => {
  switch (type.kind) {
    case "field":
    case "boolean":
    case "integer":
      return 1
    case "string":
      return type.length
    case "array":
      return type.length * fieldCount(type.type)
    case "tuple":
      return type.fields.reduce((sum, field) => sum + fieldCount(field), 0)
    case "struct":
      return type.fields.reduce((sum, field) => sum + fieldCount(field.type), 0)
  }
}

/** The public inputs the verifier sees before bb's pairing points: public parameters, then a public return value. */
export const publicInputCount = (abi: Abi): number =>
  abi.parameters.filter((p) => p.visibility === "public").reduce((sum, p) => sum + fieldCount(p.type), 0) +
  (abi.return_type !== null && abi.return_type.visibility === "public" ? fieldCount(abi.return_type.abi_type) : 0)

const base64ToBytes = (base64: string): Uint8Array => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))

/** DecompressionStream is in every browser and in Node ≥ 18, so the prover's entry needs no zlib. */
export const gunzip = async (gzipped: Uint8Array): Promise<Uint8Array> => {
  const stream = new Blob([gzipped as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream("gzip"))
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

export const gzippedBytecode = (artifact: CircuitArtifact): Uint8Array => base64ToBytes(artifact.bytecode)

/** The ACIR bb proves: the gunzipped bytecode. */
export const acirBytes = (artifact: CircuitArtifact): Promise<Uint8Array> => gunzip(gzippedBytecode(artifact))

export const sha256Hex = (bytes: Uint8Array): string => bytesToHex(sha256(bytes))

/** noir_js's type wants debug symbols and a file map; it reads them only to decorate an execution error. */
export const compiledCircuit = (artifact: CircuitArtifact): CompiledCircuit => ({
  bytecode: artifact.bytecode,
  abi: artifact.abi,
  debug_symbols: "",
  file_map: {}
})

/** The token's circuits (OZ's) and the selective-disclosure circuits (this project's, client/circuits/disclosure). */
export type AnyCircuitName = CircuitName | DisclosureCircuitName

/** A circuit whose ACIR is the one the manifest pins, ready for the prover. */
export interface LoadedCircuit {
  readonly name: AnyCircuitName
  readonly artifact: CircuitArtifact
  readonly acir: Uint8Array
  readonly pinned: ManifestCircuit | DisclosureManifestCircuit
}

/** Either manifest: OZ's circuits' (`commit`) or the disclosure circuits' (`sources`). */
export type AnyManifest = Manifest | DisclosureManifest

const manifestName = (manifest: AnyManifest) => ("commit" in manifest ? manifest.commit : manifest.sources)

/** Checks an artifact against the manifest by the sha256 of its ACIR; a different ACIR proves a different statement. */
export const loadCircuit = Effect.fn("Confidential.loadCircuit")(function* (
  name: AnyCircuitName,
  artifact: CircuitArtifact,
  manifest: AnyManifest
) {
  const version = manifestName(manifest)
  const pinned: ManifestCircuit | DisclosureManifestCircuit | undefined = (manifest.circuits as Readonly<Record<string, ManifestCircuit | DisclosureManifestCircuit | undefined>>)[name]
  if (pinned === undefined) {
    return yield* new VersionMismatch({
      subject: `circuit ${name}`,
      expected: `an entry in the manifest of ${version}`,
      actual: "none",
      message: `the circuit manifest of ${version} has no ${name}`
    })
  }
  const acir = yield* Effect.tryPromise({
    try: () => acirBytes(artifact),
    catch: () =>
      new VersionMismatch({
        subject: `circuit ${name}`,
        expected: pinned.acirSha256,
        actual: "bytecode that is not gzipped base64",
        message: `the ${name} artifact's bytecode is not gzipped base64`
      })
  })
  const actual = sha256Hex(acir)
  if (actual !== pinned.acirSha256) {
    return yield* new VersionMismatch({
      subject: `circuit ${name}`,
      expected: pinned.acirSha256,
      actual,
      message: `the ${name} artifact is not the ACIR ${manifest.compiler} built from ${version}`
    })
  }
  return { name, artifact, acir, pinned } satisfies LoadedCircuit
})
