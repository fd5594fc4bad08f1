/** Types of scripts/dist-fresh.mjs (plain JavaScript: scripts run before anything is compiled). */
export declare function stampPath(root: string): string;
export declare function distIsFresh(root: string): boolean;
