/**
 * The two test tiers, in one place. `npm test` (vitest.config.ts) runs every test file;
 * `npm run test:fast` (vitest.fast.config.ts) leaves out what is listed here: whole folders
 * that need a browser, FFCV/torch or a packed install, and single files that need Python, a
 * Slurm cluster, or run long fuzz or kill loops. test/architecture/test-tiers.test.ts checks
 * that every test file is in the full tier and that every entry here still names a file.
 *
 * A new test lands in the fast tier by default; add it here, with the reason, when it needs one
 * of the above or takes over ~20 s alone on a quiet machine (measure with
 * `npx vitest run --reporter=json --outputFile=/tmp/t.json FILE`).
 */

/** Every test file, in both tiers' terms (globs relative to the repository root). */
export const TEST_FILES = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

/** Folders the fast tier skips whole. */
export const SLOW_FOLDERS: Readonly<Record<string, string>> = {
  'test/e2e/': 'real Chromium (playwright-core), a browser per file',
  'test/interop/': 'real FFCV and torch in /usr/bin/python3',
  'test/install/': 'npm pack + install: compiles libjpeg-turbo',
};

/** Single files the fast tier skips, with the reason. */
export const SLOW_FILES: Readonly<Record<string, string>> = {
  'test/cli/slurm.test.ts': 'a real Slurm cluster',
  'test/format/float16.test.ts': 'numpy property test in python3',
  'test/profile/profile-probe.test.ts': 'python3 probe',
  'test/fields/custom-field-type.test.ts': 'runs the generated field under the real FFCV where it is installed',
  'test/sources/video.test.ts': 'ffmpeg-encoded clips and a numpy check in python3 (~54 s under load)',
  'test/sources/webdataset.test.ts': 'python3 + torchvision build the reference shards',
  'test/loader/orders/orders-native-shuffle.test.ts': 'long draw-for-draw shuffle cross-check (83 s under load)',
  'test/reader/fuzz-reader.test.ts': 'seeded fuzz loop',
  'test/sources/parquet-fuzz.test.ts': 'seeded byte-flip fuzz loop',
  'test/native/native-abort.test.ts': 'kill loop (aborts child processes)',
  'test/writer/build-kill.test.ts': 'kill loop (kills builds mid-write)',
  'test/profile/answer-scenarios.test.ts':
    'python3 (the torch engine cases), CPU hogs on purpose, a real profile run per case (441 s at load 25; profile-verdict and answer-surfaces stay fast)',
  'test/remote/remote-stream.test.ts':
    'kill loops: 35 uploads signalled in each phase and at random times, and a 115 MB build to s3 (186 s at load ~12)',
  'test/loader/loader-variants.test.ts':
    'the cache, worker-count, rank and explicit-option variants of loader.test.ts (which keeps one of each): a loader per variant, ~25 worker starts',
  'test/loader/memory/large-files-pages.test.ts':
    'a 4.5 GiB file, 2^31-byte and 512-byte pages, both memory managers each (large-files.test.ts keeps the window-edge file fast)',
  'test/loader/drop-last-ffcv.test.ts': 'runs the exported loader under the real FFCV in python3 (drop-last.test.ts keeps the rest fast)',
  'test/loader/fuzz-loader-memory.test.ts':
    'seeded fuzz loop over sparse files up to 2^35 bytes (test/loader/memory/large-files.test.ts keeps the fixed cases fast)',
};

/** The fast tier's exclude globs, derived from the lists above. */
export function fastTierExcludes(): string[] {
  return [...Object.keys(SLOW_FOLDERS).map((dir) => `${dir}**`), ...Object.keys(SLOW_FILES)];
}
