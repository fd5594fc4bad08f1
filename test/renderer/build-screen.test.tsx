// @vitest-environment happy-dom
/**
 * Issue 30's Build items that a browser's timing would make flaky end to end: a build with
 * fewer than three throughput samples shows its rate as a number (a chart of one or two points
 * drew ticks "1 1 1"), three or more draw the chart; messages lose the CLI's flag.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { inAppWords, offersSkip } from '../../renderer/src/lib/app-words.js';
import { ThroughputChart } from '../../renderer/src/screens/build/ThroughputChart.js';

afterEach(cleanup);

describe('issue 30, Build screen pieces', () => {
  it('one or two samples: a number; three: the chart', () => {
    render(<ThroughputChart history={[{ t: 0.4, rate: 120, done: 48 }]} />);
    expect(screen.getByTestId('throughput-number').textContent).toBe('120 samples/s at 0.4 s');
    cleanup();
    const three = [0.5, 1, 1.5].map((t, i) => ({ t, rate: 100 + i, done: i * 10 }));
    render(<ThroughputChart history={three} />);
    expect(screen.queryByTestId('throughput-number')).toBeNull();
    expect(screen.getByTestId('throughput-chart').getAttribute('data-count')).toBe('3');
  });

  it("a core message in the app's words: no --on-error skip, the rest of the advice kept", () => {
    const m = 'cannot read image a.jpg: the file is empty (0 bytes); re-download or remove it, or build with --on-error skip';
    expect(offersSkip(m)).toBe(true);
    expect(inAppWords(m)).toBe('cannot read image a.jpg: the file is empty (0 bytes); re-download or remove it');
    expect(offersSkip('the output exists')).toBe(false);
  });
});
