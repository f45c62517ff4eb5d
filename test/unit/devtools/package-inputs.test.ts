/**
 * The pack cache's hash covers what the build compiles and what the tarball ships, read from
 * tsconfig.build.json and package.json: a folder added to the build, or one renamed (as `sdk/`'s
 * client became `client/`), is never left out of the hash, which would reuse a stale tarball.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

import { packageInputs } from "../../../devtools/packed-workspace";

const ROOT = path.resolve(__dirname, "../../..");
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8"));

test("every folder and file tsconfig.build.json compiles is an input, and each exists", () => {
  const inputs = packageInputs(ROOT);
  const include: string[] = readJson("tsconfig.build.json").include;
  expect(include.filter((entry) => !inputs.includes(entry))).toEqual([]);
  expect(inputs).toContain("client");
  expect(inputs.filter((entry) => !fs.existsSync(path.join(ROOT, entry)))).toEqual([]);
});

test("what package.json ships is an input, less its exclusions and the compiled output", () => {
  const inputs = packageInputs(ROOT);
  const files: string[] = readJson("package.json").files;
  expect(files.filter((entry) => !entry.startsWith("!") && entry !== "dist" && !inputs.includes(entry))).toEqual([]);
  expect(inputs.filter((entry) => entry === "dist" || entry.startsWith("dist/") || entry.startsWith("!"))).toEqual([]);
  for (const config of ["package.json", "README.md", "schema.json", "tsconfig.json", "tsconfig.build.json"]) expect(inputs).toContain(config);
});

test("a folder added to the build's include becomes an input (tsconfig read as TypeScript reads it)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "genv-inputs-"));
  try {
    fs.writeFileSync(path.join(dir, "tsconfig.json"), `{ "compilerOptions": { "outDir": "out" } }`);
    fs.writeFileSync(path.join(dir, "tsconfig.build.json"), `{\n  // comments and trailing commas, as tsc allows\n  "extends": "./tsconfig.json",\n  "include": ["index.ts", "lib", "extra/",],\n}\n`);
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ files: ["out", "bin", "!out/bench", "README.md"] }));
    expect(packageInputs(dir)).toEqual(["README.md", "bin", "extra", "index.ts", "lib", "package.json", "schema.json", "tsconfig.build.json", "tsconfig.json"]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
