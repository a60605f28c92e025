/** What a process does: serve HTTP, run jobs, both, or neither (CLI, migrations). */
export type KernelRole = 'gateway' | 'worker' | 'all' | 'cli';
