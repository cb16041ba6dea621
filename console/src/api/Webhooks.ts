import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import {
  CreateWebhook,
  type DeliveryId,
  type EventType,
  RotateSecret,
  UpdateWebhook,
  type WebhookDelivery,
  type WebhookId
} from "@confidential-payroll/client/contract"
import { useBackoff } from "./Backoff.ts"
import { useClient } from "./useClient.ts"
import { run } from "./Client.ts"

export type DeliveryStatus = WebhookDelivery["status"]

/** The organization's endpoints (at most 20, so one answer); read again as often as its deliveries are. */
export const useWebhooks = (interval: number | false = false) => {
  const client = useClient()
  return useQuery({ queryKey: ["webhooks"], refetchInterval: interval, queryFn: ({ signal }) => run(client.webhooks.list(), signal) })
}

export interface NewEndpoint {
  readonly url: string
  readonly events: ReadonlyArray<EventType>
}

export const useWebhookControls = () => {
  const client = useClient()
  const queries = useQueryClient()
  const refresh = () => queries.invalidateQueries({ queryKey: ["webhooks"] })
  return {
    create: useMutation({
      mutationFn: (endpoint: NewEndpoint) => run(client.webhooks.create({ payload: new CreateWebhook(endpoint) })),
      onSuccess: refresh
    }),
    remove: useMutation({ mutationFn: (id: WebhookId) => run(client.webhooks.remove({ path: { id } })), onSuccess: refresh }),
    update: useMutation({
      mutationFn: ({ id, ...change }: { readonly id: WebhookId } & NewEndpoint) =>
        run(client.webhooks.update({ path: { id }, payload: new UpdateWebhook(change) })),
      onSuccess: refresh
    }),
    /** A new signing secret (its answer, shown once); the replaced one signs beside it for `overlapSeconds`. */
    rotate: useMutation({
      mutationFn: ({ id, overlapSeconds }: { readonly id: WebhookId; readonly overlapSeconds: number }) =>
        run(client.webhooks.rotateSecret({ path: { id }, payload: new RotateSecret({ overlapSeconds }) })),
      onSuccess: refresh
    })
  }
}

export const useDeliveries = (id: WebhookId, status: DeliveryStatus | undefined, interval: number | false) => {
  const client = useClient()
  return useInfiniteQuery({
    queryKey: ["webhook-deliveries", id, status ?? null],
    refetchInterval: interval,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      run(client.webhooks.deliveries({
        path: { id },
        urlParams: { limit: 50, ...(status === undefined ? {} : { status }), ...(pageParam === undefined ? {} : { cursor: pageParam }) }
      }), signal),
    getNextPageParam: (page) => page.nextCursor
  })
}

/**
 * How often to read the deliveries again: while one is still pending (attempts and retries go on in the service),
 * every second after something changed, doubling while nothing does, up to 30 s.
 */
export const useDeliveryPoll = (items: ReadonlyArray<WebhookDelivery> | undefined, updatedAt: number): number | false =>
  useBackoff(
    items?.map((d) => `${d.id}:${d.status}:${d.attempts}`).join(","),
    updatedAt,
    items !== undefined && items.some((d) => d.status === "pending")
  )

/** Queues a delivery's event again (a new delivery); resending to a disabled endpoint enables it again. */
export const useResend = (id: WebhookId) => {
  const client = useClient()
  const queries = useQueryClient()
  return useMutation({
    mutationFn: (deliveryId: DeliveryId) => run(client.webhooks.resend({ path: { id, deliveryId } })),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: ["webhook-deliveries", id] })
      void queries.invalidateQueries({ queryKey: ["webhooks"] })
    }
  })
}
