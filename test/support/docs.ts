/**
 * The project's documentation as the tests read it: README.md and every page under docs/, parsed by
 * markdown-it (CommonMark), so that a link or a command is found where a reader sees one, and not
 * inside a code span that merely quotes markdown.
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import MarkdownIt from "markdown-it";

export const repoRoot = path.resolve(__dirname, "../..");

/** A markdown file of the documentation: its path (absolute) and its parsed tokens, inline ones flattened in. */
export interface DocPage {
  file: string;
  tokens: MarkdownIt.Token[];
}

const markdown = new MarkdownIt({ html: true });

/** README.md and docs/**\/*.md, in a stable order. */
export function documentationFiles(): string[] {
  const docs = readdirSync(path.join(repoRoot, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join(repoRoot, "docs", name))
    .sort();
  return [path.join(repoRoot, "README.md"), ...docs];
}

export function readDocPage(file: string): DocPage {
  return parseDocPage(file, readFileSync(file, "utf8"));
}

export function parseDocPage(file: string, text: string): DocPage {
  const tokens = markdown.parse(text, {});
  return { file, tokens: tokens.flatMap((token) => [token, ...(token.children ?? [])]) };
}

/**
 * The anchors a page has on GitHub: its headings' (GitHub's slug rule, with `-1`, `-2` … for repeats),
 * and those an HTML `<a id="…">` of the page sets (the Terraform registry's pages, as tfplugindocs
 * writes them, link their nested schemas so).
 */
export function headingAnchors(page: DocPage): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  page.tokens.forEach((token, index) => {
    if (token.type === "html_block" || token.type === "html_inline") {
      for (const match of token.content.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
      return;
    }
    if (token.type !== "heading_open") return;
    const inline = page.tokens[index + 1];
    const text = (inline.children ?? []).filter((child) => child.type === "text" || child.type === "code_inline").map((child) => child.content).join("");
    const slug = githubSlug(text);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  });
  return anchors;
}

/**
 * GitHub's heading slug (as github-slugger writes it): lower case, every character that is not a
 * letter, a mark, a digit, `_`, `-` or a space removed, each space a `-`. github-slugger itself is
 * ESM only, which this CommonJS jest set-up cannot load.
 */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}
