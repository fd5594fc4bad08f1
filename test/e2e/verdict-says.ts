/**
 * What the answer on the Profile screen SAYS (issue 33 item 13, issue 27's answer), not merely
 * that some text arrived: the card names a measured bottleneck (not "unknown": a sweep measured
 * something), its badge shows it, the summary says what a contended machine did when the answer
 * is contention, the best is a positive rate, the evidence quotes numbers and there is at least
 * one action to press.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const MEASURED = ['contention', 'decode', 'storage', 'network', 'parallelism', 'input', 'compute', 'gpu', 'balanced'];

/** Checks the answer card on `page`; returns its bottleneck and summary for further checks. */
export async function expectVerdictSays(page: Page): Promise<{ kind: string; summary: string }> {
  const card = page.getByTestId('verdict');
  const kind = (await card.getAttribute('data-bottleneck')) ?? 'none';
  const summary = ((await card.getByTestId('answer-summary').textContent()) ?? '').trim();
  expect(MEASURED, `a measured bottleneck, got "${kind}": ${summary}`).toContain(kind);
  expect(await card.getByTestId('answer-bottleneck').textContent()).toBe(kind);
  expect(summary.length, 'the answer has a summary').toBeGreaterThan(20);
  if (kind === 'contention') expect(summary).toMatch(/Other processes used \d+(\.\d+)?% of the CPUs/);
  const best = Number(await card.getByTestId('answer-best').getAttribute('data-value'));
  expect(best, 'the best rate is a measured rate').toBeGreaterThan(0);
  const evidence = await card.getByTestId('answer-evidence').locator('li').allTextContents();
  expect(
    evidence.some((e) => /\d/.test(e)),
    `evidence quotes measurements: ${evidence.join(' | ')}`,
  ).toBe(true);
  expect(await card.getByTestId('answer-actions').locator('button').count(), 'an action to press').toBeGreaterThan(0);
  return { kind, summary };
}
