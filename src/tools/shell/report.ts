/**
 * What the model reads back from the shell tools: the output (cut to its head and
 * tail with a note when long), then one line each for anything it should know —
 * the exit code, a timeout or cancel, a changed directory, a background child
 * still running.
 */
import { type TruncateLimits, truncateOutput } from "../truncate.ts";
import type { ToolOutput } from "../types.ts";
import { describeStatus, type Job, type JobManager } from "./jobs.ts";
import type { ShellProcess } from "./process.ts";

const NO_OUTPUT = "(no output)";

export function formatFinished(
  proc: ShellProcess,
  info: { timeoutMs?: number; limits: TruncateLimits; movedTo?: string },
): ToolOutput {
  const exit = proc.exit!;
  const text = proc.output.text();
  const notes: string[] = [];
  let isError = exit.code !== 0;
  if (proc.stoppedBy === "timeout") {
    notes.push(
      `Command timed out after ${info.timeoutMs} ms and was killed with all its child processes ` +
        `(exit code ${exit.code}). Pass a larger \`timeout\` (ms) or use run_in_background.`,
    );
    isError = true;
  } else if (proc.stoppedBy) {
    notes.push(`Command was cancelled and killed (exit code ${exit.code}).`);
    isError = true;
  } else if (exit.code !== 0) {
    notes.push(`Exit code ${exit.code}`);
  }
  if (info.movedTo) {
    notes.push(`The current directory is now ${info.movedTo} (for relative paths in every tool)`);
  }
  if (proc.lingering) {
    notes.push(
      "A process started in the background by this command is still running; its further " +
        "output is not shown. Use run_in_background for long-running processes.",
    );
  }
  return { content: compose(text, notes, info.limits), ...(isError ? { is_error: true } : {}) };
}

/** The reply when a command becomes a background job. */
export function startedJobMessage(
  job: Job,
  jobs: JobManager,
  limits: TruncateLimits,
  auto: boolean,
): string {
  const sofar = jobs.readNew(job);
  const head = auto
    ? `The command is still running and was moved to the background as job ${job.id}.`
    : `Started background job ${job.id}.`;
  const lines = [
    head,
    `Use job_output with shell_id "${job.id}" to read new output and its status, ` +
    `job_kill with shell_id "${job.id}" to stop it.`,
  ];
  if (sofar !== "") {
    lines.push("", "Output so far:", truncateOutput(sofar.replace(/\n$/, ""), limits));
  }
  return lines.join("\n");
}

/** job_output's and job_kill's reply: status line, then the output not yet returned. */
export function formatJob(
  job: Job,
  jobs: JobManager,
  limits: TruncateLimits,
  lead?: string,
): string {
  const fresh = jobs.readNew(job);
  const status = `Job ${job.id} (\`${oneLine(job.proc.command)}\`): ${describeStatus(job.proc)}`;
  const body = fresh === "" ? "(no new output)" : truncateOutput(fresh.replace(/\n$/, ""), limits);
  return [lead, status, "", body].filter((l) => l !== undefined).join("\n");
}

function compose(text: string, notes: string[], limits: TruncateLimits): string {
  const body = text === "" ? NO_OUTPUT : truncateOutput(text.replace(/\n$/, ""), limits);
  return notes.length === 0 ? body : `${body}\n\n${notes.join("\n")}`;
}

function oneLine(command: string): string {
  const line = command.trim().split("\n")[0];
  const short = line.length > 80 ? `${line.slice(0, 80)}…` : line;
  return line === command.trim() ? short : `${short} …`;
}
