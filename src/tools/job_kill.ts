/**
 * The `job_kill` tool (crush's name and parameters): stops a background job and
 * every process it started (its process group), and returns its last output.
 */
import * as z from "zod";
import { createJobTool } from "./shell/job_tool.ts";
import type { JobManager } from "./shell/jobs.ts";
import { formatJob } from "./shell/report.ts";
import { DEFAULT_LIMITS, type TruncateLimits } from "./truncate.ts";
import type { Tool } from "./types.ts";

const schema = z.object({
  shell_id: z.string().min(1).describe("The id of the background job to stop (for example job-1)"),
});

export function createJobKillTool(opts: { jobs: JobManager; limits?: TruncateLimits }): Tool {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  return createJobTool({
    name: "job_kill",
    description: "Stops a background job started by bash, together with every process it " +
      "started, and returns the output it printed since the last read.",
    schema,
    jobs: opts.jobs,
    async run(job) {
      if (job.proc.exit) {
        return formatJob(job, opts.jobs, limits, `Job ${job.id} had already ended.`);
      }
      await opts.jobs.kill(job);
      return formatJob(job, opts.jobs, limits, `Job ${job.id} was stopped.`);
    },
  });
}
