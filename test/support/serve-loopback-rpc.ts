// Runs the loopback Stellar RPC on its own, for trying the service by hand without a network:
//   npm run rpc:loopback            (then STELLAR_RPC_URL=http://127.0.0.1:8000 npm start)
// It deploys the confidential token emulation at LOOPBACK_TOKEN_CONTRACT (point the service's token contract there).
import { StrKey } from "@stellar/stellar-sdk"
import { LoopbackRpc } from "./LoopbackRpc.ts"

const port = Number(process.env.LOOPBACK_RPC_PORT ?? 8000)
const token = process.env.LOOPBACK_TOKEN_CONTRACT ?? "CADQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQOBYHA4DQP5KR"
if (!StrKey.isValidContract(token)) throw new Error(`LOOPBACK_TOKEN_CONTRACT is not a contract id: ${token}`)
const rpc = await LoopbackRpc.start({ port })
rpc.deployConfidentialToken(token)
console.log(`loopback Stellar RPC at ${rpc.url} (accounts unknown to it sign in with their master key)`)
console.log(`confidential token emulation at ${token}`)
process.on("SIGINT", () => void rpc.close().then(() => process.exit(0)))
