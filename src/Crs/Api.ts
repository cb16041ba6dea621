import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { DeploymentEndpoint } from "./DeploymentApi.ts"

const IfNoneMatch = Schema.Struct({
  "if-none-match": Schema.optional(
    Schema.String.annotations({
      description: "The ETag of an earlier answer (or `*`): 304 with no body while that is still the file served"
    })
  )
})

const NotModified = HttpApiSchema.Empty(304).annotations({
  description: "Not modified: the file is still the one If-None-Match names (its ETag and Cache-Control come along)"
})

/** A binary answer; its example is the file's first bytes, written in hex. */
const BinaryFile = (description: string, firstBytesHex: string) =>
  HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }).annotations({
    description,
    jsonSchema: { type: "string", format: "binary", description, examples: [firstBytesHex] }
  })

const word = (value: number) => value.toString(16).padStart(64, "0")

const G1File = BinaryFile(
  "bn254_g1.dat: [τ^i]G1 for i = 0, 1, …, 64 bytes a point (x then y, 32-byte big-endian); the example is its first " +
    "point, the generator (1, 2), in hex",
  word(1) + word(2)
)

const G2File = BinaryFile(
  "bn254_g2.dat: [τ]G2, 128 bytes (x.c0, x.c1, y.c0, y.c1, 32-byte big-endian); the example is Aztec Ignition's, in hex",
  "0118c4d5b837bcc2bc89b5b398b5974e9f5944073b32078b7e231fec938883b0260e01b251f6f1c7e7ff4e580791dee8ea51d87a358e038b4efe30fac09383c1" +
    "22febda3c0c0632a56475b4214e5615e11e6dd3f96e6cea2854a87d4dacc5e5504fc6369f7110fe3d25156c1bb9a72859cf2a04641f99ba4ee413c80da6a5fe4"
)

const SERVED = "`application/octet-stream` with `Content-Length`, a strong `ETag` (the bytes' sha256, hex) and " +
  "`Cache-Control: public, max-age=86400` (an operator may replace the files: a day, then revalidated by ETag); with " +
  "`If-None-Match` naming the ETag, 304 and no body. HEAD answers the headers alone. Public: no session; not " +
  "rate-limited (it is read and checked against Ignition's pins once at start and served from memory)."

export class CrsApi extends HttpApiGroup.make("crs")
  .add(
    HttpApiEndpoint.get("g1", "/crs/bn254_g1.dat")
      .setHeaders(IfNoneMatch)
      .addSuccess(G1File)
      .addSuccess(NotModified)
      .annotate(OpenApi.Summary, "The CRS's G1 points (bn254_g1.dat)")
      .annotate(
        OpenApi.Description,
        `The G1 file of the proving CRS, as bb reads it: Aztec Ignition's first 32,769 points, the CRS OZ's ` +
          `verification keys were made with (the project's copy in client/crs unless CRS_DIR names another). ${SERVED}`
      )
  )
  .add(
    HttpApiEndpoint.get("g2", "/crs/bn254_g2.dat")
      .setHeaders(IfNoneMatch)
      .addSuccess(G2File)
      .addSuccess(NotModified)
      .annotate(OpenApi.Summary, "The CRS's G2 point (bn254_g2.dat)")
      .annotate(OpenApi.Description, `The G2 file of the proving CRS, as bb reads it. ${SERVED}`)
  )
  .add(DeploymentEndpoint)
  .annotate(OpenApi.Title, "CRS")
  .annotate(
    OpenApi.Description,
    "What the console's prover needs from this service's own origin, so that a page never asks a third party: the " +
      "structured reference string (Barretenberg's BN254 files) and where the confidential token lives. The service " +
      "checks the CRS at start as the client does, against Aztec Ignition's sha256 pins, and does not start with " +
      "another."
  )
{}
