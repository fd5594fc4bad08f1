/**
 * What the front ends print a profile run with (`beton profile`, `beton runs show`): a
 * point's spread over its slices (its noise) and an answer's action as a command line. Both
 * are small and pure: `beton runs` loads them, not the profiler.
 */
export { spreadOf } from '../profile/engines/engine-points.js';
export { actionCommand } from '../profile/verdict/action-command.js';
