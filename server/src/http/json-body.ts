import express, { type Request, type Response } from 'express';
import { ApiError } from './errors.ts';

export const MAX_BODY_BYTES = 100 * 1024;
const JSON_TYPES = ['application/json', 'application/*+json'];

const parseJson = express.json({ limit: MAX_BODY_BYTES, type: JSON_TYPES });

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Reads the JSON body of a request (undefined when there is none), mapping every failure to the envelope. */
export async function readJsonBody(req: Request, res: Response): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!req.is(JSON_TYPES)) {
    throw new ApiError('malformed_json', 'The request body must be JSON, sent with Content-Type: application/json.');
  }
  await new Promise<void>((resolve, reject) => {
    parseJson(req, res, (error?: unknown) => (error ? reject(toApiError(error)) : resolve()));
  });
  return req.body;
}

function toApiError(error: unknown): ApiError {
  const type = (error as { type?: string }).type;
  switch (type) {
    case 'entity.too.large':
      return new ApiError('payload_too_large', `The request body exceeds ${MAX_BODY_BYTES / 1024} KB.`);
    case 'entity.parse.failed':
      return new ApiError('malformed_json', 'The request body is not valid JSON.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('malformed_json', 'The request body must be UTF-8 encoded JSON.');
    default:
      return new ApiError('malformed_json', 'The request body could not be read.');
  }
}
