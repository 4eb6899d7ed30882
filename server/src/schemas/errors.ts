import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.ts';

export const ErrorEnvelope = z.object({
	error: z.object({
		code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
		message: z.string(),
		details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
	}),
});
