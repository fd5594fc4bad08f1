// @vitest-environment happy-dom
// Issue 18 item 5: honest live state. A lost connection marks a running job unknown (and a
// sample from the same server brings it back); a stopped job shows its best and last points,
// not a stale "now N img/s".
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTransport } from '../../renderer/src/lib/api.js';
import { rateText } from '../../renderer/src/lib/run-rates.js';
import { shownJob, useProfilesStore } from '../../renderer/src/stores/profiles.js';
import { fakeTransport, resetStores, sample } from './helpers.js';

beforeEach(resetStores);
afterEach(() => setTransport(null));

describe('a lost connection', () => {
  it('marks the running job unknown, with why; a later sample of the job brings it back to running', async () => {
    fakeTransport({ 'profiles.start': () => ({ jobId: 'j1' }) });
    await useProfilesStore.getState().start({ plan: { file: '/d.beton' } }, []);
    useProfilesStore.getState().onConnectionLost();
    const j = useProfilesStore.getState().job!;
    expect(j.status).toBe('unknown');
    expect(j.message).toMatch(/connection to the server was lost/);
    // Still shown, whatever the form says now.
    expect(shownJob({ job: j, form: { ...useProfilesStore.getState().form, mode: 'exec' } })).toBe(j);
    useProfilesStore.getState().onSample({ jobId: 'j1', sample: sample(100, 0, 50) });
    expect(useProfilesStore.getState().job).toMatchObject({ status: 'running', message: null });
  });

  it('leaves a finished job as it was', async () => {
    fakeTransport({ 'profiles.start': () => ({ jobId: 'j2' }) });
    await useProfilesStore.getState().start({ plan: { file: '/d.beton' } }, []);
    useProfilesStore.getState().onFinished({ jobId: 'j2', kind: 'profile', status: 'ok', result: { runId: 1, verdict: null, points: [] } });
    useProfilesStore.getState().onConnectionLost();
    expect(useProfilesStore.getState().job?.status).toBe('ok');
  });
});

describe('rateText', () => {
  const samples = [sample(0, 0, 100), sample(250, 0, 120), sample(500, 1, 300), sample(750, 2, 200)];
  it('running: now, from the latest sample', () => {
    expect(rateText('running', 'grid', samples, [])).toBe('now 200 img/s');
  });
  it('stopped sweep: the best and the last point (final points first, else live means), no "now"', () => {
    const pts = [
      { index: 0, imagesPerSec: 110 },
      { index: 1, imagesPerSec: 300 },
      { index: 2, imagesPerSec: 200 },
    ];
    expect(rateText('ok', 'grid', samples, pts)).toBe('best 300 img/s (point 2) · last 200 img/s (point 3)');
    expect(rateText('unknown', 'grid', samples, [])).toBe('best 300 img/s (point 2) · last 200 img/s (point 3)');
  });
  it('stopped command: its best and last windows; nothing measured, nothing said', () => {
    expect(rateText('cancelled', 'exec', samples, [])).toMatch(/^best 300 img\/s \(0\.5 s\) · last 200 img\/s \(0\.8 s\)$/);
    expect(rateText('failed', 'exec', [], [])).toBeNull();
  });
});
