import { create } from 'zustand';
import type { EnvInfo } from '../../../core/api/contract.js';
import { call, toApiError, type ApiError } from '../lib/api.js';
import { useUiStore } from './ui.js';

interface EnvState {
  info: EnvInfo | null;
  loading: boolean;
  error: ApiError | null;
  load(): Promise<void>;
}

export const useEnvStore = create<EnvState>()((set, get) => ({
  info: null,
  loading: false,
  error: null,
  load: async () => {
    if (get().loading) return;
    set({ loading: true, error: null });
    try {
      const info = await call('env.info', {});
      set({ info, loading: false });
      useUiStore.getState().setUnauthorized(false);
    } catch (e) {
      const error = toApiError(e);
      set({ error, loading: false });
      if (error.code === 'UNAUTHORIZED') useUiStore.getState().setUnauthorized(true);
    }
  },
}));
