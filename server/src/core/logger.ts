/** Where the server reports what it does; tests pass one that records, production prints. */
export interface Logger {
	info(message: string): void;
	error(message: string, error?: unknown): void;
}
