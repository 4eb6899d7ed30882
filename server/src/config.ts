import { z } from 'zod';

const Flag = z.enum(['true', 'false']).transform((value) => value === 'true');
const Seconds = z.coerce.number<string>().positive();

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_PATH: z.string().min(1).default('./data/traininglab.sqlite'),
  RATE_LIMIT_REQUESTS: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_WINDOW_S: z.coerce.number().int().min(1).default(60),
  WEBHOOK_ALLOW_INSECURE_URLS: Flag.default(false),
  WEBHOOK_RETRY_SCHEDULE_S: z
    .string()
    .default('5,300,1800,7200,18000,36000,36000')
    .transform((value) => value.split(',').map((part) => part.trim()))
    .pipe(z.array(Seconds).min(1)),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(10000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
});

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  rateLimit: { requests: number; windowSeconds: number };
  webhooks: { allowInsecureUrls: boolean; retryScheduleSeconds: number[]; timeoutMs: number; concurrency: number };
}

/** Configuration from environment variables; an invalid value stops the server with a message naming it. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = Env.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path[0]?.toString()}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = result.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databasePath: e.DATABASE_PATH,
    rateLimit: { requests: e.RATE_LIMIT_REQUESTS, windowSeconds: e.RATE_LIMIT_WINDOW_S },
    webhooks: {
      allowInsecureUrls: e.WEBHOOK_ALLOW_INSECURE_URLS,
      retryScheduleSeconds: e.WEBHOOK_RETRY_SCHEDULE_S,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
  };
}
