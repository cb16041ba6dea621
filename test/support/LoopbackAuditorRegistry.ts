// The confidential token's auditor key registry, as OpenZeppelin/stellar-contracts (8af46e2c) writes it:
// packages/tokens/src/confidential/auditor/mod.rs (`ConfidentialAuditor`: `register_key(auditor_id, point, operator)`,
// `rotate_key(auditor_id, new_point, operator)`, `get_key(auditor_id)`; `AuditorError` 3300–3303; the events
// `AuditorRegistered { #[topic] auditor_id, point }` and `AuditorRotated { #[topic] auditor_id, old_point, new_point }`)
// and auditor/storage.rs (`register_key` refuses an id in use with 3300 before `validate_point`; `rotate_key` refuses an
// unknown id with 3301; `validate_point`: the identity is 3302, a non-canonical coordinate or a point off the curve
// 3303). The trait leaves authorization to the contract: examples/confidential/auditor/src/contract.rs guards both
// writes with `#[only_role(operator, "manager")]` (stellar-access `ensure_role`, AccessControlError::Unauthorized 2000,
// then `operator.require_auth()`), which `operator` here stands for.
//
// Unlike a fresh registry, every id holds a key derived from the contract and the id (LoopbackGrumpkin.ts
// `auditorPublicKey`) until a test says otherwise: `removeKey(id)` leaves it free (get_key fails with 3301), and
// `register_key` can then claim it.
import { Address, xdr } from "@stellar/stellar-sdk"
import { InvalidEncoding } from "../../client/src/confidential/Errors.ts"
import { pointFromBytes } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { auditorPublicKey } from "./LoopbackGrumpkin.ts"
import { contractEvent } from "./LoopbackEvents.ts"
import { Versioned } from "./LoopbackVersioned.ts"
import type { ContractCallContext, ContractHandler } from "./LoopbackTypes.ts"
import { argumentCountMismatch, argumentTypeMismatch, contractError } from "./LoopbackXdr.ts"

export const AuditorError = { AuditorAlreadyRegistered: 3300, AuditorNotRegistered: 3301, IdentityPoint: 3302, PointNotOnCurve: 3303 } as const
/** stellar-access access_control/mod.rs `AccessControlError::Unauthorized`. */
export const Unauthorized = 2000


type Entry = { readonly kind: "derived" } | { readonly kind: "free" } | { readonly kind: "registered"; readonly point: Uint8Array }

export class LoopbackAuditorRegistry {
  readonly #entries = new Versioned<ReadonlyMap<number, Entry>>(new Map())
  #manager: string | undefined

  readonly contractId: string
  readonly tokenId: string
  readonly latestLedger: () => number

  constructor(contractId: string, tokenId: string, latestLedger: () => number) {
    this.contractId = contractId
    this.tokenId = tokenId
    this.latestLedger = latestLedger
  }

  /** The address holding the example contract's "manager" role: the `operator` its writes accept. */
  setOperator(address: string): void {
    Address.fromString(address)
    this.#manager = address
  }

  get operator(): string | undefined {
    return this.#manager
  }

  /** `get_key(auditor_id)` as of `asOf`: the registered point, the derived one, or undefined (AuditorNotRegistered). */
  key(auditorId: number, asOf = Number.POSITIVE_INFINITY): Uint8Array | undefined {
    const entry = this.#entries.at(asOf).get(auditorId) ?? { kind: "derived" }
    if (entry.kind === "free") return undefined
    return entry.kind === "registered" ? Uint8Array.from(entry.point) : auditorPublicKey(this.tokenId, auditorId)
  }

  removeKey(auditorId: number): void {
    this.#set(auditorId, { kind: "free" }, this.latestLedger())
  }

  restoreKey(auditorId: number): void {
    this.#set(auditorId, { kind: "derived" }, this.latestLedger())
  }

  #set(auditorId: number, entry: Entry, ledger: number): void {
    const next = new Map(this.#entries.at(ledger))
    next.set(auditorId, entry)
    this.#entries.write(next, ledger)
  }

  /** The registry's contract functions. */
  functions(): ReadonlyMap<string, ContractHandler> {
    return new Map<string, ContractHandler>([
      ["get_key", (args, ctx) => {
        const [id] = this.#arguments(args, ctx, 1)
        const key = this.key(id, ctx.asOf)
        if (key === undefined) throw contractError(this.contractId, AuditorError.AuditorNotRegistered)
        return xdr.ScVal.scvBytes(Buffer.from(key))
      }],
      ["register_key", (args, ctx) => {
        const [id, point] = this.#write(args, ctx)
        if (this.key(id, ctx.asOf) !== undefined) throw contractError(this.contractId, AuditorError.AuditorAlreadyRegistered)
        this.#validate(point)
        if (ctx.phase === "apply") {
          this.#set(id, { kind: "registered", point }, ctx.ledger)
          const event = contractEvent("auditor_registered", [xdr.ScVal.scvU32(id)], { point: xdr.ScVal.scvBytes(Buffer.from(point)) })
          ctx.emit(event.topics, event.data)
        }
        return xdr.ScVal.scvVoid()
      }],
      ["rotate_key", (args, ctx) => {
        const [id, point] = this.#write(args, ctx)
        const old = this.key(id, ctx.asOf)
        if (old === undefined) throw contractError(this.contractId, AuditorError.AuditorNotRegistered)
        this.#validate(point)
        if (ctx.phase === "apply") {
          this.#set(id, { kind: "registered", point }, ctx.ledger)
          const event = contractEvent("auditor_rotated", [xdr.ScVal.scvU32(id)], {
            old_point: xdr.ScVal.scvBytes(Buffer.from(old)),
            new_point: xdr.ScVal.scvBytes(Buffer.from(point))
          })
          ctx.emit(event.topics, event.data)
        }
        return xdr.ScVal.scvVoid()
      }]
    ])
  }

  #arguments(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext, count: number): [number] {
    if (args.length !== count) throw argumentCountMismatch(this.contractId, ctx.fn)
    const id = args[0]
    if (id?.type !== "scvU32") throw argumentTypeMismatch(this.contractId, ctx.fn)
    return [id.u32]
  }

  /** `(auditor_id: u32, point: BytesN<64>, operator: Address)`, then `#[only_role(operator, "manager")]`. */
  #write(args: ReadonlyArray<xdr.ScVal>, ctx: ContractCallContext): [number, Uint8Array] {
    const [id] = this.#arguments(args, ctx, 3)
    const point = args[1]
    const operator = args[2]
    const bytes = point?.type === "scvBytes" ? point.bytes.toBytes() : undefined
    if (bytes === undefined || bytes.length !== 64 || operator?.type !== "scvAddress") throw argumentTypeMismatch(this.contractId, ctx.fn)
    const who = Address.fromScVal(operator).toString()
    if (who !== this.#manager) throw contractError(this.contractId, Unauthorized)
    ctx.requireAuth(who)
    return [id, Uint8Array.from(bytes)]
  }

  /** storage.rs `validate_point`: `Grumpkin::is_not_identity`, then `Grumpkin::is_on_curve` (canonical and on the curve). */
  #validate(point: Uint8Array): void {
    if (point.every((b) => b === 0)) throw contractError(this.contractId, AuditorError.IdentityPoint)
    try {
      pointFromBytes(point)
    } catch (error) {
      if (error instanceof InvalidEncoding) throw contractError(this.contractId, AuditorError.PointNotOnCurve)
      throw error
    }
  }
}
