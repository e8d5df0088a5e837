/**
 * Task-augmented `tools/call` (MCP tasks, SEP-1686) for tools that declare
 * `execution.taskSupport: "required"`: such a tool refuses a plain call (-32601), so
 * the call creates a task, polls it at the server's interval and fetches its result,
 * through the SDK's `callToolStream`. Each request is bounded by the server's timeout
 * and the whole task by the same total as a plain call; a task that is given up on
 * (timeout or cancel) is cancelled at the server.
 */
import type { Client } from "@modelcontextprotocol/sdk/client";
import { ANY_RESULT } from "./tool_listing.ts";

export interface TaskCallOptions {
  signal?: AbortSignal;
  /** Each request (create, get, result). */
  timeoutMs: number;
  /** The whole task, and its time-to-live at the server. */
  maxTotalMs: number;
}

export async function callToolAsTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  opts: TaskCallOptions,
): Promise<unknown> {
  const total = AbortSignal.timeout(opts.maxTotalMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, total]) : total;
  let taskId: string | undefined;
  try {
    const stream = client.experimental.tasks.callToolStream(
      { name, arguments: args },
      ANY_RESULT as never,
      {
        task: { ttl: opts.maxTotalMs },
        signal,
        timeout: opts.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: opts.maxTotalMs,
        onprogress: () => {},
      },
    );
    for await (const message of stream) {
      if (message.type === "taskCreated") taskId = message.task.taskId;
      else if (message.type === "result") return message.result;
      else if (message.type === "error") throw message.error;
    }
    throw new Error(`task ${taskId ?? "(not created)"} ended without a result`);
  } catch (err) {
    if (taskId && signal.aborted) {
      // Best effort: the server may have finished or forgotten the task already.
      void client.experimental.tasks.cancelTask(taskId).catch(() => {});
    }
    throw total.aborted && !opts.signal?.aborted
      ? new Error(`the task took longer than ${Math.round(opts.maxTotalMs / 1000)}s`)
      : err;
  }
}
