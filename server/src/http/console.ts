import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ApiError } from '../core/errors.ts';

export const CONSOLE_PATH = '/console';

/** The console's address beside an API base URL: `http://host:3000/api/v1` → `http://host:3000/console/`. */
export function consoleUrlOf(apiUrl: string): string {
	return new URL(`${CONSOLE_PATH}/`, apiUrl).href;
}

/**
 * Nothing runs but the console's own scripts, nothing loads from another origin, no page may frame
 * it, and (Trusted Types) no script can turn a string into HTML: text from the API stays text.
 */
export const CONSOLE_CSP = [
	"default-src 'none'",
	"script-src 'self'",
	"style-src 'self'",
	"img-src 'self'",
	"connect-src 'self'",
	"base-uri 'none'",
	"form-action 'none'",
	"frame-ancestors 'none'",
	"require-trusted-types-for 'script'",
	"trusted-types 'none'",
].join('; ');

function consoleHeaders(_req: Request, res: Response, next: NextFunction): void {
	res.setHeader('Content-Security-Policy', CONSOLE_CSP);
	res.setHeader('Referrer-Policy', 'no-referrer');
	res.setHeader('X-Content-Type-Options', 'nosniff');
	res.setHeader('X-Frame-Options', 'DENY');
	res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
	res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
	res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
	next();
}

/**
 * The web console: static files only. It is a client of /api/v1 like any other (every action is a
 * request there with the signed-in key), so it needs no route of its own.
 */
export function consoleRouter(buildDir: string | undefined): Router {
	const router = express.Router();
	router.use(consoleHeaders);
	// Checked on each request, so a console built while the server runs is served without a restart.
	router.use((_req, _res, next) =>
		next(
			buildDir && existsSync(join(buildDir, 'index.html'))
				? undefined
				: new ApiError(
						'not_found',
						'The console is not built in this checkout: run `npm run build:console`, then reload.',
					),
		),
	);
	if (!buildDir) return router;
	router.use(
		express.static(buildDir, {
			index: 'index.html',
			dotfiles: 'ignore',
			etag: true,
			lastModified: true,
			// Always revalidated (a 304 when unchanged), so a rebuilt console is picked up at once.
			cacheControl: false,
			setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
		}),
	);
	return router;
}
