// The readiness contract, types only: the cradle (`cradle.ts`) and plugins name it without
// importing the kernel's wiring.

/**
 * One thing a deployment needs before it can take real payments (issue 23 item 4). Plugins
 * contribute the checks of their own concepts (`PluginDefinition.readiness`); the kernel runs them
 * for `gateway doctor`, the start-up log and the `details` of `/readyz`. A check reads the shared
 * database and the config only: it never calls an outside provider (readiness is polled often).
 */
export interface ReadinessCheck {
  /** Stable dotted name, `<plugin>.<what>` (e.g. `wallets.unverified`). */
  readonly name: string;
  /** What is checked, one line. */
  readonly summary: string;
  /**
   * `projects`: the check is about projects and honours `scope` (its result names only the
   * scoped operator's projects; the dashboard shows it to that operator's users). Absent:
   * deployment-wide (database, providers, master key), shown in full to administrators only.
   */
  readonly about?: 'projects';
  run(scope?: ReadinessScope): Promise<ReadinessResult>;
}

/** Narrows a check `about: 'projects'` to one operator's projects (the dashboard's doctor page). */
export interface ReadinessScope {
  readonly operatorId: string;
}

/** The readiness checks of the kernel and every enabled plugin, as a kernel service (`cradle.readiness`). */
export interface Readiness {
  /** Every check, in plugin order (built on first use). */
  checks(): readonly ReadinessCheck[];
}

/** `error`: real payments cannot work; `warning`: they work, but something is likely wrong. */
export type ReadinessSeverity = 'error' | 'warning';

export interface ReadinessResult {
  readonly ok: boolean;
  /** When not ok: how bad. Ignored when ok. */
  readonly severity?: ReadinessSeverity;
  /** What was found, one or two sentences naming the chain, project or key. */
  readonly detail: string;
  /** What to do about it (a command or a config key). */
  readonly fix?: string;
}

/** A check's outcome as reported (`gateway doctor --json`, `/readyz` details). */
export interface ReadinessFinding {
  readonly check: string;
  readonly ok: boolean;
  readonly severity: ReadinessSeverity | null;
  readonly detail: string;
  readonly fix: string | null;
}

/** The whole report: `ready` is false when any finding is an error. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly errors: number;
  readonly warnings: number;
  readonly checks: readonly ReadinessFinding[];
}
