// StellarExpert explores two networks, named in its addresses as its own config names their passphrases
// (stellar-expert/stellar-expert-explorer: ui/app.config.json's `networks`, "public" and "testnet"; ui/views/router.js
// mounts `/explorer/:network`, ui/views/explorer/explorer-router.js its `tx/:id`). Futurenet and a standalone network
// have no explorer there: their transactions are not linked.
const EXPLORED: ReadonlyMap<string, { readonly path: string; readonly name: string }> = new Map([
  ["Public Global Stellar Network ; September 2015", { path: "public", name: "public network" }],
  ["Test SDF Network ; September 2015", { path: "testnet", name: "testnet" }]
])

const TX_HASH = /^[0-9a-f]{64}$/i

/** The network an explorer shows, in words ("testnet"), or undefined when no explorer shows `networkPassphrase`. */
export const explorerName = (networkPassphrase: string | undefined): string | undefined =>
  networkPassphrase === undefined ? undefined : EXPLORED.get(networkPassphrase)?.name

/** The transaction `hash` (hex) on the explorer of `networkPassphrase`, or undefined when there is none. */
export const explorerTxUrl = (networkPassphrase: string | undefined, hash: string): string | undefined => {
  const explored = networkPassphrase === undefined ? undefined : EXPLORED.get(networkPassphrase)
  if (explored === undefined || !TX_HASH.test(hash)) return undefined
  return `https://stellar.expert/explorer/${explored.path}/tx/${hash.toLowerCase()}`
}

