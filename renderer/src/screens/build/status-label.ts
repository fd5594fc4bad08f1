import type { BuildJob } from '../../stores/builds.js';

/** A build's status as the tabs and the status card say it. */
export const STATUS_LABEL: Record<BuildJob['status'], string> = {
  running: 'Building',
  ok: 'Done',
  cancelled: 'Cancelled',
  failed: 'Failed',
};
