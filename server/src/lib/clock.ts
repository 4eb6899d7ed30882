/** Current time as an RFC 3339 UTC timestamp with millisecond precision, the API's only timestamp format. */
export function nowIso(): string {
  return new Date().toISOString();
}
