// @vitest-environment happy-dom
/**
 * Issue 23: the Profile screen subscribed to the whole profiles store, so every telemetry
 * sample of a running sweep (about 4 a second) re-rendered the whole form. Now the form
 * selects what it shows and only the live part follows the job: a sample re-renders the
 * live status and charts, never the form's inputs.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { createElement, type ComponentProps } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as FormModule from '../../renderer/src/components/Form.js';
import { setTransport } from '../../renderer/src/lib/api.js';
import { ProfileScreen } from '../../renderer/src/screens/ProfileScreen.js';
import { useProfilesStore } from '../../renderer/src/stores/profiles.js';
import { fakeTransport, resetStores, sample } from './helpers.js';

// Counts the form's text inputs as they render (the real component does the rendering).
const counts = vi.hoisted(() => ({ textFields: 0 }));
vi.mock('../../renderer/src/components/Form.js', async (importOriginal) => {
  const real = await importOriginal<typeof FormModule>();
  return {
    ...real,
    TextField: (props: ComponentProps<typeof real.TextField>) => {
      counts.textFields++;
      return createElement(real.TextField, props);
    },
  };
});

beforeEach(() => {
  resetStores();
  fakeTransport({ 'profiles.start': () => ({ jobId: 'p1' }) });
});
afterEach(() => {
  cleanup();
  setTransport(null);
});

describe('the Profile screen selects from its store', () => {
  it("a running sweep's telemetry re-renders the live status, not the form", async () => {
    const grid = [{ workers: 1, batchSize: 8, order: 'random' as const, osCache: true }];
    useProfilesStore.getState().setForm({ file: '/d.beton' });
    await useProfilesStore.getState().start({ plan: { file: '/d.beton' } }, grid);
    render(<ProfileScreen />);
    // The form is on screen (its inputs are counted) and so is the running job.
    expect(counts.textFields).toBeGreaterThan(0);
    expect(screen.getByTestId('profile-status').getAttribute('data-status')).toBe('running');
    const before = counts.textFields;
    act(() => {
      for (let i = 1; i <= 5; i++) useProfilesStore.getState().onSample({ jobId: 'p1', sample: sample(i * 250, 0, 100 * i) });
    });
    // The live part followed the samples...
    expect(screen.getByTestId('profile-rate').textContent).toMatch(/500/);
    // ...and the form did not render again.
    expect(counts.textFields).toBe(before);
    // Typing in the form still renders it.
    act(() => useProfilesStore.getState().setForm({ workers: '2' }));
    expect(counts.textFields).toBeGreaterThan(before);
  });
});
