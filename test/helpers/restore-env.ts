/**
 * Puts process.env back to `saved` (a copy taken earlier) in place: keys added since are
 * deleted, changed ones reset. Assigning the copy to process.env instead would leave the
 * process with a plain object (test/helpers/shared-process-guard.ts says why that matters).
 */
export function restoreEnv(saved: Readonly<Record<string, string | undefined>>): void {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}
