// The CRS the prover may use, as an Effect over the one rule both sides apply (src/Domain/Crs.ts: Aztec Ignition's
// prefix, by its pins), and the page's way to load it (from the service's own origin, GET /crs/…).
import { Effect, Either } from "effect"
import { CRS_DIR_VARIABLE, type CrsBytes, type CrsRefused, checkCrs as checkCrsRule } from "../../../../src/Domain/Crs.ts"
import { CrsMissing } from "../Errors.ts"

export {
  CRS_DIR_VARIABLE, type CheckedCrs, type CrsBytes, CrsRefused, G1_FILE, G2_FILE, IGNITION_G1_SHA256, IGNITION_G2,
  IGNITION_POINTS
} from "../../../../src/Domain/Crs.ts"

/** sha256 of IGNITION_G2 in bb's byte order, the pin public bb.js 0.87 web clients hold for g2.dat. */
export const IGNITION_G2_SHA256 = "01797bfc4de5a96f0e516a9ea4537d18786dc30cb991aca4274c95822b69c32f"

export const checkCrs = Effect.fn("Confidential.checkCrs")(function*(crs: CrsBytes) {
  return yield* Either.match(checkCrsRule(crs), {
    onLeft: (refused): Effect.Effect<never, CrsRefused> => Effect.fail(refused),
    onRight: (checked) => Effect.succeed(checked)
  })
})

/** For a page: the two files from URLs (the service's own origin), then the same check. */
export const fetchCrs = Effect.fn("Confidential.fetchCrs")(function*(
  urls: { readonly g1: string; readonly g2: string },
  fetchFn: typeof fetch = fetch
) {
  const get = (url: string) =>
    Effect.tryPromise({
      try: async () => {
        const response = await fetchFn(url, { redirect: "error" })
        if (!response.ok) throw new Error(`HTTP ${response.status}`)
        return new Uint8Array(await response.arrayBuffer())
      },
      catch: (error) =>
        new CrsMissing({ message: `the CRS file ${url} did not load (${error instanceof Error ? error.message : "unknown"}): the service serves it from ${CRS_DIR_VARIABLE}` })
    })
  const [g1, g2] = yield* Effect.all([get(urls.g1), get(urls.g2)], { concurrency: 2 })
  return yield* checkCrs({ g1, g2 })
})
