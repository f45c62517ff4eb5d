import * as pulumi from "@pulumi/pulumi";
import { Credential, defaultCredentialId } from "../../../provider/credential/resource";
import { NetworkPolicy } from "../../../provider/components/network-policy";

// From repo sources the provider cannot be closure-serialized (the e2e tests run it from the packed
// package); here the serialized text is a stub.
jest.mock("@pulumi/pulumi/runtime/closure/serializeClosure", () => ({
  serializeFunction: async () => ({ text: "exports.handler = undefined;", containsSecrets: false }),
}));

beforeAll(() => {
  pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: String(args.inputs.credentialId), state: args.inputs }),
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    false,
  );
});

function resolved<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((done) => output.apply(done));
}

test("secret inputs become Pulumi secrets; the default id is the name with a stable suffix", async () => {
  const credential = new Credential("github", { type: "bearer_token", token: "ghp_plain" });
  expect(await resolved(credential.credentialId)).toBe(defaultCredentialId("github", "project", "stack"));
  const token = (credential as unknown as { token: pulumi.Output<string> }).token;
  expect(await pulumi.isSecret(token)).toBe(true);
  expect(await pulumi.isSecret(credential.credentialId)).toBe(false);
});

test("NetworkPolicy.allow takes a Credential (its credentialId) or an id", async () => {
  const credential = new Credential("gh", { credentialId: "gh-token", type: "bearer_token", token: pulumi.secret("t") });
  const network = NetworkPolicy.allowlist().allow("api.github.com", { credential }).allow("api.example.com", { credential: "other" }).toNetworkArgs();
  const entries = (network as { allowlist: Array<{ domain: string; credential: pulumi.Input<string> }> }).allowlist;
  expect(await resolved(pulumi.output(entries[0].credential))).toBe("gh-token");
  expect(entries[1].credential).toBe("other");
  expect(() => NetworkPolicy.allowlist().allow("a.example.com", { credential: "" })).toThrow(/^NetworkPolicy.allow: credential: /);
});
