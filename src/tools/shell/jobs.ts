/**
 * Background jobs of the shell tool: commands started with `run_in_background`
 * or still running when the foreground wait ran out. Each has an id the model
 * passes to `job_output` and `job_kill`. The app owns one manager per run and
 * calls `dispose()` on exit, which kills every job's process group and whatever
 * finished commands left running in the background (`cmd &`).
 */
import type { ShellProcess } from "./process.ts";

export interface Job {
  readonly id: string;
  readonly proc: ShellProcess;
  readonly description?: string;
  readonly cwd: string;
  /** Output position already returned to the model. */
  readPos: number;
}

/** Finished jobs kept for a final `job_output`; older ones are forgotten first. */
const MAX_FINISHED = 50;

export class JobManager {
  readonly #jobs = new Map<string, Job>();
  readonly #leftovers = new Set<ShellProcess>();
  #next = 1;
  #disposed = false;

  /** Registers a running process as a job; `readPos` is what the model has already seen. */
  add(proc: ShellProcess, info: { cwd: string; description?: string; readPos?: number }): Job {
    const job: Job = {
      id: `job-${this.#next++}`,
      proc,
      cwd: info.cwd,
      description: info.description,
      readPos: info.readPos ?? 0,
    };
    this.#jobs.set(job.id, job);
    this.#forgetOldFinished();
    // A job started after dispose (a late tool call during shutdown) must not outlive the run.
    if (this.#disposed) void proc.stop("disposed");
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id.trim());
  }

  list(): Job[] {
    return [...this.#jobs.values()];
  }

  /** Output since the last read, and moves the read position on. */
  readNew(job: Job): string {
    const { text, next } = job.proc.output.readFrom(job.readPos);
    job.readPos = next;
    return text;
  }

  async kill(job: Job): Promise<void> {
    await job.proc.stop("killed");
    if (job.proc.lingering) this.#leftovers.add(job.proc);
  }

  /** A finished command whose background children still hold its output: killed on dispose. */
  trackLeftover(proc: ShellProcess): void {
    this.#leftovers.add(proc);
    if (this.#disposed) proc.killLeftovers();
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const proc of this.#leftovers) proc.killLeftovers();
    this.#leftovers.clear();
    await Promise.all([...this.#jobs.values()].map(async (job) => {
      await job.proc.stop("disposed");
      if (job.proc.lingering) job.proc.killLeftovers();
    }));
  }

  #forgetOldFinished(): void {
    const finished = [...this.#jobs.values()].filter((j) => j.proc.exit);
    for (const job of finished.slice(0, Math.max(0, finished.length - MAX_FINISHED))) {
      this.#jobs.delete(job.id);
    }
  }
}

/** One line on how a job stands, e.g. "running for 12 s" or "exited with code 1". */
export function describeStatus(proc: ShellProcess): string {
  const exit = proc.exit;
  if (!exit) return `running for ${Math.round((Date.now() - proc.startedAt) / 1000)} s`;
  switch (proc.stoppedBy) {
    case "timeout":
      return `killed: it ran past its timeout (exit code ${exit.code})`;
    case "killed":
      return `killed by job_kill (exit code ${exit.code})`;
    case "aborted":
    case "disposed":
      return `stopped because the run was interrupted (exit code ${exit.code})`;
    default:
      return exit.signal
        ? `ended by ${exit.signal} (exit code ${exit.code})`
        : `exited with code ${exit.code}`;
  }
}
