// Part of the loader config's contract, in a file of its own so that the loader's orders
// can import the list without loading zod (loader-config.ts's schemas).

/**
 * Traversal orders, as the loader, the profiler and the app name them: the one list
 * (core/loader/orders/ implements them; the profiler's model and the CLI refer to it).
 */
export const ORDER_NAMES = ['sequential', 'random', 'quasi_random'] as const;
export type OrderName = (typeof ORDER_NAMES)[number];
