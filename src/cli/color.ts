/**
 * Colour on stderr: `--color auto` (the default) colours a terminal unless NO_COLOR is
 * set (no-color.org: any non-empty value) or TERM is "dumb"; `always` colours pipes
 * too (CI logs that render ANSI); `never` never does. stdout is never coloured: it
 * carries the answer or JSON.
 */
import { UsageError } from "../util/errors.ts";
import { readEnv } from "../util/env.ts";

export type ColorMode = "auto" | "always" | "never";

export const COLOR_MODES: readonly ColorMode[] = ["auto", "always", "never"];

export function parseColorMode(value: string | undefined): ColorMode {
  if (value === undefined) return "auto";
  if ((COLOR_MODES as readonly string[]).includes(value)) return value as ColorMode;
  throw new UsageError(`--color takes auto, always or never, got '${value}'`);
}

/** Whether text written to a stream that is (or is not) a terminal gets colour. */
export function colorOn(mode: ColorMode, isTerminal: boolean): boolean {
  if (mode !== "auto") return mode === "always";
  if (!isTerminal) return false;
  if ((readEnv("NO_COLOR") ?? "") !== "") return false;
  return readEnv("TERM") !== "dumb";
}

export interface Paint {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const sgr = (on: number, off: number) => (s: string) => `\x1b[${on}m${s}\x1b[${off}m`;
const plain = (s: string) => s;

export function paint(on: boolean): Paint {
  if (!on) return { dim: plain, bold: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    dim: sgr(2, 22),
    bold: sgr(1, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}
