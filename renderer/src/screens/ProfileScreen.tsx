import { EmptyState } from '../components/States.js';
import { shownJob, useProfilesStore } from '../stores/profiles.js';
import { LiveJob } from './profile/LiveJob.js';
import { ProfileFormCard } from './profile/ProfileFormCard.js';

/**
 * The Profile screen: what to measure (a loader sweep or a training command) and the job it
 * started, live. It selects only whether a job is shown: the job's telemetry re-renders
 * LiveJob alone, not the form.
 */
export function ProfileScreen() {
  const hasJob = useProfilesStore((s) => shownJob(s) !== null);
  return (
    <div className="screen" data-testid="screen-profile">
      <header className="screen-head">
        <h2>Profile</h2>
        <p>Measure how fast a dataset loads across a grid of settings — or sample your own training command — and find the bottleneck.</p>
      </header>
      <ProfileFormCard />
      {hasJob ? (
        <LiveJob />
      ) : (
        <EmptyState title="No profile running">
          <p>
            A sweep runs the loader for a few seconds at each point of the grid and charts images/s, CPU per core and GPU use live; it ends
            with a verdict and what to try next.
          </p>
        </EmptyState>
      )}
    </div>
  );
}
