import { DateTime } from "effect"

const format = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })
const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone

/** A moment in the reader's own time zone (the API's times are UTC). */
export const Time = ({ at }: { readonly at: DateTime.Utc | Date }) => {
  const date = at instanceof Date ? at : DateTime.toDate(at)
  return <time dateTime={date.toISOString()} title={`${date.toISOString()} (shown in ${zone})`}>{format.format(date)}</time>
}

export const timeZone = zone
