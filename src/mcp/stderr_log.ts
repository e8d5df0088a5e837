/**
 * A stdio server's stderr: appended to its log file (redacted line by line when a
 * redaction is given) and its last characters kept, the best explanation when the
 * server dies early.
 */
import { dirname } from "node:path";

const TAIL_CHARS = 2_000;
/** With redaction, a line longer than this is written as it is rather than held forever. */
const MAX_HELD_CHARS = TAIL_CHARS * 32;

export interface StderrLogOptions {
  /** Append-mode log file. */
  logPath: string;
  /** Named in the header line written before the first output. */
  command: string;
  pid: number;
  /** Applied to each line before it is logged; lines are then written whole. */
  redact?: (text: string) => string;
  /** The log file cannot be opened; stderr is still read (and its tail kept). */
  onerror: (error: Error) => void;
}

export class StderrLog {
  /** Resolves when stderr ended and all of it is in the file. */
  readonly done: Promise<void>;
  #tail = "";

  constructor(stderr: ReadableStream<Uint8Array>, opts: StderrLogOptions) {
    this.done = this.#pump(stderr, opts);
  }

  /** The last lines written to stderr. */
  get tail(): string {
    return this.#tail.trim();
  }

  async #pump(stderr: ReadableStream<Uint8Array>, opts: StderrLogOptions): Promise<void> {
    const encoder = new TextEncoder();
    let file: Deno.FsFile | undefined;
    try {
      // The data dir's logs/ folder does not exist before the first server logs there.
      await Deno.mkdir(dirname(opts.logPath), { recursive: true });
      file = await Deno.open(opts.logPath, { append: true, create: true });
      const header = `--- ${new Date().toISOString()} started ${opts.command} (pid ${opts.pid})\n`;
      await file.write(encoder.encode(header));
    } catch (err) {
      opts.onerror(new Error(`cannot open ${opts.logPath}: ${(err as Error).message}`));
    }
    const decoder = new TextDecoder();
    const redact = opts.redact;
    // With redaction, whole lines only: a secret split over two chunks must still match.
    let line = "";
    const write = async (text: string) => {
      if (file && text) {
        await writeAll(file, encoder.encode(redact!(text))).catch(() => file = undefined);
      }
    };
    try {
      for await (const chunk of stderr) {
        const text = decoder.decode(chunk, { stream: true });
        this.#tail = (this.#tail + text).slice(-TAIL_CHARS);
        if (!redact) {
          if (file) await writeAll(file, chunk).catch(() => file = undefined);
          continue;
        }
        line += text;
        const end = line.lastIndexOf("\n") + 1;
        const cut = end > 0 ? end : line.length > MAX_HELD_CHARS ? line.length : 0;
        await write(line.slice(0, cut));
        line = line.slice(cut);
      }
    } catch {
      // The pipe broke with the process; nothing more to log.
    } finally {
      if (redact) await write(line + decoder.decode());
      file?.close();
    }
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
}
