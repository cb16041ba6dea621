// Runs the loopback Stellar RPC on its own, for trying the service by hand without a network:
//   npm run rpc:loopback            (then STELLAR_RPC_URL=http://127.0.0.1:8000 npm start)
import { LoopbackRpc } from "./LoopbackRpc.ts"

const port = Number(process.env.LOOPBACK_RPC_PORT ?? 8000)
const rpc = await LoopbackRpc.start({ port })
console.log(`loopback Stellar RPC at ${rpc.url} (accounts unknown to it sign in with their master key)`)
process.on("SIGINT", () => void rpc.close().then(() => process.exit(0)))
