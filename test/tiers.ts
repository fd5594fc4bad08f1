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
  'test/profile/answer-surfaces-ffcv.test.ts':
    'real FFCV in python3: its start-up, numba compiles and ablation (~42 s quiet; answer-surfaces.test.ts checks the surfaces on a beton-only sweep fast)',
  'test/remote/remote-stream.test.ts':
    'kill loops: 35 uploads signalled in each phase and at random times, and a 115 MB build to s3 (186 s at load ~12)',
  'test/profile/profile-contention.test.ts': 'CPU hogs on purpose for its whole sweep: every file running beside it slows down too',
  'test/services/confinement-race.test.ts': 'filesystem races: a folder swapped for a link, tried many times while builds run',
  'test/app/check/look-alikes-scale.test.ts':
    'scale: beton check on 100,000 look-alike images under a 1 GiB heap (36 s quiet; look-alikes.test.ts keeps a 1,200-image capped case fast)',
  'test/runs/runs-concurrency.test.ts':
    'races among child processes: four opening one fresh file at once (3 rounds), two saving 200 runs each (18 s quiet)',
  'test/remote/remote-loader-orders.test.ts':
    'every order and distributed rank, each loaded twice over S3 and HTTP and once locally (~50 s quiet; remote-loader keeps one case fast)',
  'test/remote/remote-write-sigkill.test.ts':
    'kills a 400k-row build to s3 with SIGKILL (remote-write keeps the SIGTERM case fast; remote-stream has the kill loops)',
  'test/remote/remote-read-fixtures.test.ts':
    'the fixture x backend matrix: three more fixtures over S3 and HTTP, a fetch thread per open (remote-read keeps two fixtures fast)',
  'test/remote/remote-profile.test.ts': 'a real profile sweep over s3:// (remote-cli keeps the other commands over URLs fast)',
  'test/loader/loader-variants.test.ts':
    'the cache, worker-count, rank and explicit-option variants of loader.test.ts (which keeps one of each): a loader per variant, ~25 worker starts',
  'test/loader/memory/large-files-pages.test.ts':
    'a 4.5 GiB file, 2^31-byte and 512-byte pages, both memory managers each (large-files.test.ts keeps the window-edge file fast)',
  'test/loader/drop-last-ffcv.test.ts': 'runs the exported loader under the real FFCV in python3 (drop-last.test.ts keeps the rest fast)',
  'test/loader/fuzz-loader-memory.test.ts':
    'seeded fuzz loop over sparse files up to 2^35 bytes (test/loader/memory/large-files.test.ts keeps the fixed cases fast)',
  'test/reader/reader-crosscheck-decoders.test.ts':
    'every loader decoder on every edited image metadata, a Loader worker each (20; reader-crosscheck keeps one decoder per edit fast)',
  'test/writer/crops-vs-ffcv.test.ts': "FFCV's crops in python3 on 20 000 random cases (small-datasets keeps the 1×1 cases fast)",
  'test/writer/writer-transcode-matrix.test.ts':
    'transcodeJpeg on seven sizes up to 512×512, every write mode built four ways, a 24-copy race of odd JPEGs (writer-transcode keeps a slice fast)',
  'test/writer/golden-rebuild-workers.test.ts':
    'the 14 byte-identity rebuilds under 1 and 2 encode workers, a worker start each (golden-rebuild keeps every fixture fast on the calling thread)',
  'test/sources/wide-csv-scale.test.ts': 'two 130 000-column CSVs through spawned builds (wide-csv keeps a 300-column case fast)',
  'test/sources/prototype-names-ffcv.test.ts':
    'the real FFCV in python3 reads prototype-named fields (prototype-names keeps Reader and Loader fast)',
};

/**
 * Files that need a process of their own. The node project shares one process and its module
 * cache among the files a worker runs (`isolate: false`: each file no longer pays ~0.5 s of
 * imports); a file that replaces a module with `vi.mock` would see the copy an earlier file
 * imported, and one that registers process-wide state (a field type) would hand it to the
 * files after it, so these run isolated, their workers started through tsx (they may import
 * the test's own .ts modules). test/architecture/test-tiers.test.ts checks that every file
 * calling vi.mock or registerFieldType is listed.
 */
export const ISOLATED_FILES: Readonly<Record<string, string>> = {
  'test/app/build-source.test.ts': "vi.mock of sources/open-source.js (counts a build's opens)",
  'test/fields/custom-field-type.test.ts':
    'registers a field type defined in a .ts file in the process-wide registry: every later loader and writer in a shared process would send it to their workers',
  'test/electron/electron-main.test.ts': 'vi.mock of electron',
  'test/electron/main-graph.test.ts': 'vi.mock of electron',
  'test/loader/memory/process-cache-limits.test.ts': "vi.mock of node:os (a machine's memory)",
  'test/renderer/profile-selectors.test.tsx': "vi.mock of the renderer's Form component",
};

/** The fast tier's exclude globs, derived from the lists above. */
export function fastTierExcludes(): string[] {
  return [...Object.keys(SLOW_FOLDERS).map((dir) => `${dir}**`), ...Object.keys(SLOW_FILES)];
}
