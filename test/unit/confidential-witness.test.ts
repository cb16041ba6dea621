import { describe, expect, it } from "@effect/vitest"
import { acvm, Noir, type CompiledCircuit, type InputMap } from "@noir-lang/noir_js"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { InvalidWitness } from "../../client/src/confidential/Errors.ts"
import { checkpointOpening, decryptTransfer } from "../../client/src/confidential/crypto/Decrypt.ts"
import { Fr, fieldFromBytes, fieldToBytes, fieldToHex } from "../../client/src/confidential/crypto/Field.ts"
import { H, Point, commit, pointFromBytes, pointToBytes, scalarMul } from "../../client/src/confidential/crypto/Grumpkin.ts"
import { keysFromRawRoot } from "../../client/src/confidential/crypto/KeyDerivation.ts"
import * as P from "../../client/src/confidential/crypto/Primitives.ts"
import { REGISTER_PARAMETERS, registerWitness } from "../../client/src/confidential/witness/Register.ts"
import { TRANSFER_PARAMETERS, transferWitness, type TransferRequest } from "../../client/src/confidential/witness/Transfer.ts"
import { checkReceipt } from "../../client/src/confidential/crypto/Receipt.ts"
import { WITHDRAW_PARAMETERS, withdrawWitness, type WithdrawRequest } from "../../client/src/confidential/witness/Withdraw.ts"

// Circuit-execution parity (OZ SDK.md §6.2): the witnesses the builders assemble are solved by the real compiled
// circuits (client/circuits/8af46e2c, compiled from OZ's sources at 8af46e2c), and a witness with one value perturbed
// is refused. The public inputs the contract would assemble (storage.rs order) must be the circuit's public
// parameters, in the circuit's order, as the solved witness holds them.
const CIRCUITS = fileURLToPath(new URL("../../client/circuits/8af46e2c/", import.meta.url))

interface Artifact {
  readonly abi: CompiledCircuit["abi"]
  readonly bytecode: string
}
const circuit = (name: string): Artifact => JSON.parse(readFileSync(`${CIRCUITS}${name}.json`, "utf8")) as Artifact
const execute = (artifact: Artifact, inputs: InputMap) =>
  new Noir({ abi: artifact.abi, bytecode: artifact.bytecode, debug_symbols: "", file_map: {} }).execute(inputs)

const CONTRACT = "CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABSC4"
const SENDER = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF"
const RECIPIENT = "GBAN4AN3QIKSC2QY6CHKA2FBYKW26QORDN6FKWG6GVOIYOT7NBA633GO"
const sender = keysFromRawRoot(new Uint8Array(32).fill(1), { contract: CONTRACT, account: SENDER })
const recipient = keysFromRawRoot(new Uint8Array(32).fill(2), { contract: CONTRACT, account: RECIPIENT })
const auditorR = scalarMul(0xa0d17n, H)
const auditorS = scalarMul(0x5e4d3n, H)
const spendable = { value: 1_000n, blinding: 0x2a2a2a2an }

const transferRequest: TransferRequest = {
  keys: sender,
  spendable,
  recipientViewingKey: recipient.viewingPublicKey,
  recipientAuditorKey: auditorR,
  senderAuditorKey: auditorS,
  amount: 100n,
  ephemeral: 0xfeedfacen,
  sigma: 0x51f3an
}
const withdrawRequest: WithdrawRequest = {
  keys: sender,
  spendable,
  senderAuditorKey: auditorS,
  amount: 300n,
  ephemeral: 0xfeedfacen,
  sigma: 0x51f3an
}

/** Executes, then checks names, the public-input order and the solved witness against what the builder returned. */
const solves = async (
  artifact: Artifact,
  parameters: ReadonlyArray<string>,
  witness: { readonly inputs: Readonly<Record<string, string>>; readonly publicInputs: Uint8Array }
) => {
  expect(artifact.abi.parameters.map((p) => p.name)).toEqual(parameters)
  const publicNames = artifact.abi.parameters.filter((p) => p.visibility === "public").map((p) => p.name)
  const chunks = Array.from({ length: witness.publicInputs.length / 32 }, (_, i) =>
    fieldToHex(fieldFromBytes(witness.publicInputs.subarray(32 * i, 32 * (i + 1)))))
  expect(chunks).toEqual(publicNames.map((name) => witness.inputs[name]))

  const { witness: compressed, returnValue } = await execute(artifact, witness.inputs)
  expect(returnValue ?? []).toEqual([])
  // Noir numbers main()'s parameters 0, 1, … in order: the solved values are what the prover will publish.
  const solved = acvm.decompressWitness(compressed)
  expect(parameters.map((_, i) => solved.get(i))).toEqual(parameters.map((name) => witness.inputs[name]))
}

const tampered = (inputs: Readonly<Record<string, string>>, changes: Readonly<Record<string, bigint>>): InputMap => ({
  ...inputs,
  ...Object.fromEntries(Object.entries(changes).map(([name, v]) => [name, fieldToHex(Fr.create(v))]))
})

describe("the Register witness", () => {
  const artifact = circuit("register")
  const witness = registerWitness(sender)

  it("is solved by the register circuit, public inputs as storage.rs register() assembles them", async () => {
    await solves(artifact, REGISTER_PARAMETERS, witness)
    expect(pointFromBytes(witness.payload.y).equals(sender.spendingPublicKey)).toBe(true)
    expect(pointFromBytes(witness.payload.pvk).equals(sender.viewingPublicKey)).toBe(true)
  })

  it("is refused with another account's Y or a PVK not from this sk", async () => {
    await expect(execute(artifact, tampered(witness.inputs, { sk: sender.sk + 1n }))).rejects.toThrow()
    const other = recipient.viewingPublicKey.toAffine()
    await expect(execute(artifact, tampered(witness.inputs, { pvk_x: other.x, pvk_y: other.y }))).rejects.toThrow()
  })
})

describe("the Transfer witness", () => {
  const artifact = circuit("transfer")
  const witness = transferWitness(transferRequest)

  it("is solved by the transfer circuit, public inputs as storage.rs confidential_transfer() assembles them", async () => {
    await solves(artifact, TRANSFER_PARAMETERS, witness)
  })

  it("opens for the recipient and the sender from the payload alone", () => {
    const { payload } = witness
    const received = decryptTransfer(recipient, {
      ephemeralKey: pointFromBytes(payload.r_e_point),
      vTilde: fieldFromBytes(payload.v_tilde),
      sigma: fieldFromBytes(payload.sigma)
    })
    expect(received).toEqual({ amount: 100n, blinding: witness.transferOpening.blinding })
    expect(pointToBytes(commit(received.amount, received.blinding))).toEqual(payload.c_tx)
    const after = checkpointOpening(sender, fieldFromBytes(payload.b_tilde), fieldFromBytes(payload.sigma))
    expect(after).toEqual(witness.newSpendable)
    expect(after.value).toBe(900n)
    expect(pointToBytes(commit(after.value, after.blinding))).toEqual(payload.c_spend_new)
  })

  it("is refused when v_tilde encrypts another amount", async () => {
    const s = P.ecdh(transferRequest.ephemeral!, recipient.viewingPublicKey)
    const other = P.encryptAmount(101n, s, transferRequest.sigma!)
    await expect(execute(artifact, tampered(witness.inputs, { v_tilde: other }))).rejects.toThrow()
  })

  it("is refused by the range check when the balance is below the amount", async () => {
    // An opening of 50 with the commitment to match: only T4 (v - v_tx in [0, 2^127)) can fail.
    const { x, y } = commit(50n, spendable.blinding).toAffine()
    const inputs = tampered(witness.inputs, { v: 50n, c_spend_x: x, c_spend_y: y })
    await expect(execute(artifact, inputs)).rejects.toThrow(/assert_max_bit_size/)
    expect(() => transferWitness({ ...transferRequest, spendable: { ...spendable, value: 50n } })).toThrow(InvalidWitness)
  })
})

describe("the sender's receipt of a transfer", () => {
  const witness = transferWitness(transferRequest)
  const pvkB = pointToBytes(transferRequest.recipientViewingKey)
  const onChain = { rE: witness.payload.r_e_point, vTilde: witness.payload.v_tilde, sigma: witness.payload.sigma }
  const receipt = { amount: transferRequest.amount, ...witness.receipt }

  it("reproduces the ciphertext the payload carries, and names what differs otherwise", () => {
    expect(checkReceipt(receipt, pvkB, onChain)).toBe("match")
    expect(checkReceipt({ ...receipt, amount: receipt.amount + 1n }, pvkB, onChain)).toBe("amount")
    expect(checkReceipt({ ...receipt, sigma: receipt.sigma + 1n }, pvkB, onChain)).toBe("sigma")
    expect(checkReceipt({ ...receipt, ephemeral: receipt.ephemeral + 1n }, pvkB, onChain)).toBe("ephemeral")
    // Another recipient's key: the same receipt does not make this ciphertext (the amount pad differs).
    expect(checkReceipt(receipt, pointToBytes(transferRequest.senderAuditorKey), onChain)).toBe("amount")
  })
})

describe("the Withdraw witness", () => {
  const artifact = circuit("withdraw")
  const witness = withdrawWitness(withdrawRequest)

  it("is solved by the withdraw circuit, public inputs as storage.rs withdraw() assembles them", async () => {
    await solves(artifact, WITHDRAW_PARAMETERS, witness)
    // append_amount: the i128 in the low 16 bytes of the fifth 32-byte public input (after C_spend, Y, addr_f, K_aud_s).
    expect(witness.publicInputs.subarray(7 * 32, 8 * 32)).toEqual(fieldToBytes(300n))
  })

  it("leaves the opening its checkpoint decrypts to", () => {
    const { payload } = witness
    const after = checkpointOpening(sender, fieldFromBytes(payload.b_tilde), fieldFromBytes(payload.sigma))
    expect(after).toEqual({ value: 700n, blinding: witness.newSpendable.blinding })
    expect(pointToBytes(commit(after.value, after.blinding))).toEqual(payload.c_spend_new)
  })

  it("is solved for the edge openings: a deposit-only blinding, the identity, the largest balance", async () => {
    const edges = [[500n, 0n, 500n], [0n, 0n, 0n], [(1n << 127n) - 1n, 5n, 1n]] as const
    for (const [value, blinding, amount] of edges) {
      await solves(artifact, WITHDRAW_PARAMETERS, withdrawWitness({ ...withdrawRequest, spendable: { value, blinding }, amount }))
    }
  })

  it("is refused with another public amount or a wrong auditor checkpoint", async () => {
    await expect(execute(artifact, tampered(witness.inputs, { a: 301n }))).rejects.toThrow()
    const bad = BigInt(witness.inputs.b_tilde_aud_s) + 1n
    await expect(execute(artifact, tampered(witness.inputs, { b_tilde_aud_s: bad }))).rejects.toThrow()
  })

  it("is refused by the range check when the balance is below the amount", async () => {
    const { x, y } = commit(50n, spendable.blinding).toAffine()
    const inputs = tampered(witness.inputs, { v: 50n, c_spend_x: x, c_spend_y: y })
    await expect(execute(artifact, inputs)).rejects.toThrow(/assert_max_bit_size/)
  })
})

describe("the builders' own checks", () => {
  const refuses = (build: () => unknown, reason: string) => {
    try {
      build()
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidWitness)
      expect((error as InvalidWitness).reason).toBe(reason)
      return
    }
    expect.fail(`expected InvalidWitness ${reason}`)
  }

  it("refuse an amount out of range, over the balance, a zero r_e and a bad key", () => {
    refuses(() => transferWitness({ ...transferRequest, amount: 1n << 127n }), "AmountOutOfRange")
    refuses(() => transferWitness({ ...transferRequest, amount: -1n }), "AmountOutOfRange")
    refuses(() => withdrawWitness({ ...withdrawRequest, amount: 1_001n }), "AmountExceedsBalance")
    refuses(() => withdrawWitness({ ...withdrawRequest, ephemeral: 0n }), "ZeroEphemeral")
    refuses(() => transferWitness({ ...transferRequest, senderAuditorKey: Point.ZERO }), "IdentityPoint")
    const offCurve = new Point(1n, 2n, 1n)
    refuses(() => transferWitness({ ...transferRequest, recipientViewingKey: offCurve }), "PointNotOnCurve")
    refuses(() => withdrawWitness({ ...withdrawRequest, spendable: { value: 1n, blinding: Fr.ORDER } }), "BlindingNotAField")
  })

  it("draw r_e and sigma from the given source when not given them, fresh on every call", async () => {
    let calls = 0
    const counting = (out: Uint8Array) => {
      calls++
      return globalThis.crypto.getRandomValues(out)
    }
    const { ephemeral: _e, sigma: _s, ...rest } = withdrawRequest
    const first = withdrawWitness({ ...rest, random: counting })
    expect(calls).toBeGreaterThanOrEqual(2)
    const second = withdrawWitness(rest)
    expect(first.payload.sigma).not.toEqual(second.payload.sigma)
    expect(first.payload.r_e_point).not.toEqual(second.payload.r_e_point)
    await solves(circuit("withdraw"), WITHDRAW_PARAMETERS, first)
  })
})
