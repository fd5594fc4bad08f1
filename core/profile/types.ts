// The profiler's data model lives in the contract (core/api/profile-model.ts), where the
// renderer can see it too; re-exported here for core's own modules.
export type * from '../api/profile-model.js';
