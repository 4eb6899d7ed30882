import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../db/connection.ts';
import { ApiError } from '../core/errors.ts';
import { Email, Name } from '../schemas/common.ts';
import { seedDemo } from '../services/demo.ts';
import { createServices, type Services } from '../services/index.ts';
import { inTransaction } from '../db/transaction.ts';

const USAGE =
	'usage: npm run bootstrap -- --org "Acme Training" --email ada@acme.test --name "Ada Admin" [--demo]';

const HELP = `${USAGE}

Creates an organization, its first admin and an admin API key in the database
(DATABASE_PATH, default ./data/traininglab.sqlite), and prints them as one line
of JSON; the key is shown only this once.

  --org NAME      the organization's name (its slug is derived from it)
  --email EMAIL   the first admin's e-mail address
  --name NAME     the first admin's name
  --demo          also add two labs (each with a published version 1 and a
                  draft version 2) and two trainers
  -h, --help      print this help

Exit codes: 0 created, 1 the organization's slug is taken (nothing written),
2 invalid arguments.`;

const Args = z.object({ org: Name, email: Email, name: Name, demo: z.boolean().default(false) });

/**
 * Creates an organization, its first admin and an admin API key, and prints them as one line of
 * JSON (the last line of stdout). Exit 1 when the organization's slug is taken, 2 for bad arguments.
 */
function main(argv: string[]): number {
	let args: z.infer<typeof Args>;
	try {
		const { values } = parseArgs({
			args: argv,
			options: {
				org: { type: 'string' },
				email: { type: 'string' },
				name: { type: 'string' },
				demo: { type: 'boolean' },
				help: { type: 'boolean', short: 'h' },
			},
			strict: true,
		});
		if (values.help) {
			console.log(HELP);
			return 0;
		}
		args = Args.parse(values);
	} catch (error) {
		const message =
			error instanceof z.ZodError
				? error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')
				: (error as Error).message;
		console.error(`error: ${message}\n${USAGE}`);
		return 2;
	}

	const config = loadConfig(process.env);
	const db = openDatabase(config.databasePath);
	try {
		// Deliveries the new organization's events queue are the running server's to send.
		const services = createServices(db, { allowInsecureWebhookUrls: false });
		const created = bootstrap(db, services, args);
		console.log(JSON.stringify(created));
		return 0;
	} catch (error) {
		if (!(error instanceof ApiError)) throw error;
		console.error(`error: ${error.message}`);
		return error.code === 'validation_failed' ? 2 : 1;
	} finally {
		db.close();
	}
}

function bootstrap(db: Database, services: Services, args: z.infer<typeof Args>) {
	return inTransaction(db, () => {
		const { org, admin, apiKey, actor } = services.orgs.create({
			name: args.org,
			admin: { email: args.email, name: args.name },
		});
		if (args.demo) seedDemo(services, actor, args.email.split('@')[1]);
		return {
			org,
			user: { id: admin.user_id, email: admin.email, name: admin.name },
			role: admin.role,
			api_key: apiKey.key,
		};
	});
}

process.exitCode = main(process.argv.slice(2));
