/**
 * Exact string replacement for edit and multiedit. Strict on purpose: an edit
 * that is ambiguous or does not match exactly fails with a message that tells the
 * model how to fix its call, rather than guessing which text it meant.
 */
import { ToolFailure } from "../failure.ts";
import { countOccurrences, lineOfIndex, toLf } from "./text.ts";

export interface Replacement {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

/** Applies one replacement to LF `text`; throws ToolFailure when it cannot. */
export function applyReplacement(
  text: string,
  edit: Replacement,
  label = "old_string",
): { text: string; count: number } {
  const oldString = toLf(edit.old_string);
  const newString = toLf(edit.new_string);
  if (oldString === newString) {
    throw new ToolFailure(
      `${label}: new_string is identical to old_string; there is nothing to change.`,
    );
  }
  const count = countOccurrences(text, oldString);
  if (count === 0) throw new ToolFailure(notFoundMessage(text, oldString, label));
  if (count > 1 && !edit.replace_all) {
    const first = lineOfIndex(text, text.indexOf(oldString));
    throw new ToolFailure(
      `${label} appears ${count} times in the file (first at line ${first}). Include more ` +
        `surrounding lines to make it unique, or set replace_all to true to replace every one.`,
    );
  }
  if (edit.replace_all) return { text: text.split(oldString).join(newString), count };
  const at = text.indexOf(oldString);
  return { text: text.slice(0, at) + newString + text.slice(at + oldString.length), count: 1 };
}

/** The prefix `view` puts before each line ("    12|"), which is not part of the file. */
const VIEW_PREFIX = /^ *\d+\|/;

function notFoundMessage(text: string, oldString: string, label: string): string {
  let msg = `${label} was not found in the file. It must match exactly, including ` +
    `whitespace, indentation and line breaks. View the file again and copy the exact text.`;
  const prefixed = VIEW_PREFIX.exec(oldString);
  if (prefixed) {
    return `${label} was not found in the file. It starts with "${
      prefixed[0]
    }", which looks like ` +
      `the line-number prefix view shows before each line: that prefix is not part of the ` +
      `file. Remove it from every line of ${label} and new_string, and call again.`;
  }
  const line = looseMatchLine(text, oldString);
  if (line !== null) {
    msg += ` A match ignoring leading/trailing whitespace starts at line ${line}: ` +
      `check indentation (tabs vs spaces) and trailing spaces.`;
  }
  return msg;
}

/** Line where `needle` matches if every line is trimmed, or null. */
function looseMatchLine(text: string, needle: string): number | null {
  const want = needle.split("\n").map((l) => l.trim());
  while (want.length > 0 && want[0] === "") want.shift();
  while (want.length > 0 && want[want.length - 1] === "") want.pop();
  if (want.length === 0) return null;
  const have = text.split("\n").map((l) => l.trim());
  outer: for (let i = 0; i + want.length <= have.length; i++) {
    for (let j = 0; j < want.length; j++) {
      // The first and last lines of old_string may be partial lines.
      const ok = want.length === 1
        ? have[i].includes(want[0])
        : j === 0
        ? have[i].endsWith(want[0])
        : j === want.length - 1
        ? have[i + j].startsWith(want[j])
        : have[i + j] === want[j];
      if (!ok) continue outer;
    }
    return i + 1;
  }
  return null;
}
