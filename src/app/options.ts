/**
 * What a run is asked to do, as the composition root needs it. The CLI's parsed
 * flags fit this shape; the app does not depend on how they were parsed.
 */
import type { OnDeny } from "../agent/limits.ts";

export interface RunOptions {
  cwd?: string;
  config?: string;
  dataDir?: string;
  model?: string;
  smallModel?: string;
  agent?: string;
  tools?: string[];
  maxTurns?: number;
  maxTokens?: number;
  maxCost?: number;
  timeout?: string;
  record?: string;
  replay?: string;
  continue: boolean;
  session?: string;
  ephemeral: boolean;
  /** A JSON Schema file the final answer must match. */
  outputSchema?: string;
  /** Resolve and describe the run; no model call, nothing written. */
  dryRun?: boolean;
  onDeny: OnDeny;
  verbose: boolean;
}
