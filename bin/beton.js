#!/usr/bin/env node
// The `beton` command. Runs the compiled CLI (built by `npm install` / `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/core/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('beton: the library is not built yet; run `npm run build` in the beton-studio checkout\n');
  process.exit(1);
}
// A reader that stops early (`beton dump F | head -n 1`) closes the pipe: that ends the
// command quietly with 0, as for any Unix filter, not with an EPIPE error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
