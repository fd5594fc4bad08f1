/**
 * Migration 005: each point records the engine that measured it (PointConfig.engine: beton,
 * ffcv or torch), so runs can be listed and compared by engine. Points recorded before
 * engines were all measured by our loader: 'beton'.
 *
 * RELEASED once committed: never edit; change the schema with a new numbered migration.
 */
export const name = 'point-engine';

export const sql = `
ALTER TABLE points ADD COLUMN engine TEXT NOT NULL DEFAULT 'beton';  -- PointConfig.engine (absent in the JSON of older points)
`;
