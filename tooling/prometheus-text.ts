/** One sample of Prometheus' text format: `name{label="value",…} 12`. */
export interface Sample {
	name: string;
	labels: Record<string, string>;
	value: number;
}

/** The samples of a text-format exposition (comments and blank lines left out). */
export function parseExposition(text: string): Sample[] {
	const samples: Sample[] = [];
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('#')) continue;
		const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
		if (!match) throw new Error(`not a sample line: ${line}`);
		const labels: Record<string, string> = {};
		for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
			labels[name] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
		samples.push({ name: match[1], labels, value: Number(match[3]) });
	}
	return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function total(
	samples: Sample[],
	name: string,
	labels: Record<string, string> = {},
): number {
	return samples
		.filter(
			(sample) =>
				sample.name === name &&
				Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
		)
		.reduce((sum, sample) => sum + sample.value, 0);
}
