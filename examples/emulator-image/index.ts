/**
 * emulator-image: the emulator's container image (the repository's Dockerfile), built with
 * `@pulumi/docker-build` and loaded into the local Docker engine (`exports: docker`, nothing pushed).
 * Config (all optional): `context`, `tag`, `baseImage`, `baseLayout`, `builder`, `extraCaCertsFile`
 * (Pulumi.yaml says what each is).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as dockerBuild from "@pulumi/docker-build";

const config = new pulumi.Config();
const context = path.resolve(config.get("context") ?? path.join(__dirname, "..", ".."));
const tag = config.get("tag") ?? "genv-emulator:pulumi";
const baseImage = config.get("baseImage");
const baseLayout = config.get("baseLayout");
const builder = config.get("builder");
const extraCaCertsFile = config.get("extraCaCertsFile");

// A base that no registry serves (BuildKit cannot see the Docker engine's images): an OCI image layout
// on disk as a named context, which `FROM <name>` then means.
const OFFLINE_BASE = "genv-offline-base";

const buildArgs: Record<string, string> = {};
if (baseLayout) buildArgs.BASE_IMAGE = OFFLINE_BASE;
else if (baseImage) buildArgs.BASE_IMAGE = baseImage;
if (extraCaCertsFile) buildArgs.EXTRA_CA_CERTS = fs.readFileSync(extraCaCertsFile, "utf8");

const image = new dockerBuild.Image("emulator", {
  context: {
    location: context,
    ...(baseLayout && { named: { [OFFLINE_BASE]: { location: `oci-layout://${path.resolve(baseLayout)}` } } }),
  },
  dockerfile: { location: path.join(context, "Dockerfile") },
  buildArgs,
  tags: [tag],
  push: false,
  exports: [{ docker: { names: [tag] } }],
  ...(builder && { builder: { name: builder } }),
});

export const imageName = tag;
export const digest = image.digest;
export const ref = image.ref;
