/**
 * HTML → Markdown / text / body for `fetch`. Turndown does the Markdown; it runs
 * on domino, a server-side DOM (the one turndown itself uses outside browsers),
 * so this works in Deno without a browser DOM and without env permissions
 * (node-html-markdown, the DOM-free alternative, reads process.env and fails
 * under a narrow Deno sandbox).
 */
import domino from "@mixmark-io/domino";
import TurndownService from "turndown";

/** Elements that start a new line in rendered text. */
const BLOCKS = [
  "address",
  "article",
  "aside",
  "blockquote",
  "br",
  "dd",
  "div",
  "dl",
  "dt",
  "figcaption",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "td",
  "th",
  "tr",
  "ul",
];

/** Elements whose content is never page text. */
const NOT_CONTENT = ["script", "style", "noscript", "template", "iframe", "object", "embed", "svg"];

interface DomNode {
  parentNode: DomNode | null;
  nextSibling: DomNode | null;
  remove(): void;
  insertBefore(node: DomNode, before: DomNode | null): void;
}

interface DomElement extends DomNode {
  innerHTML: string;
  textContent: string | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

interface DomDocument {
  body: DomElement | null;
  documentElement: DomElement;
  createTextNode(text: string): DomNode;
}

function parse(html: string): { doc: DomDocument; root: DomElement } {
  const doc = (domino as { createDocument(html: string): DomDocument }).createDocument(html);
  const root = doc.body ?? doc.documentElement;
  for (const el of Array.from(root.querySelectorAll(NOT_CONTENT.join(",")))) el.remove();
  return { doc, root };
}

export function htmlToMarkdown(html: string): string {
  const { root } = parse(html);
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  return turndown.turndown(root as unknown as TurndownService.Node).trim();
}

/** Visible text, whitespace collapsed (blank lines kept as paragraph breaks). */
export function htmlToText(html: string): string {
  const { doc, root } = parse(html);
  // textContent runs blocks together ("TitleFirst paragraph"); a newline after each keeps them apart.
  for (const el of Array.from(root.querySelectorAll(BLOCKS.join(",")))) {
    el.parentNode?.insertBefore(doc.createTextNode("\n"), el.nextSibling);
  }
  return (root.textContent ?? "")
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .replace(/ *\n[ \n]*/g, (m) => (m.split("\n").length > 2 ? "\n\n" : "\n"))
    .trim();
}

/** The body's HTML (scripts and styles removed), wrapped in a minimal document. */
export function htmlBody(html: string): string {
  const { root } = parse(html);
  return `<html>\n<body>\n${root.innerHTML.trim()}\n</body>\n</html>`;
}
