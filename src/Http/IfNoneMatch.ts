/** If-None-Match (RFC 9110 §13.1.2): `*`, or a list of entity tags compared weakly with `etag`. */
export const unchanged = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  (ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))
