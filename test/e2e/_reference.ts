// The reference examples of one language (examples/reference/<name>/<language>/, which
// scripts/generate-schema.ts puts into schema.json's descriptions) run on the real engine, one stack
// each, one after the other against one emulator: up, then destroy. Each exports what its YAML
// program exports, every output set; destroy deletes what up created and leaves no environment of
// its own. Programs read the stack config `githubToken` (secret), and `environmentId` and
// `credentialId`, an environment and a credential made outside Pulumi for the functions to look up.
import { referenceExamples } from "../../scripts/reference-examples";
import { describeNeeding } from "../support/prerequisites";
import { addProgramOf, upAndDestroy, type Language } from "./_programs";
import { E2E_TEST_TIMEOUT_MS, useE2E } from "./_workspace";
import { repoRoot } from "./engine";

export const REFERENCE_CONFIG_TOKEN = "ghp_reference-5e1f0b";

/** The names a YAML program declares under `outputs:`. */
export function yamlOutputNames(program: string): string[] {
  const section = /^outputs:\n((?:(?: {2}.*)?\n)*)/m.exec(program)?.[1] ?? "";
  return [...section.matchAll(/^ {2}([A-Za-z0-9_]+):/gm)].map((match) => match[1]!);
}

export function describeReferenceExamples(language: Language, needs: Record<string, boolean> = {}, timeoutMs = E2E_TEST_TIMEOUT_MS): void {
  const examples = referenceExamples(repoRoot);
  describeNeeding(needs)(`the reference examples in ${language} (examples/reference/*/${language}, real engine)`, () => {
    const e2e = useE2E();
    let environmentId: string;
    const credentialId = "team-github";

    beforeAll(async () => {
      environmentId = (await e2e().client.create({ sources: [{ type: "inline", target: "README.md", content: "made outside Pulumi\n" }] })).id;
      await e2e().client.credentials.create({ id: credentialId, type: "bearer_token", token: "ghp_made-by-a-person" });
    }, E2E_TEST_TIMEOUT_MS);

    test("there are examples", () => {
      expect(examples.length).toBeGreaterThan(0);
    });

    test.each(examples.map((example) => [example.name, example] as const))("%s: up exports what the YAML program does, destroy removes what up made", async (name, example) => {
      const dir = await addProgramOf(e2e(), language, `${name}-${language}`, example.programs[language]);
      const result = await upAndDestroy(e2e(), dir, language, { secrets: { githubToken: REFERENCE_CONFIG_TOKEN }, config: { environmentId, credentialId } });
      expect(Object.keys(result.outputs).sort()).toEqual(yamlOutputNames(example.programs.yaml).sort());
      const unset = Object.entries(result.outputs).filter(([, { value }]) => value === undefined || value === null || value === "");
      expect(unset.map(([output]) => output)).toEqual([]);
      expect(result.deleted).toBe(result.created);
      expect(result.left).toEqual([environmentId]);
      const credentials = await e2e().client.credentials.list();
      expect(credentials.credentials?.map((credential) => credential.id)).toEqual([credentialId]);
    }, timeoutMs);
  });
}
