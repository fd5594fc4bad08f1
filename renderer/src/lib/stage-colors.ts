/**
 * One colour per stage *name*, everywhere: a stage keeps its colour whichever row, engine or
 * run it appears in (the walk found orange meaning "decode" in one row and "flip" in the next
 * when colours went by position). The stages the loaders name are fixed here; any other name
 * gets one of the spare colours by a hash of the name, so it too is stable across screens.
 */
const KNOWN: Record<string, string> = {
  read: '#76b7b2',
  decode: '#4e79a7',
  // FFCV's read and decode are one prefix: its own colour, not mistakable for ours' decode.
  'read+decode': '#7b4fa6',
  crop: '#edc948',
  flip: '#f28e2b',
  'to CHW': '#59a14f',
  normalize: '#e15759',
  copy: '#a0a0a0',
};

const SPARE = ['#b07aa1', '#9c755f', '#ff9da7', '#8cd17d', '#499894', '#d37295', '#86bcb6', '#f1ce63'];

/** The stage's colour: fixed for the stages the loaders name, else a spare one chosen by the name. */
export function stageColor(stage: string): string {
  const known = KNOWN[stage];
  if (known) return known;
  let h = 0;
  for (let i = 0; i < stage.length; i++) h = (h * 31 + stage.charCodeAt(i)) >>> 0;
  return SPARE[h % SPARE.length]!;
}

/** The stage names of some points, in the order first met (the legend's order). */
export function stageNames(points: ReadonlyArray<{ stages?: { stages: ReadonlyArray<{ stage: string }> } | null }>): string[] {
  const out: string[] = [];
  for (const p of points) for (const s of p.stages?.stages ?? []) if (!out.includes(s.stage)) out.push(s.stage);
  return out;
}

/** "2.1" / "0.35" / "12": ms per image with the precision its size needs. */
export function msText(ms: number): string {
  return ms >= 10 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(2);
}
