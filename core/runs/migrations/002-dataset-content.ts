/**
 * Migration 002: each run records the content hash of the dataset it measured
 * (DatasetInfo.contentSha256: sha256 of the header, field table and allocation table).
 * A path does not identify a dataset (a file rebuilt in place with other settings keeps
 * it), and the datasets row is shared by every run of a (path, header) pair, so the hash
 * lives with the run, as measured. Runs recorded before this have NULL: "unknown".
 *
 * RELEASED once committed: never edit; change the schema with a new numbered migration.
 */
export const name = 'dataset-content';

export const sql = `
ALTER TABLE profile_runs ADD COLUMN dataset_sha256 TEXT;  -- DatasetInfo.contentSha256 at the run, or NULL
`;
