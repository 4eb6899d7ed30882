// The signed-in key lives in this tab's session storage and nowhere else: another tab, a new
// browser session or signing out starts without it.
const KEY = 'traininglab.console.apiKey';

export function readKey(): string | null {
	return sessionStorage.getItem(KEY);
}

export function storeKey(key: string): void {
	sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
	sessionStorage.removeItem(KEY);
}
