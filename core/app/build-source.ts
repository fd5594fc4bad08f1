import type { SourceConfig } from '../api/build-config.js';
import type { DatasetSource } from '../sources/common/source.js';
import { openSource, type OpenSourceOptions } from '../sources/open-source.js';

/**
 * The source of one build, opened at most once (issue 32): planning detects it (a CSV's
 * detection opens the table, whose reader comes along in `opts.table`), the output guard
 * reads a list's names from it, `--columns`/`--schema-only` detect its fields and the write
 * reads its samples, all from the one DatasetSource `open()` gives. `beton build` used to
 * open its source three times (a CSV is read through at each open to count its rows, an
 * image folder walked), once in each of plan-build, the guard and the write.
 */
export class BuildSource {
  private opened: Promise<DatasetSource> | null = null;

  constructor(
    /** As the config names it; relative paths resolve from `baseDir`. */
    readonly config: SourceConfig,
    readonly baseDir: string,
    private readonly opts: OpenSourceOptions = {},
  ) {}

  /** The opened source: opened on the first call, the same object (or the same failure) after. */
  open(): Promise<DatasetSource> {
    this.opened ??= openSource(this.config, this.baseDir, this.opts);
    return this.opened;
  }
}
