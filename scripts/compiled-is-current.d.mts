/** See compiled-is-current.mjs. */
export declare function compiledIsCurrent(root: string, dist: string): boolean;
