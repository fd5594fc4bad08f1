/**
 * One field value as the Dataset screen shows it (a preview row, a sample's detail). Its own
 * module so that the shapes that carry it (contract.ts, sample-detail.ts) both sit above it.
 */
export type PreviewValue =
  | { kind: 'image'; mime: 'image/png' | 'image/jpeg'; base64: string; width: number; height: number; mode: 'raw' | 'jpg' }
  /** `count`: the frames the file stores (base64 holds up to 8 of them, evenly spaced). */
  | { kind: 'frames'; mime: 'image/jpeg'; base64: string[]; width: number; height: number; count?: number }
  | { kind: 'text'; text: string };
