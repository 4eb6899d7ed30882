// The end-to-end suites in a fixed order, longest first, so that two jest workers finish together
// (docs/testing.md has each suite's time). jest's own order needs timings from an earlier run, which
// a fresh clone lacks. The newest n8n's are installed first (.ci/run), so they also come first.
const Sequencer = require('@jest/test-sequencer').default;

const ORDER = [
	'n8n2-queue-mode',
	'n8n2-single-process',
	'n8n1-single-process',
	'n8n2-oldest',
	'n8n1-oldest',
	'n8n-latest',
	'dev-command',
	'console',
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
