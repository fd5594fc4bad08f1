import type { StoreApi, UseBoundStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';

/**
 * The named fields of a store, as one object that changes only when one of them does
 * (zustand's useShallow): a component re-renders for what it shows, never for the rest of
 * the store (a running job's telemetry, another build's progress).
 */
export function usePick<S extends object, K extends keyof S>(useStore: UseBoundStore<StoreApi<S>>, ...keys: K[]): Pick<S, K> {
  return useStore(
    useShallow((s: S) => {
      const out = {} as Pick<S, K>;
      for (const k of keys) out[k] = s[k];
      return out;
    }),
  );
}
