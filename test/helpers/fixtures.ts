import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Golden files written by the real FFCV (copied into the repo: a clone with nothing beside it must test). */
export const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/ffcv');

export interface Manifest {
  fixture: string;
  beton: string;
  file_size: number;
  file_sha256: string;
  num_samples: number;
  page_size: number;
  writer: {
    fields: Array<Record<string, unknown> & { name: string; class: string }>;
    page_size: number;
    chunksize: number;
    np_random_seed_before_write: number | null;
  };
  layout: { regions: Array<{ name: string; offset: number; size: number; sha256: string }> } & Record<string, unknown>;
  samples: Array<Record<string, unknown>>;
  inputs: Array<Record<string, unknown>> | null;
}

export function fixtureNames(): string[] {
  const index = JSON.parse(readFileSync(join(FIXTURES, 'index.json'), 'utf8')) as { fixtures: Array<{ name: string }> };
  return index.fixtures.map((f) => f.name);
}

export function manifest(name: string): Manifest {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Manifest;
}

export const fixturePath = (name: string): string => join(FIXTURES, `${name}.beton`);
export const haveFixtures = (): boolean => existsSync(join(FIXTURES, 'index.json'));
