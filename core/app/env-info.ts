/**
 * What this host runs on, as the front ends report it: the app's `env.info` (machine, GPUs,
 * the loader's JPEG decode path, the runs database) and `beton inspect --env` (the decode
 * path and why, the native addons, the machine). Each front end adds what is its own (the
 * service its roots and exec switch, the CLI its layout).
 */
import { availableParallelism, totalmem } from 'node:os';
import type { EnvInfo } from '../api/contract.js';
import type { MachineInfo } from '../api/profile-model.js';
import type { TurboStatus } from '../native/turbo.js';
import { defaultDbPath } from '../runs/location.js';

// The decode path, the GPU query and the machine are loaded when asked for (the service
// imports this module at start; `inspect --env` is the CLI's only user).

/** The host part of `env.info`: the machine, its GPUs (none when nvidia-smi fails) and the decode path. */
export async function hostInfo(dbPath?: string): Promise<Omit<EnvInfo, 'version' | 'roots' | 'host' | 'allowExec'>> {
  const { decodePath, decoderName } = await import('../native/turbo.js');
  const { gpuInventory } = await import('../profile/sampling/gpu-sampler.js');
  const gpus = await gpuInventory().catch(() => []);
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cores: availableParallelism(),
    ramBytes: totalmem(),
    gpus,
    decodePath: decodePath(),
    decoderName: decoderName(),
    dbPath: dbPath ?? defaultDbPath(),
  };
}

export interface DecodeEnv {
  decodePath: string;
  decode: string;
  turbo: TurboStatus;
  writerJpeg: string;
  node: string;
  machine: MachineInfo;
}

/** `beton inspect --env`: which decode path the loader uses and why, the writer's JPEG codec, the machine. */
export async function decodeEnv(): Promise<DecodeEnv> {
  const { describeDecodePath, decodePath, turboStatus } = await import('../native/turbo.js');
  const { native } = await import('../native/beton-addon.js');
  const { machineInfo } = await import('../profile/sampling/machine.js');
  const machine = await machineInfo();
  return {
    decodePath: decodePath(),
    decode: describeDecodePath(),
    turbo: turboStatus(),
    writerJpeg: native.jpegLibrary,
    node: process.version,
    machine,
  };
}
