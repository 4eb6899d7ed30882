import { z } from 'zod';

// Clients read these messages (n8n shows them to users): say "Required" rather than "received undefined".
z.config({
  customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : undefined),
});

export const ROLES = ['admin', 'trainer'] as const;
export const Role = z.enum(ROLES).meta({ description: '`admin` or `trainer`.' });
export type Role = z.infer<typeof Role>;

/** Path and body ids: any RFC 9562 UUID, case-insensitive, normalised to lower case. */
export const Uuid = z.uuid().toLowerCase();

/** Names and titles: 1–200 characters after trimming. */
export const Name = z.string().trim().min(1).max(200);

export const Email = z.email().max(254).toLowerCase().meta({ description: 'E-mail address, stored lower-cased.' });

/** RFC 3339 with `Z` or an offset on input; always UTC with `Z` on output. */
export const TimestampInput = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value).toISOString())
  .meta({ description: 'RFC 3339 timestamp with `Z` or an offset; returned in UTC.' });

export const Timestamp = z.string().meta({ description: 'RFC 3339 timestamp in UTC (`Z`).', format: 'date-time' });

// Cursors are opaque to clients; inside they carry the position (a row sequence number) to continue after.
export function encodeCursor(position: number): string {
  return Buffer.from(`p${position}`).toString('base64url');
}

const Cursor = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const decoded = /^p([1-9][0-9]{0,15})$/.exec(Buffer.from(value, 'base64url').toString());
    if (!decoded) {
      ctx.addIssue({ code: 'custom', message: 'Invalid cursor; use the URL of the `Link: rel="next"` header.' });
      return z.NEVER;
    }
    return Number(decoded[1]);
  })
  .meta({ description: 'Opaque position from the `Link: rel="next"` header of the previous page.' });

/** `limit` (1–200) and `cursor` of every list endpoint. */
export function listQuery(defaultLimit: number) {
  return z.object({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .default(defaultLimit)
      .meta({ description: `Page size, 1–200 (default ${defaultLimit}).` }),
    cursor: Cursor.optional(),
  });
}
export type ListQuery = z.infer<ReturnType<typeof listQuery>>;
