/**
 * What job_output and job_kill share: a `shell_id` parameter, the lookup of the
 * job it names (an unknown id is an error result that lists the known ones), and
 * the reply, which is the job's status and the output not yet returned (report.ts).
 */
import type { z } from "zod";
import { defineTool } from "../define.ts";
import type { Tool, ToolContext } from "../types.ts";
import type { Job, JobManager } from "./jobs.ts";

export interface JobToolSpec<T extends { shell_id: string }> {
  name: string;
  description: string;
  schema: z.ZodType<T>;
  jobs: JobManager;
  /** Acts on the job and returns the reply (see `formatJob`). */
  run(job: Job, input: T, ctx: ToolContext): Promise<string>;
}

export function createJobTool<T extends { shell_id: string }>(spec: JobToolSpec<T>): Tool<T> {
  return defineTool({
    name: spec.name,
    description: spec.description,
    schema: spec.schema,
    async run(input, ctx) {
      const job = spec.jobs.get(input.shell_id);
      if (!job) return { content: unknownJob(input.shell_id, spec.jobs), is_error: true };
      return { content: await spec.run(job, input, ctx) };
    },
  });
}

function unknownJob(id: string, jobs: JobManager): string {
  const known = jobs.list().map((j) => j.id);
  return `No background job with id "${id}". ` +
    (known.length ? `Known jobs: ${known.join(", ")}.` : "There are no background jobs.");
}
