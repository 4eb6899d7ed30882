// The end-to-end suites in a fixed order, three at a time (jest.e2e.config.cjs), so that the
// workers finish together (docs/testing.md has each suite's time); jest's own order needs timings from
// an earlier run, which a fresh clone lacks. .ci/run installs the pinned n8n one after another (2.x,
// 1.x, 2.x-oldest, 1.x-oldest) while the suites run, and runs the unit tests beside their first
// minutes: the two longest suites, on the newest 2.x, start first; the third worker meanwhile runs
// the console's suites (no n8n), then the newest 1.x's, then `npm run dev`'s, which builds the
// package in the checkout and so must not run while the unit tests' package test builds it too;
// the oldest pins' short suites go to whichever worker frees first.
const Sequencer = require('@jest/test-sequencer').default;

const ORDER = [
	'n8n2-queue-mode',
	'n8n2-single-process',
	'console',
	'console-endpoint',
	'n8n1-single-process',
	'dev-command',
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
