/**
 * The `job_output` tool (crush's name and parameters): the status of a background
 * job and the output it produced since the last read. With `wait` it first waits
 * for the job to end (up to `timeout_seconds`), for build-like jobs.
 */
import * as z from "zod";
import { createJobTool } from "./shell/job_tool.ts";
import type { JobManager } from "./shell/jobs.ts";
import { formatJob } from "./shell/report.ts";
import { DEFAULT_LIMITS, type TruncateLimits } from "./truncate.ts";
import type { Tool } from "./types.ts";
import { finishedWithin } from "../util/wait.ts";

const DEFAULT_WAIT_S = 60;
const MAX_WAIT_S = 600;

const schema = z.object({
  shell_id: z.string().min(1).describe("The id of the background job (for example job-1)"),
  wait: z.boolean().optional().describe(
    "Wait for the job to end before returning (never for servers: they do not end)",
  ),
  timeout_seconds: z.number().int().positive().max(MAX_WAIT_S).optional().describe(
    `Longest wait in seconds when wait is true (default ${DEFAULT_WAIT_S}, max ${MAX_WAIT_S})`,
  ),
});

export function createJobOutputTool(opts: { jobs: JobManager; limits?: TruncateLimits }): Tool {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  return createJobTool({
    name: "job_output",
    description: "Returns the status of a background job started by bash (running, or exited " +
      "with its exit code) and the output it printed since the last job_output call.",
    schema,
    jobs: opts.jobs,
    async run(job, input, ctx) {
      if (input.wait && !job.proc.exit) {
        const seconds = input.timeout_seconds ?? DEFAULT_WAIT_S;
        await finishedWithin(job.proc.finished, seconds * 1000, ctx.signal);
      }
      return formatJob(job, opts.jobs, limits);
    },
  });
}
