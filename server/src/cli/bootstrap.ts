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

const Args = z.object({ org: Name, email: Email, name: Name, demo: z.boolean().default(false) });

/**
 * Creates an organisation, its first admin and an admin API key, and prints them as one line of
 * JSON (the last line of stdout). Exit 1 when the organisation's slug is taken, 2 for bad arguments.
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
			},
			strict: true,
		});
		args = Args.parse(values);
	} catch (error) {
		const message =
			error instanceof z.ZodError
				? error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')
				: String(error);
		console.error(`error: ${message}\n${USAGE}`);
		return 2;
	}

	const db = openDatabase(loadConfig(process.env).databasePath);
	try {
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
