/** Shared by the renderer tests: a fake transport (no server) and store resets. */
import type { ApiEvent, Envelope, Method } from '../../core/api/contract.js';
import type { TelemetrySample } from '../../core/api/profile-model.js';
import { setTransport, type Transport } from '../../renderer/src/lib/api.js';
import { useBuildsStore } from '../../renderer/src/stores/builds.js';
import { useDatasetsStore } from '../../renderer/src/stores/datasets.js';
import { useEnvStore } from '../../renderer/src/stores/env.js';
import { useExportStore } from '../../renderer/src/stores/export.js';
import { useProfilesStore } from '../../renderer/src/stores/profiles.js';
import { useRunsStore } from '../../renderer/src/stores/runs.js';
import { useSourcesStore } from '../../renderer/src/stores/sources.js';
import { useUiStore } from '../../renderer/src/stores/ui.js';

export type Handler = (params: Record<string, unknown>) => unknown;

export interface FakeTransport extends Transport {
  calls: Array<{ method: Method; params: unknown }>;
  emit(e: ApiEvent): void;
}

/** Answers with handler results (or their thrown `{code, message}`); unknown methods fail like a host would. */
export function fakeTransport(handlers: Partial<Record<Method, Handler>>): FakeTransport {
  const listeners = new Set<(e: ApiEvent) => void>();
  const calls: FakeTransport['calls'] = [];
  const t: FakeTransport = {
    kind: 'http',
    calls,
    async invoke(method, params): Promise<Envelope<unknown>> {
      calls.push({ method, params });
      const h = handlers[method];
      if (!h) return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `no handler for ${method}` } };
      try {
        return { ok: true, value: await h((params ?? {}) as Record<string, unknown>) };
      } catch (e) {
        const err = e as { code?: string; message?: string };
        return { ok: false, error: { code: err.code ?? 'FAILED', message: err.message ?? String(e) } };
      }
    },
    onEvent(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    emit(e) {
      for (const l of listeners) l(e);
    },
  };
  setTransport(t);
  return t;
}

export function failWith(code: string, message: string): never {
  throw Object.assign(new Error(message), { code });
}

export function resetStores(): void {
  for (const s of [
    useBuildsStore,
    useDatasetsStore,
    useEnvStore,
    useExportStore,
    useProfilesStore,
    useRunsStore,
    useSourcesStore,
    useUiStore,
  ] as const) {
    (s as { setState(v: unknown, replace: true): void }).setState(s.getInitialState(), true);
  }
}

export const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A telemetry sample at `t` ms of grid point `point`, measuring `ips` per second. */
export const sample = (t: number, point: number | null, ips: number | null): TelemetrySample => ({
  t,
  point,
  imagesPerSec: ips,
  cpuPerCore: [0.5],
  rssBytes: 1,
  diskReadBytes: 0,
  gpus: [],
});
