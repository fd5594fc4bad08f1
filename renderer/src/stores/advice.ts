import { create } from 'zustand';
import type { BuildConfigInput } from '../../../core/api/build-config.js';
import type { BuildAdvice } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';

interface AdviceState {
  loading: boolean;
  error: ApiError | null;
  advice: BuildAdvice | null;
  /** The config the advice was made for (JSON): when the form moves on, the advice says it is stale. */
  madeFor: string | null;
  advise(config: BuildConfigInput, opts: { sample: number; loaderSize: number | null }): Promise<void>;
  clear(): void;
}

let seq = 0;

export const useAdviceStore = create<AdviceState>()((set) => ({
  loading: false,
  error: null,
  advice: null,
  madeFor: null,
  advise: async (config, { sample, loaderSize }) => {
    const my = ++seq;
    set({ loading: true, error: null });
    try {
      const advice = await call('builds.advise', { config, sample, loaderSize });
      if (my === seq) set({ advice, loading: false, madeFor: JSON.stringify(config) });
    } catch (e) {
      if (my === seq) set({ error: toApiError(e), loading: false });
    }
  },
  clear: () => {
    seq++;
    set({ loading: false, error: null, advice: null, madeFor: null });
  },
}));
