import { explorerName, explorerTxUrl } from "../lib/Explorer.ts"
import { CopyButton } from "./CopyButton.tsx"
import { useNetwork } from "./useNetwork.ts"

const short = (hash: string) => (hash.length > 14 ? `${hash.slice(0, 6)}…${hash.slice(-6)}` : hash)

/**
 * A transaction by its hash: a link to the explorer of the service's network, or, where no explorer shows that network
 * (a standalone network, futurenet) or while it is not known yet, the short hash (the whole one in its tooltip) and a
 * button that copies the whole one.
 */
export const TxLink = ({ hash }: { readonly hash: string }) => {
  const network = useNetwork()
  const url = explorerTxUrl(network, hash)
  if (url === undefined) {
    return (
      <span className="row">
        <code title={hash}>{short(hash)}</code>
        <CopyButton text={hash} label="Copy hash" />
      </span>
    )
  }
  return (
    <a href={url} target="_blank" rel="noopener noreferrer" title={hash}>
      {short(hash)}<span className="visually-hidden"> (opens the {explorerName(network)} explorer)</span>
    </a>
  )
}
