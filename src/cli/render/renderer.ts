/** How a run's events reach the user, one renderer per output format. */
import type { AgentEvent } from "../../agent/events.ts";
import type { Io } from "../io.ts";
import { textRenderer } from "./text.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface Renderer {
  event(e: AgentEvent): void;
}

export function createRenderer(
  format: OutputFormat,
  io: Io,
  opts: { quiet: boolean; verbose: boolean },
): Renderer {
  switch (format) {
    case "text":
      return textRenderer(io, opts);
    case "json":
      return {
        event(e) {
          if (e.type === "result") io.out(JSON.stringify({ v: 1, ...e }) + "\n");
          else if (e.type === "retry" && !opts.quiet) {
            io.err(`mopac: retrying (attempt ${e.attempt}): ${e.reason}\n`);
          }
        },
      };
    case "stream-json":
      return { event: (e) => io.out(JSON.stringify({ v: 1, ...e }) + "\n") };
  }
}
