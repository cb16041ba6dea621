import { Config, Duration } from "effect"

/**
 * How often each organization's audit checkpoint is sent to the webhook endpoints subscribed to `audit.checkpoint`
 * (AUDIT_CHECKPOINT_INTERVAL, a day by default): the signed head of its verified chain, kept by the receiver, outside
 * this service's database.
 */
export const AuditConfig = Config.all({
  checkpointInterval: Config.duration("AUDIT_CHECKPOINT_INTERVAL").pipe(
    Config.validate({
      message: "AUDIT_CHECKPOINT_INTERVAL must be at least 1 second (such as 24 hours)",
      validation: (interval) => Duration.greaterThanOrEqualTo(interval, Duration.seconds(1))
    }),
    Config.withDefault(Duration.days(1))
  )
})
export type AuditConfig = Config.Config.Success<typeof AuditConfig>
