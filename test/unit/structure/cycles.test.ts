/**
 * The import structure of the repository, checked without a dependency (no madge): every relative
 * import of every `.ts` file, read with TypeScript's own pre-processor (`import`, `export … from`,
 * `import type`, `import("…")` and `require("…")` alike — type-only imports count, because a type
 * import is as much a dependency for a reader as a value import).
 *
 * Rules:
 * - in the shipped code (SHIPPED below), no file imports itself through other files (no file cycle);
 * - in the shipped code, no folder imports itself through other folders: folder A depends on folder
 *   B (A ≠ B) when a file directly in A imports a file directly in B; a parent and its child are
 *   two distinct folders (no folder cycle);
 * - everywhere (shipped code, bench, devtools, scripts, tests), a `_private` file — one whose name
 *   starts with `_` — is imported only by files of its own folder.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "../../..");
const SHIPPED = ["client", "hooks", "provider", "policy", "emulator", "cli", "confine", "devtools"];
const EVERYWHERE = [...SHIPPED, "bench", "scripts", "test", "index.ts"];
const SKIP = new Set(["node_modules", "dist", "fixtures"]);

/** Repository-relative paths (forward slashes) of the `.ts` files under `entries`. */
function tsFiles(entries: string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const abs = path.join(ROOT, rel);
    if (!fs.existsSync(abs)) return;
    if (fs.statSync(abs).isDirectory()) {
      for (const name of fs.readdirSync(abs).sort()) {
        if (!SKIP.has(name)) walk(path.posix.join(rel, name));
      }
    } else if (rel.endsWith(".ts") && !rel.endsWith(".d.ts")) {
      out.push(rel);
    }
  };
  for (const entry of entries) walk(entry);
  return out;
}

/** The repository file a relative specifier names, if it is a `.ts` source of this repository. */
function resolve(from: string, specifier: string): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const stem = base.replace(/\.js$/, "");
  for (const candidate of [`${stem}.ts`, `${stem}/index.ts`, base]) {
    if (candidate.endsWith(".ts") && fs.existsSync(path.join(ROOT, candidate))) return candidate;
  }
  return undefined;
}

/** file → the repository files it imports (relative specifiers only). */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = resolve(file, fileName);
      if (target !== undefined && target !== file) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The strongly connected components of more than one node (Tarjan), each sorted: the cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** One edge of each cycle's component spelled out, so a failure says which imports close it. */
function explain(component: string[], graph: Map<string, string[]>, why?: (from: string, to: string) => string): string {
  const members = new Set(component);
  const edges: string[] = [];
  for (const from of component) {
    for (const to of graph.get(from) ?? []) {
      if (members.has(to)) edges.push(`  ${from} → ${to}${why ? ` (${why(from, to)})` : ""}`);
    }
  }
  return `cycle among ${component.join(", ")}:\n${edges.join("\n")}`;
}

describe("import structure", () => {
  const shipped = importGraph(tsFiles(SHIPPED));
  const shippedFiles = new Set(shipped.keys());

  it("finds the shipped code and its imports", () => {
    // a guard against a checker that silently reads nothing
    expect(shipped.size).toBeGreaterThan(100);
    expect(shipped.get("client/client.ts")!.length).toBeGreaterThan(3);
  });

  it("has no file cycle in the shipped code", () => {
    const within = new Map([...shipped].map(([file, to]) => [file, to.filter((t) => shippedFiles.has(t))]));
    expect(cycles(within).map((c) => explain(c, within))).toEqual([]);
  });

  it("has no folder cycle in the shipped code", () => {
    const folders = new Map<string, Set<string>>();
    const witness = new Map<string, string>();
    for (const [file, targets] of shipped) {
      const from = path.posix.dirname(file);
      if (!folders.has(from)) folders.set(from, new Set());
      for (const target of targets) {
        if (!shippedFiles.has(target)) continue;
        const to = path.posix.dirname(target);
        if (to === from) continue;
        folders.get(from)!.add(to);
        if (!witness.has(`${from}|${to}`)) witness.set(`${from}|${to}`, `${file} → ${target}`);
      }
    }
    const graph = new Map([...folders].map(([folder, to]) => [folder, [...to].sort()]));
    expect(cycles(graph).map((c) => explain(c, graph, (a, b) => witness.get(`${a}|${b}`)!))).toEqual([]);
  });

  it("imports a _private file only from its own folder", () => {
    const everywhere = importGraph(tsFiles(EVERYWHERE));
    const leaks: string[] = [];
    for (const [file, targets] of everywhere) {
      for (const target of targets) {
        if (path.posix.basename(target).startsWith("_") && path.posix.dirname(target) !== path.posix.dirname(file)) {
          leaks.push(`${file} → ${target}`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });
});
