import { useQuery } from "@tanstack/react-query"
import { run } from "../api/Client.ts"
import { useClient } from "../api/useClient.ts"

/**
 * The passphrase of the network the service pays on, from `GET /confidential/deployment` (public; 501 while the token
 * is not configured, when nothing is paid): undefined until it is known, or when it cannot be.
 */
export const useNetwork = (): string | undefined => {
  const client = useClient()
  const deployment = useQuery({
    queryKey: ["deployment"],
    queryFn: ({ signal }) => run(client.crs.deployment(), signal),
    // The service's network does not change while it runs.
    staleTime: Infinity,
    retry: 1
  })
  return deployment.data?.networkPassphrase
}
