/**
 * The Credential provider's methods called directly (as the engine's dynamic-provider host calls
 * them) against a real emulator: create, rotation as an in-place PATCH with the exact update_mask,
 * replacement on id or type, refresh of a deleted credential, idempotent delete, check failures.
 */
import * as provider from "../../../provider/credential-provider";
import { SECRET_PROPERTIES, WIRE_FIELD, type CredentialInputs, type CredentialOutputs } from "../../../provider/credential/inputs";
import { defaultCredentialId } from "../../../provider/credential/resource";
import { credentialCore } from "../../../provider/credential/core";
import { identityOfUrn } from "../../../provider/contracts/resource-core";
import { UNKNOWN } from "../../../provider/environment/inputs";
import { ownerOf } from "../../../emulator/api";
import { CREDENTIAL_SECRET_FIELDS } from "../../../client/schemas";
import { TEST_KEY } from "../../support/emulator";
import { useProviderEmulator } from "../../support/provider-emulator";

const emulator = useProviderEmulator();
const owner = ownerOf(TEST_KEY);

async function requestsDuring(body: () => Promise<unknown>): Promise<string[]> {
  const before = emulator().requests.length;
  await body();
  return emulator().requests.slice(before).map((entry) => `${entry.method} ${entry.path}`);
}

const NO_OLDS = {} as CredentialInputs;
const bearer: CredentialInputs = { credentialId: "gh-token", type: "bearer_token", token: "ghp_one", headerName: "Authorization" };

describe("check", () => {
  test("valid inputs of each type pass", async () => {
    for (const news of [
      bearer,
      { credentialId: "env.cred_1", type: "environment_variable", value: "v", injectionLocation: ["header", "query"], trustedDomains: ["api.example.com"] },
      { credentialId: "o", type: "oauth2", clientId: "c", clientSecret: "s", refreshToken: "r", tokenUrl: "https://oauth2.example.com/token", scopes: ["a"] },
    ] as CredentialInputs[]) {
      expect(await provider.check!(NO_OLDS, news)).toEqual({ inputs: news, failures: [] });
    }
  });

  test.each([
    [{ ...bearer, credentialId: "bad id" }, "credentialId", "credentialId: must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. gh-token"],
    [{ ...bearer, type: "basic" }, "type", "type: must be one of environment_variable, bearer_token, oauth2"],
    [{ ...bearer, token: undefined }, "token", "token: is required for a bearer_token credential"],
    [{ ...bearer, token: "a\nb" }, "token", "token: may not contain CR, LF or NUL"],
    [{ ...bearer, headerName: "Bad Header" }, "headerName", "headerName: is not a valid HTTP header name"],
    [{ ...bearer, value: "v" }, "value", "value: is not used by a bearer_token credential (its fields: token, headerName, prefix)"],
    [
      { credentialId: "e", type: "environment_variable", value: "v", injectionLocation: ["header", "cookie"] },
      "injectionLocation",
      "injectionLocation[1]: must be header, query or body",
    ],
    [
      { credentialId: "o", type: "oauth2", clientId: "c", clientSecret: "s", refreshToken: "r", tokenUrl: "ftp://x" },
      "tokenUrl",
      "tokenUrl: must be an absolute http(s) URL, e.g. https://oauth2.example.com/token",
    ],
  ])("%j fails on %s", async (news, property, reason) => {
    expect((await provider.check!(NO_OLDS, news as CredentialInputs)).failures).toEqual([{ property, reason }]);
  });

  test("with the URN the plugin is given, an omitted credentialId is the classes' default; a bad one still fails at the property", () => {
    const urn = "urn:pulumi:dev::proj::my:index:Parent$gemini-environments:index:Credential::github";
    const { credentialId: _omitted, ...declared } = bearer;
    expect(identityOfUrn(urn)).toEqual({ project: "proj", stack: "dev", type: "gemini-environments:index:Credential", name: "github" });
    expect(credentialCore.check(NO_OLDS, declared as CredentialInputs, identityOfUrn(urn))).toEqual({ inputs: { ...bearer, credentialId: defaultCredentialId("github", "proj", "dev") }, failures: [] });
    expect(credentialCore.check(NO_OLDS, { ...bearer, credentialId: "bad id" }, identityOfUrn(urn)).failures).toEqual([
      { property: "credentialId", reason: expect.stringMatching(/^credentialId: must be 1-128/) },
    ]);
    // The dynamic provider has no URN: its classes always set the id.
    expect(credentialCore.check(NO_OLDS, declared as CredentialInputs).failures).toEqual([{ property: "credentialId", reason: "credentialId: is required" }]);
  });

  test("a failure never quotes a secret", async () => {
    const { failures } = await provider.check!(NO_OLDS, { ...bearer, token: "s3cr3t\r\n" });
    expect(JSON.stringify(failures)).not.toContain("s3cr3t");
  });

  test("values unknown during preview pass", async () => {
    expect((await provider.check!(NO_OLDS, { ...bearer, credentialId: UNKNOWN, token: UNKNOWN })).failures).toEqual([]);
    expect((await provider.check!(NO_OLDS, { ...bearer, type: UNKNOWN as never, value: "x" })).failures).toEqual([]);
  });
});

describe("diff", () => {
  const olds = { ...bearer, status: "active", createTime: "t", updateTime: "t" } as CredentialOutputs;

  test("equal inputs give no diff", async () => {
    expect(await provider.diff!("gh-token", olds, bearer)).toMatchObject({ changes: false, replaces: [] });
  });

  test.each([
    [{ ...bearer, token: "ghp_two" }, "a rotated secret"],
    [{ ...bearer, prefix: "" }, "an added field"],
    [{ ...bearer, headerName: undefined }, "a removed field"],
  ])("%j is an in-place update (%s)", async (news, _what) => {
    expect(await provider.diff!("gh-token", olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test("a new id replaces, creating the new credential first", async () => {
    expect(await provider.diff!("gh-token", olds, { ...bearer, credentialId: "gh-token-2" })).toEqual({
      changes: true,
      replaces: ["credentialId"],
      deleteBeforeReplace: false,
    });
  });

  test("a new type under the same id replaces, deleting the old credential first", async () => {
    const news: CredentialInputs = { credentialId: "gh-token", type: "environment_variable", value: "v", injectionLocation: "header" };
    expect(await provider.diff!("gh-token", olds, news)).toEqual({ changes: true, replaces: ["type"], deleteBeforeReplace: true });
  });
});

describe("create, update, read, delete", () => {
  test("create returns the outputs; a rotation is a PATCH with exactly the changed fields in the mask", async () => {
    const inputs: CredentialInputs = { credentialId: "rotating", type: "bearer_token", token: "tok-1", headerName: "X-Token", prefix: "Token" };
    const created = await provider.create(inputs);
    expect(created).toEqual({
      id: "rotating",
      outs: { ...inputs, status: "active", createTime: expect.stringMatching(/Z$/), updateTime: expect.stringMatching(/Z$/) },
    });

    const rotated = { ...inputs, token: "tok-2", prefix: undefined };
    let updated: Awaited<ReturnType<NonNullable<typeof provider.update>>> = {};
    const requests = await requestsDuring(async () => {
      updated = await provider.update!("rotating", created.outs!, rotated);
    });
    expect(requests).toEqual(["PATCH /v1beta/credentials/rotating?update_mask=token%2Cprefix"]);
    expect(updated.outs).toEqual({ ...inputs, token: "tok-2", prefix: undefined, status: "active", createTime: created.outs!.createTime, updateTime: expect.any(String) });
    expect(updated.outs!.updateTime > created.outs!.updateTime).toBe(true);
    expect(emulator().credentials.reveal(owner, "rotating")).toEqual({ id: "rotating", type: "bearer_token", token: "tok-2", header_name: "X-Token", prefix: "Bearer" });
  });

  test("read refreshes the server's fields and keeps the inputs (secrets are never returned); a deleted one reads as gone", async () => {
    const inputs: CredentialInputs = { credentialId: "refreshed", type: "environment_variable", value: "v", injectionLocation: "header" };
    const { outs } = await provider.create(inputs);
    expect(await provider.read!("refreshed", outs)).toEqual({ id: "refreshed", props: outs });

    await emulator().json("/v1beta/credentials/refreshed", { method: "DELETE" });
    expect(await provider.read!("refreshed", outs)).toEqual({ id: "" });
    await expect(provider.remove!("refreshed", outs!)).resolves.toBeUndefined();
  });

  test("delete removes; a second delete is done", async () => {
    const { outs } = await provider.create({ ...bearer, credentialId: "deleted" });
    expect(await requestsDuring(() => provider.remove!("deleted", outs!))).toEqual(["DELETE /v1beta/credentials/deleted"]);
    expect((await emulator().json("/v1beta/credentials/deleted")).status).toBe(404);
    await expect(provider.remove!("deleted", outs!)).resolves.toBeUndefined();
  });

  test("a taken id fails create with what to do", async () => {
    await provider.create({ ...bearer, credentialId: "taken" });
    await expect(provider.create({ ...bearer, credentialId: "taken" })).rejects.toThrow(
      "credential taken already exists (another stack or program owns it?): choose another credentialId, or delete it first",
    );
  });
});

test("the secret properties are exactly the API's write-only fields", () => {
  expect(SECRET_PROPERTIES.map((property) => WIRE_FIELD[property]).sort()).toEqual(Object.values(CREDENTIAL_SECRET_FIELDS).flat().sort());
});

test("the default id is the name made valid, with a suffix fixed by project, stack and name", () => {
  const id = defaultCredentialId("github", "proj", "dev");
  expect(id).toMatch(/^github-[0-9a-f]{8}$/);
  expect(defaultCredentialId("github", "proj", "dev")).toBe(id);
  expect(defaultCredentialId("github", "proj", "prod")).not.toBe(id);
  expect(defaultCredentialId("_my token/1", "p", "s")).toMatch(/^c_my-token-1-[0-9a-f]{8}$/);
  expect(defaultCredentialId("x".repeat(300), "p", "s")).toHaveLength(128);
});
