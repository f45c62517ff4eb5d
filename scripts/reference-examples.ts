/**
 * The reference examples, examples/reference/<name>/ (name: the resource's or function's name in
 * kebab case, `Environment` → `environment`, `getEnvironment` → `get-environment`): one program per
 * language — typescript/index.ts, python/__main__.py, go/main.go, yaml/Pulumi.yaml — and a README.md
 * whose first heading is the example's title. scripts/generate-schema.ts appends them to the
 * description of the resource or function, as the Pulumi registry renders examples
 * (`{{% examples %}}` … `{{% /examples %}}`), so that they are written once, as programs that the
 * tests run (test/e2e/reference-*.test.ts), and never by hand into schema.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Each language's program file, in the order the registry shows them. */
export const REFERENCE_PROGRAMS = [
  ["typescript", "typescript/index.ts"],
  ["python", "python/__main__.py"],
  ["go", "go/main.go"],
  ["yaml", "yaml/Pulumi.yaml"],
] as const;

export type ReferenceLanguage = (typeof REFERENCE_PROGRAMS)[number][0];

export interface ReferenceExample {
  /** The folder's name under examples/reference. */
  name: string;
  title: string;
  /** What README.md says after the heading, if anything. */
  prose: string;
  programs: Record<ReferenceLanguage, string>;
}

/** `getEnvironment` → `get-environment`. */
export function referenceFolderOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}

/** Every example under `root`/examples/reference, by folder name. */
export function referenceExamples(root: string): ReferenceExample[] {
  const dir = path.join(root, "examples", "reference");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => readExample(path.join(dir, entry.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function readExample(dir: string): ReferenceExample {
  const name = path.basename(dir);
  const readme = path.join(dir, "README.md");
  const text = fs.existsSync(readme) ? fs.readFileSync(readme, "utf8") : "";
  const title = /^# (.+)$/m.exec(text)?.[1]?.trim();
  if (!title) throw new Error(`examples/reference/${name}: README.md needs a first heading, "# <the example's title>"`);
  const programs = {} as Record<ReferenceLanguage, string>;
  for (const [language, file] of REFERENCE_PROGRAMS) {
    const source = path.join(dir, file);
    if (!fs.existsSync(source)) throw new Error(`examples/reference/${name}: ${file} is missing (every example is written in ${REFERENCE_PROGRAMS.map(([l]) => l).join(", ")})`);
    programs[language] = fs.readFileSync(source, "utf8");
  }
  return { name, title, prose: text.replace(/^# .+$/m, "").trim(), programs };
}

/**
 * `description` with the examples block of the resource or function `name`, if
 * examples/reference has one. The YAML program is shown without its project's name and runtime.
 */
export function withExamples(description: string, name: string, examples: ReferenceExample[]): string {
  const example = examples.find((candidate) => candidate.name === referenceFolderOf(name));
  if (!example) return description;
  const fence = (language: ReferenceLanguage, source: string) => `\`\`\`${language}\n${source.trimEnd()}\n\`\`\`\n`;
  const yaml = example.programs.yaml.replace(/^(name|runtime|description): .*\n/gm, "").replace(/^\n+/, "");
  const blocks = REFERENCE_PROGRAMS.map(([language]) => fence(language, language === "yaml" ? yaml : example.programs[language])).join("");
  return `${description}\n\n{{% examples %}}\n## Example Usage\n{{% example %}}\n### ${example.title}\n\n${example.prose ? `${example.prose}\n\n` : ""}${blocks}{{% /example %}}\n{{% /examples %}}`;
}
