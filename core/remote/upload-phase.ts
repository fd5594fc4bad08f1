/**
 * Named points of an upload to object storage, for the interrupt tests (and for seeing
 * where a slow upload spends its time): with BETON_UPLOAD_TRACE=1 each is printed to stderr
 * as it starts (`beton: upload phase NAME`); BETON_UPLOAD_PAUSE=NAME:MS[,NAME:MS] waits
 * there (cut short by the signal), so a test can send a signal inside a chosen phase.
 * Unset (always, outside tests), a phase costs nothing.
 */
export type UploadPhase = 'create' | 'build' | 'part' | 'rest' | 'manifest' | 'head' | 'complete' | 'completed' | 'verify';

export async function uploadPhase(name: UploadPhase, signal?: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env['BETON_UPLOAD_TRACE'] === '1') process.stderr.write(`beton: upload phase ${name}\n`);
  const pause = env['BETON_UPLOAD_PAUSE'];
  if (!pause) return;
  for (const item of pause.split(',')) {
    const [phase, ms] = item.split(':');
    if (phase !== name) continue;
    const wait = Number(ms);
    if (!Number.isFinite(wait) || wait <= 0) continue;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, wait);
      function done(): void {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
