import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** Grumpkin's coordinate field, BN254's scalar field (OZ auditor/mod.rs "Point Encoding": each coordinate < r). */
const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n

const mod = (a: bigint) => ((a % R) + R) % R

/** OZ storage.rs `validate_point`'s refusals, by the registry's error names (auditor/mod.rs `AuditorError`). */
export type PointProblem = "IdentityPoint" | "PointNotOnCurve"

/**
 * What auditor/storage.rs `validate_point` (OpenZeppelin/stellar-contracts 8af46e2c) would refuse in `x ‖ y` (two
 * 32-byte big-endian coordinates): the identity (0, 0) (IdentityPoint, 3302), a coordinate ≥ r or a point off
 * y² = x³ − 17 (PointNotOnCurve, 3303). Checked here so that the registry never refuses a point the service kept.
 */
export const pointProblem = (hex: string): PointProblem | undefined => {
  const x = BigInt(`0x${hex.slice(0, 64)}`)
  const y = BigInt(`0x${hex.slice(64, 128)}`)
  if (x === 0n && y === 0n) return "IdentityPoint"
  if (x >= R || y >= R) return "PointNotOnCurve"
  return mod(y * y) === mod(x * x * x - 17n) ? undefined : "PointNotOnCurve"
}

/** An auditor public key as the registry stores it (`BytesN<64>`), as 128 lowercase hex characters. */
export const EscrowPointHex = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{128}$/, { message: () => "a point is 128 lowercase hex characters: x ‖ y, 32 bytes each, big-endian" })
).annotations({
  description: "A Grumpkin point, the auditor registry's `BytesN<64>` (OZ auditor/mod.rs \"Point Encoding\"): x ‖ y, " +
    "each 32 bytes big-endian, as 128 lowercase hex characters; not the identity, both coordinates < r, on " +
    "y² = x³ − 17"
})

export class EscrowPointInvalid extends Schema.TaggedError<EscrowPointInvalid>()(
  "EscrowPointInvalid",
  {
    error: Schema.propertySignature(Schema.String).annotations({ description: "What went wrong, in words for a person" }),
    reason: Schema.propertySignature(Schema.Literal("IdentityPoint", "PointNotOnCurve")).annotations({
      description: "The auditor registry's error it would raise (auditor/mod.rs `AuditorError`): `IdentityPoint` " +
        "(3302) for (0, 0), `PointNotOnCurve` (3303) for a coordinate ≥ r or a point off the curve"
    })
  },
  HttpApiSchema.annotations({
    status: 422,
    description: "The escrow key's point is not one the auditor registry accepts (the identity, a non-canonical " +
      "coordinate, or off Grumpkin): `reason` names the registry's error"
  })
) {}
