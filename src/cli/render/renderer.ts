/** How a run's events reach the user, one renderer per output format. */
import type { RunEvent } from "../../app/run_events.ts";
import type { Io } from "../io.ts";
import { textRenderer } from "./text.ts";

export type OutputFormat = "text" | "json" | "stream-json";

export interface Renderer {
  event(e: RunEvent): void;
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
          // Retries are logged on stderr by the provider itself.
          if (e.type === "result") io.out(JSON.stringify({ v: 1, ...e }) + "\n");
        },
      };
    case "stream-json":
      return { event: (e) => io.out(JSON.stringify({ v: 1, ...e }) + "\n") };
  }
}
