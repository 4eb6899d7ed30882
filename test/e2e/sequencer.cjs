// The end-to-end suites in a fixed order, two at a time (jest.e2e.config.cjs), so that both workers
// finish together (docs/testing.md has each suite's time); jest's own order needs timings from an
// earlier run, which a fresh clone lacks. .ci/run installs the pinned n8n one after another (2.x,
// 1.x, 2.x-oldest, 1.x-oldest) while the checks and the first suites run: the console's two suites,
// which need no n8n, come first, while 2.x may still be installing; then the two longest, on the
// newest 2.x, the newest 1.x's next on the first worker to free, and the short ones (`npm run dev`,
// the traces', the oldest pins') fill the other.
const Sequencer = require('@jest/test-sequencer').default;

const ORDER = [
	'console',
	'console-endpoint',
	'n8n2-queue-mode',
	'n8n2-single-process',
	'n8n1-single-process',
	'dev-command',
	'n8n2-traces',
	'n8n2-oldest',
	'n8n1-oldest',
	'n8n-latest',
];
const rank = (path) => {
	const index = ORDER.findIndex((name) => path.endsWith(`${name}.e2e.ts`));
	return index === -1 ? ORDER.length : index;
};

module.exports = class EndToEndSequencer extends Sequencer {
	sort(tests) {
		return [...tests].sort((a, b) => rank(a.path) - rank(b.path));
	}
};
