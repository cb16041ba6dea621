import { Config, Duration } from "effect"

const positive = (name: string, fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be an integer from 1 to ${max}`, validation: (n) => n >= 1 && n <= max }),
    Config.withDefault(fallback)
  )

/** The archive's settings: where ingestion starts, how it polls and holds its lease, and how much one client may read. */
export const ArchiveConfig = Config.all({
  /** The first ledger archived; unset: the oldest ledger the RPC retains when ingestion first starts. */
  startLedger: Config.option(
    Config.integer("EVENTS_START_LEDGER").pipe(
      Config.validate({ message: "EVENTS_START_LEDGER must be a ledger sequence (a positive integer)", validation: (n) => n >= 1 })
    )
  ),
  /** Pause between ingestion rounds once caught up with the RPC (less than a ledger, so the chain drives state within one). */
  pollInterval: Config.duration("ARCHIVE_POLL_INTERVAL").pipe(Config.withDefault(Duration.seconds(1))),
  /** Events asked of the RPC per getEvents page (stellar-rpc allows up to 10,000 by default). */
  pageSize: positive("ARCHIVE_PAGE_SIZE", 1000, 10_000),
  /** Pages per ingestion round: a round commits after each page, and renews the lease between them. */
  pagesPerRound: positive("ARCHIVE_PAGES_PER_ROUND", 50),
  /**
   * How long the ingester's lease lasts without renewal before another instance may take over: after its holder
   * crashes (no hand-back), ingestion — and the chain-driven readiness and settlement that follow it — pauses up to
   * this long, plus one ARCHIVE_POLL_INTERVAL until another instance's next round takes the lease.
   */
  leaseFor: Config.duration("ARCHIVE_LEASE").pipe(Config.withDefault(Duration.seconds(30))),
  /** Requests per client address (an IPv6 client: its AUTH_RATE_IPV6_PREFIX network) per window on /archive routes. */
  rateLimit: positive("ARCHIVE_RATE_LIMIT", 600),
  rateWindow: Config.duration("ARCHIVE_RATE_WINDOW").pipe(Config.withDefault(Duration.minutes(1))),
  /** `false` serves the archive without ingesting in this instance. */
  ingest: Config.boolean("ARCHIVE_INGEST").pipe(Config.withDefault(true))
}).pipe(
  // The holder renews after every page and every round: a lease shorter than the pause between idle rounds would
  // lapse each time, and the instances would take turns for nothing.
  Config.validate({
    message: "ARCHIVE_LEASE must be longer than ARCHIVE_POLL_INTERVAL",
    validation: (c) => Duration.greaterThan(c.leaseFor, c.pollInterval)
  })
)
export type ArchiveConfig = Config.Config.Success<typeof ArchiveConfig>
