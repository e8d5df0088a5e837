/**
 * The `job_kill` tool (crush's name and parameters): stops a background job and
 * every process it started (its process group), and returns its last output.
 */
import { z } from "zod";
import { jsonSchemaOf, parseArgs } from "./fs/args.ts";
import type { JobManager } from "./shell/jobs.ts";
import { formatJob } from "./shell/report.ts";
import { unknownJob } from "./job_output.ts";
import { DEFAULT_LIMITS, type TruncateLimits } from "./truncate.ts";
import type { Tool, ToolOutput } from "./types.ts";

const schema = z.object({
  shell_id: z.string().min(1).describe("The id of the background job to stop (for example job-1)"),
});
type JobKillInput = z.output<typeof schema>;

export function createJobKillTool(opts: { jobs: JobManager; limits?: TruncateLimits }): Tool {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  return {
    name: "job_kill",
    description: "Stops a background job started by bash, together with every process it " +
      "started, and returns the output it printed since the last read.",
    parameters: jsonSchemaOf(schema),
    parse: (input) => parseArgs(schema, input),
    async run(raw): Promise<ToolOutput> {
      const input = raw as JobKillInput;
      const job = opts.jobs.get(input.shell_id);
      if (!job) return { content: unknownJob(input.shell_id, opts.jobs), is_error: true };
      if (job.proc.exit) {
        return { content: formatJob(job, opts.jobs, limits, `Job ${job.id} had already ended.`) };
      }
      await opts.jobs.kill(job);
      return { content: formatJob(job, opts.jobs, limits, `Job ${job.id} was stopped.`) };
    },
  };
}
