/**
 * A plain command: one simple command of literal words (`ls -la src`, `git status`,
 * `deno test -A`), nothing bash would expand, quote, redirect, join or treat as a
 * keyword. Its words are exactly what the full parser would give, so the policy takes
 * them without loading it (mvdan-sh: ~100 ms at a run's first bash call).
 * tests/tools/shell_plain_test.ts checks that against the parser over a corpus.
 *
 * Deliberately narrow: letters, digits and `_ / . , : @ % + = -` only, separated by
 * spaces or tabs, on one line. No quotes, `\`, `$`, backticks, globs, braces, `~`, `#`,
 * `!`, `;`, `&`, `|`, `<`, `>`, parentheses, newlines or non-ASCII. The first word may
 * not hold `=` (an assignment) nor be a keyword or a builtin the parser reads as its
 * own clause (`export`, `declare`, `let`, …).
 */

const PLAIN = /^[A-Za-z0-9_/.,:@%+=\- \t]+$/;

const RESERVED = new Set([
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/** Parsed as declaration or arithmetic clauses, not as commands with arguments. */
const CLAUSES = new Set(["declare", "export", "let", "local", "nameref", "readonly", "typeset"]);

/** The words of a plain command; undefined for any script that is not one. */
export function plainWords(script: string): string[] | undefined {
  if (!PLAIN.test(script)) return undefined;
  const words = script.split(/[ \t]+/).filter((w) => w !== "");
  const first = words[0];
  if (first === undefined || first.includes("=")) return undefined;
  if (RESERVED.has(first) || CLAUSES.has(first)) return undefined;
  return words;
}
