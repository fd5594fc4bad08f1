/** A verdict kind's badge colour: the bottlenecks worth acting on are amber, a balanced or GPU-bound setup green. */
export const VERDICT_TONE: Record<string, string> = {
  'gpu-bound': 'good',
  balanced: 'good',
  'input-bound': 'warn',
  'decode-bound': 'warn',
  'disk-bound': 'warn',
  'compute-bound': 'good',
  'network-bound': 'warn',
  unknown: 'neutral',
};
