/**
 * Migration 004: each telemetry sample keeps the loading process's own CPU (a busy fraction
 * of all logical CPUs, next to the machine's per-core readings) and the consumer's mean wait
 * per batch in the interval (TelemetrySample.processCpu, waitMsPerStep): what the app's
 * profile charts explain a bottleneck with. NULL in samples recorded before this.
 *
 * RELEASED once committed: never edit; change the schema with a new numbered migration.
 */
export const name = 'sample-process-cpu-wait';

export const sql = `
ALTER TABLE samples ADD COLUMN proc_cpu REAL;  -- TelemetrySample.processCpu (0..1 of all CPUs), or NULL
ALTER TABLE samples ADD COLUMN wait_ms REAL;   -- TelemetrySample.waitMsPerStep (ms), or NULL
`;
