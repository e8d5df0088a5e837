/** Starting helper Deno processes with narrow permissions (like a sandboxed mopac run). */
import { fileURLToPath } from "node:url";
import { DENO_RUN } from "../_support/deps.ts";

export function helperPath(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

export function denoHelper(name: string, dataDir: string, args: string[]): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      ...DENO_RUN,
      "--no-prompt",
      `--allow-read=${dataDir}`,
      `--allow-write=${dataDir}`,
      helperPath(name),
      dataDir,
      ...args,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  });
}

/** Reads a child's stdout line by line, across calls. */
export class Lines {
  #reader: ReadableStreamDefaultReader<string>;
  #buf = "";

  constructor(child: Deno.ChildProcess) {
    this.#reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Waits for a complete line matching `want` (a prefix or a predicate); earlier lines are skipped. */
  async until(want: string | ((line: string) => boolean)): Promise<string> {
    const match = typeof want === "string" ? (l: string) => l.startsWith(want) : want;
    while (true) {
      const lines = this.#buf.split("\n");
      this.#buf = lines.pop()!;
      const at = lines.findIndex(match);
      if (at >= 0) {
        this.#buf = [...lines.slice(at + 1), this.#buf].join("\n");
        return lines[at];
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error(`helper ended before the expected line; left: ${this.#buf}`);
      this.#buf += value;
    }
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}
