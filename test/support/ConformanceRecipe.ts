import type { Effect } from "effect"
import type { ConformanceFixtures } from "./ConformanceFixtures.ts"

/** A request the document allows, with what a correct service answers to it. */
export interface ValidRequest {
  readonly token?: string
  readonly params?: Readonly<Record<string, string>>
  readonly query?: Readonly<Record<string, string>>
  readonly json?: unknown
  readonly expect: number
}

export type Recipe = (fx: ConformanceFixtures, employer: { readonly token: string }) => Effect.Effect<ValidRequest>

export const ok = (request: Omit<ValidRequest, "expect">, expect = 200): ValidRequest => ({ ...request, expect })
export type Refusal = (fx: ConformanceFixtures, employer: { readonly token: string }) => Effect.Effect<ReadonlyArray<readonly [string, ValidRequest]>>

export const refused = (kind: string, request: ValidRequest) => [[kind, request] as const]
