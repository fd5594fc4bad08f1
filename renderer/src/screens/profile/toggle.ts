/** `xs` with `x` in it (on) or out of it (off), in the order first checked. */
export const toggle = <T>(xs: T[], x: T, on: boolean): T[] => (on ? (xs.includes(x) ? xs : [...xs, x]) : xs.filter((y) => y !== x));
