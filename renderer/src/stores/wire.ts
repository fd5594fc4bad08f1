/** Routes contract events to the stores that own them. Returns an unsubscribe. */
import type { ApiEvent } from '../../../core/api/contract.js';
import { useBuildsStore } from './builds.js';
import { useDatasetsStore } from './datasets.js';
import { useProfilesStore } from './profiles.js';
import { useRunsStore } from './runs.js';

export function routeEvent(e: ApiEvent): void {
  switch (e.event) {
    case 'jobs:progress':
      if (e.data.kind === 'build') useBuildsStore.getState().onProgress(e.data);
      else if (e.data.kind === 'check') useDatasetsStore.getState().onCheckProgress(e.data);
      else useProfilesStore.getState().onProgress(e.data);
      break;
    case 'jobs:sample':
      useProfilesStore.getState().onSample(e.data);
      break;
    case 'jobs:finished':
      if (e.data.kind === 'build') useBuildsStore.getState().onFinished(e.data);
      else if (e.data.kind === 'check') useDatasetsStore.getState().onCheckFinished(e.data);
      else useProfilesStore.getState().onFinished(e.data);
      break;
    case 'runs:changed':
      if (useRunsStore.getState().loaded) void useRunsStore.getState().load();
      break;
  }
}

export function wireEvents(subscribe: (cb: (e: ApiEvent) => void) => () => void): () => void {
  return subscribe(routeEvent);
}
