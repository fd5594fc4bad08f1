/**
 * What a verdict on the Profile screen SAYS (issue 33 item 13), not merely that some text
 * arrived: the card names a measured kind (not "none", not "unknown": a sweep measured
 * something), the badge shows that kind, the summary opens with that kind's label — or, on a
 * machine busy with other processes, with the contention notice the profiler puts first — and
 * the evidence quotes numbers.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const LABEL: Record<string, string> = {
  'input-bound': 'Input-bound:',
  'decode-bound': 'Decode-bound:',
  'disk-bound': 'Disk-bound:',
  'network-bound': 'Network-bound:',
  'gpu-bound': 'GPU-bound:',
  balanced: 'Balanced:',
};

/** Checks the verdict card on `page`; returns its kind and summary for further checks. */
export async function expectVerdictSays(page: Page): Promise<{ kind: string; summary: string }> {
  const card = page.getByTestId('verdict');
  const kind = (await card.getAttribute('data-kind')) ?? 'none';
  const summary = ((await page.getByTestId('verdict-summary').textContent()) ?? '').trim();
  const label = LABEL[kind];
  expect(label, `a measured verdict kind, got "${kind}": ${summary}`).toBeDefined();
  expect(await card.locator('.badge').first().textContent()).toBe(kind);
  const contended =
    /^Other processes used \d+(\.\d+)?% of the CPUs \(the loader \d+(\.\d+)?%\); this measurement understates the loader\. /;
  const body = summary.replace(contended, '');
  // Contention rewrites decode-bound and balanced into "The consumer waits …"; other kinds keep their label.
  if (body !== summary && /^The consumer waits/.test(body)) expect(['input-bound', 'balanced']).toContain(kind);
  else expect(body.startsWith(label!), `summary of a ${kind} verdict: ${summary}`).toBe(true);
  const evidence = await page.getByTestId('verdict-evidence').locator('li').allTextContents();
  expect(evidence.length).toBeGreaterThan(0);
  expect(
    evidence.some((e) => /\d/.test(e)),
    `evidence quotes measurements: ${evidence.join(' | ')}`,
  ).toBe(true);
  return { kind, summary };
}
