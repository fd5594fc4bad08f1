import { createHash } from 'node:crypto';
import type { DatasetInfo, MachineInfo } from '../api/profile-model.js';
import type { Store } from './store.js';
import { check, DatasetSchema, MachineSchema, toJson } from './validate.js';

// The machines and datasets a run or a build refers to, each recorded once (deduplicated)
// and referred to by id.

/** Records a machine (deduplicated: the same description gives the same id). */
export function recordMachine(s: Store, m: MachineInfo): number {
  const v = check(MachineSchema, m, 'machine');
  const gpus = toJson(v.gpus, 'machine.gpus');
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([v.hostname, v.cpuModel, v.cores, v.ramBytes, v.os, v.node, gpus]))
    .digest('hex');
  const row = s.db
    .prepare<unknown[], { id: number }>(
      `INSERT INTO machines (fingerprint, hostname, cpu_model, cores, ram_bytes, gpus, os, node, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (fingerprint) DO UPDATE SET hostname = excluded.hostname RETURNING id`,
    )
    .get(fingerprint, v.hostname, v.cpuModel, v.cores, v.ramBytes, gpus, v.os, v.node, new Date().toISOString());
  return row!.id;
}

/** Records a dataset (deduplicated by path + header sha256; size, count and schema are refreshed). */
export function recordDataset(s: Store, d: DatasetInfo): number {
  const v = check(DatasetSchema, d, 'dataset');
  const now = new Date().toISOString();
  const row = s.db
    .prepare<unknown[], { id: number }>(
      `INSERT INTO datasets (path, header_sha256, size_bytes, num_samples, schema, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (path, header_sha256) DO UPDATE SET size_bytes = excluded.size_bytes, num_samples = excluded.num_samples,
         schema = excluded.schema, last_seen = excluded.last_seen RETURNING id`,
    )
    .get(v.path, v.headerSha256, v.sizeBytes, v.numSamples, toJson(v.schema, 'dataset.schema'), now, now);
  return row!.id;
}
