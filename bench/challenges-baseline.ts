// The baseline of bench/challenges.ts, written the straightforward way: plain node:http and @stellar/stellar-sdk
// building and signing (`tx.sign`) the same SEP-10 challenge as src/Auth/Sep10.ts (a random nonce, 5 minutes of time
// bounds, the web_auth_domain operation), stateless, with no database and no rate limit. Not meant to be run by hand.
import { Account, BASE_FEE, Keypair, Networks, Operation, StrKey, TransactionBuilder } from "@stellar/stellar-sdk"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { serveAsChild } from "./support.ts"

const server = Keypair.random()
const homeDomain = "payroll.bench"

const answer = (response: import("node:http").ServerResponse, status: number, value: unknown) => {
  const body = JSON.stringify(value)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
}

const node = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://localhost")
  const account = url.searchParams.get("account") ?? ""
  if (url.pathname !== "/auth/sep10/challenge") return answer(response, 404, { error: "not found" })
  if (!StrKey.isValidEd25519PublicKey(account)) return answer(response, 400, { error: "account must be a Stellar account address (G...)" })
  const now = Math.floor(Date.now() / 1000)
  const tx = new TransactionBuilder(new Account(server.publicKey(), "-1"), {
    fee: BASE_FEE,
    networkPassphrase: Networks.TESTNET,
    timebounds: { minTime: now, maxTime: now + 300 }
  })
    .addOperation(Operation.manageData({ name: `${homeDomain} auth`, value: randomBytes(48).toString("base64"), source: account }))
    .addOperation(Operation.manageData({ name: "web_auth_domain", value: homeDomain, source: server.publicKey() }))
    .build()
  tx.sign(server)
  answer(response, 200, { transaction: tx.toXDR(), network_passphrase: Networks.TESTNET })
})

node.listen(0, "127.0.0.1", () =>
  serveAsChild(`http://127.0.0.1:${(node.address() as AddressInfo).port}`, async () => {
    node.closeAllConnections()
    await new Promise<void>((done) => node.close(() => done()))
  }))
