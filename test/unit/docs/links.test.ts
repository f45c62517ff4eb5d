/**
 * Every relative link in README.md and docs/ leads somewhere: the file or folder exists, and a
 * `#heading` it names is a heading of that page (GitHub's anchors), so a reader following the docs
 * never lands on a 404 or on the top of a page that lost the section.
 */
import { existsSync, statSync } from "node:fs";
import * as path from "node:path";
import { documentationFiles, headingAnchors, parseDocPage, readDocPage, repoRoot, type DocPage } from "../../support/docs";

interface Link {
  from: string;
  href: string;
}

function relativeLinks(page: DocPage): Link[] {
  return page.tokens
    .map((token) => (token.type === "link_open" ? token.attrGet("href") : token.type === "image" ? token.attrGet("src") : null))
    .filter((href): href is string => typeof href === "string" && !/^[a-z][a-z0-9+.-]*:/i.test(href))
    .map((href) => ({ from: path.relative(repoRoot, page.file), href }));
}

const pages = documentationFiles().map(readDocPage);
const anchorsOf = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  let found = anchorsOf.get(file);
  if (!found) anchorsOf.set(file, (found = headingAnchors(readDocPage(file))));
  return found;
}

/** Why a link leads nowhere, or undefined when it leads somewhere. */
function brokenBecause(link: Link): string | undefined {
  const [target, anchor] = link.href.split("#", 2) as [string, string | undefined];
  const file = target === "" ? path.join(repoRoot, link.from) : path.resolve(repoRoot, path.dirname(link.from), decodeURIComponent(target));
  const fromRoot = path.relative(repoRoot, file).replace(/\/$/, "");
  if (!existsSync(file)) return `${fromRoot} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith(".md")) return `#${anchor}: ${fromRoot} has no headings`;
  return anchors(file).has(decodeURIComponent(anchor)) ? undefined : `${fromRoot} has no heading #${anchor}`;
}

test("the documentation is README.md and the pages under docs/", () => {
  const names = pages.map((page) => path.relative(repoRoot, page.file));
  expect(names).toContain("README.md");
  expect(names).toEqual(expect.arrayContaining(["docs/provider.md", "docs/hooks-and-policies.md", "docs/emulator.md", "docs/operations.md"]));
});

test("every relative link resolves to a file and, where it names one, a heading", () => {
  const links = pages.flatMap(relativeLinks);
  expect(links.length).toBeGreaterThan(50);
  const broken = links.flatMap((link) => {
    const why = brokenBecause(link);
    return why ? [`${link.from}: (${link.href}) ${why}`] : [];
  });
  expect(broken).toEqual([]);
});

test("the README links to every page at the top of docs/", () => {
  const readme = pages[0];
  const linked = new Set(relativeLinks(readme).map((link) => path.resolve(repoRoot, link.href.split("#")[0])));
  const topPages = pages.map((page) => page.file).filter((file) => path.dirname(file) === path.join(repoRoot, "docs"));
  expect(topPages.length).toBeGreaterThanOrEqual(8);
  const unlinked = topPages.filter((file) => !linked.has(file));
  expect(unlinked.map((file) => path.relative(repoRoot, file))).toEqual([]);
});

test("anchors follow GitHub's rule: punctuation and code marks dropped, spaces as hyphens, repeats numbered", () => {
  const emulator = anchors(path.join(repoRoot, "docs/emulator.md"));
  expect(emulator).toContain("running-it-genv-serve");
  expect(emulator).toContain("faults-on-purpose---faults");
  expect(emulator).toContain("where-the-emulator-decides-limitations");
  const page = parseDocPage("example.md", "# Top\n## Tool calls: `:executeTool`\n## Tool calls: `:executeTool`\n## Über — 5× [faster](x.md)\n");
  expect([...headingAnchors(page)]).toEqual(["top", "tool-calls-executetool", "tool-calls-executetool-1", "über--5-faster"]);
});
