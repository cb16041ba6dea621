// Reads the token's state by simulation through Stellar RPC (the SDK's rpc.Server, in Node and browsers): an
// account's `confidential_balance`, an auditor's key, a circuit's verification key.
import { Address, type rpc, xdr } from "@stellar/stellar-sdk"
import { ChainUnavailable } from "./ChainErrors.ts"
import type { TokenDeployment } from "./Deployment.ts"
import { CIRCUIT_TYPE, type CircuitName } from "./Deployment.ts"
import { simulateRead, SimulationRefusedError } from "./Simulate.ts"

export { SimulationRefusedError } from "./Simulate.ts"

/** storage.rs `ConfidentialAccount`: points as x‖y (64 bytes; the identity is 64 zero bytes). */
export interface OnChainAccount {
  readonly spendingPublicKey: Uint8Array
  readonly viewingPublicKey: Uint8Array
  readonly spendableCommitment: Uint8Array
  readonly receivingCommitment: Uint8Array
  readonly auditorId: number
}

const ACCOUNT_NOT_REGISTERED = /Error\(Contract, #3501\)/

export class ChainReader {
  readonly server: rpc.Server
  readonly deployment: TokenDeployment

  constructor(server: rpc.Server, deployment: TokenDeployment) {
    this.server = server
    this.deployment = deployment
  }

  #read(contract: string, fn: string, args: ReadonlyArray<xdr.ScVal>): Promise<xdr.ScVal> {
    return simulateRead(this.server, this.deployment.networkPassphrase, contract, fn, args)
  }

  /** `confidential_balance(account)`: undefined when the account never registered (#3501). */
  async account(account: string): Promise<OnChainAccount | undefined> {
    try {
      const value = await this.#read(this.deployment.contract, "confidential_balance", [Address.fromString(account).toScVal()])
      return decodeAccount(value)
    } catch (e) {
      if (e instanceof SimulationRefusedError && ACCOUNT_NOT_REGISTERED.test(e.error)) return undefined
      throw e
    }
  }

  /** The auditor registry's `get_key(auditor_id)`: the key the transfer circuits encrypt the auditor's channel to. */
  async auditorKey(auditorId: number): Promise<Uint8Array> {
    const value = await this.#read(this.deployment.auditorRegistry, "get_key", [xdr.ScVal.scvU32(auditorId)])
    return bytesOf(value, 64, "auditor key")
  }

  /** The verifier registry's `get_verification_key(circuit_type)`: bb's binary form or OZ's fields form. */
  async verificationKey(circuit: CircuitName): Promise<Uint8Array> {
    return bytesOf(await this.#read(this.deployment.verifierRegistry, "get_verification_key", [xdr.ScVal.scvU32(CIRCUIT_TYPE[circuit])]), undefined, "verification key")
  }
}

const bytesOf = (value: xdr.ScVal, length: number | undefined, what: string): Uint8Array => {
  if (value.type !== "scvBytes") throw new ChainUnavailable({ message: `the ${what} is not bytes` })
  const bytes = Uint8Array.from(value.bytes.toBytes())
  if (length !== undefined && bytes.length !== length) throw new ChainUnavailable({ message: `the ${what} is not ${length} bytes` })
  return bytes
}

const decodeAccount = (value: xdr.ScVal): OnChainAccount => {
  if (value.type !== "scvMap") throw new ChainUnavailable({ message: "confidential_balance returned no ConfidentialAccount" })
  const fields = new Map((value.map ?? []).map((e) => [e.key.type === "scvSymbol" ? e.key.sym.toString() : "", e.val]))
  const point = (name: string) => {
    const v = fields.get(name)
    if (v === undefined) throw new ChainUnavailable({ message: `ConfidentialAccount has no ${name}` })
    return bytesOf(v, 64, name)
  }
  const auditor = fields.get("auditor_id")
  if (auditor?.type !== "scvU32") throw new ChainUnavailable({ message: "ConfidentialAccount has no auditor_id" })
  return {
    spendingPublicKey: point("spending_public_key"),
    viewingPublicKey: point("viewing_public_key"),
    spendableCommitment: point("spendable_commitment"),
    receivingCommitment: point("receiving_commitment"),
    auditorId: auditor.u32
  }
}
