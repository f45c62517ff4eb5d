/**
 * The native plugin as the engine sees it: `bin/pulumi-resource-gemini-environments` (of a package
 * installed from its `npm pack` tarball) started with an engine address, its port read from stdout,
 * and a client of the ResourceProvider service (`@pulumi/pulumi`'s own gRPC stubs) whose promise
 * methods take and return plain objects.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";

export const SECRET = (value: unknown) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value });

export interface PluginClient {
  process: ChildProcess;
  stderr(): string;
  version(): Promise<string>;
  schema(): Promise<Record<string, unknown>>;
  configure(args: Record<string, unknown>): Promise<{ acceptSecrets: boolean }>;
  checkConfig(news: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Array<{ property: string; reason: string }> }>;
  check(type: string, news: Record<string, unknown>, olds?: Record<string, unknown>): Promise<{ inputs: Record<string, unknown>; failures: Array<{ property: string; reason: string }> }>;
  diff(type: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<Diff>;
  create(type: string, properties: Record<string, unknown>): Promise<{ id: string; properties: Record<string, unknown> }>;
  read(type: string, id: string, properties?: Record<string, unknown>, inputs?: Record<string, unknown>): Promise<{ id: string; properties?: Record<string, unknown>; inputs?: Record<string, unknown> }>;
  update(type: string, id: string, olds: Record<string, unknown>, news: Record<string, unknown>, oldInputs?: Record<string, unknown>): Promise<Record<string, unknown>>;
  delete(type: string, id: string, properties: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export interface Diff {
  changes: "none" | "some" | "unknown";
  replaces: string[];
  diffs: string[];
  deleteBeforeReplace: boolean;
  detailedDiff?: Record<string, { kind: string; inputDiff: boolean }>;
}

const KINDS = ["add", "addReplace", "delete", "deleteReplace", "update", "updateReplace"];

export const urnOf = (type: string, name = "r") => `urn:pulumi:test::plugin::gemini-environments:index:${type}::${name}`;

/** Starts `launcher` (with `env` added to ours) and connects to it. */
export async function startPlugin(launcher: string, env: Record<string, string | undefined> = {}): Promise<PluginClient> {
  const child = spawn(launcher, ["127.0.0.1:1"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the plugin exited with ${code}: ${stderr}`)));
    child.stdout!.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  return connectPlugin(child, port, () => stderr);
}

/** A client of the plugin `child` serving on `port` (a plugin started some other way: under Wine, qemu). */
export function connectPlugin(child: ChildProcess, port: string, stderr: () => string): PluginClient {
  const client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  type Method = (request: unknown, callback: (error: grpc.ServiceError | null, response: unknown) => void) => unknown;
  const call = <Res>(method: string, request: unknown) =>
    new Promise<Res>((resolve, reject) =>
      ((client as unknown as Record<string, Method>)[method]).call(client, request, (error, response) => (error ? reject(error) : resolve(response as Res))),
    );
  const struct = (value: Record<string, unknown> | undefined) => (value === undefined ? undefined : Struct.fromJavaScript(value as never));
  const failuresOf = (response: proto.CheckResponse) => response.getFailuresList().map((failure) => ({ property: failure.getProperty(), reason: failure.getReason() }));

  return {
    process: child,
    stderr,
    async version() {
      return (await call<PluginInfo>("getPluginInfo", new Empty())).getVersion();
    },
    async schema() {
      return JSON.parse((await call<proto.GetSchemaResponse>("getSchema", new proto.GetSchemaRequest())).getSchema());
    },
    async configure(args) {
      const request = new proto.ConfigureRequest().setArgs(struct(args)).setAcceptsecrets(true).setAcceptresources(true);
      const response = await call<proto.ConfigureResponse>("configure", request);
      return { acceptSecrets: response.getAcceptsecrets() };
    },
    async checkConfig(news) {
      const request = new proto.CheckRequest().setUrn("urn:pulumi:test::plugin::pulumi:providers:gemini-environments::p").setOlds(struct({})).setNews(struct(news));
      const response = await call<proto.CheckResponse>("checkConfig", request);
      return { inputs: response.getInputs()!.toJavaScript() as Record<string, unknown>, failures: failuresOf(response) };
    },
    async check(type, news, olds = {}) {
      const response = await call<proto.CheckResponse>("check", new proto.CheckRequest().setUrn(urnOf(type)).setOlds(struct(olds)).setNews(struct(news)));
      return { inputs: response.getInputs()!.toJavaScript() as Record<string, unknown>, failures: failuresOf(response) };
    },
    async diff(type, id, olds, news) {
      const response = await call<proto.DiffResponse>("diff", new proto.DiffRequest().setUrn(urnOf(type)).setId(id).setOlds(struct(olds)).setNews(struct(news)));
      let detailed: Diff["detailedDiff"];
      if (response.getHasdetaileddiff()) {
        detailed = {};
        response.getDetaileddiffMap().forEach((value, key) => (detailed![key] = { kind: KINDS[value.getKind()], inputDiff: value.getInputdiff() }));
      }
      return {
        changes: (["unknown", "none", "some"] as const)[response.getChanges()],
        replaces: response.getReplacesList(),
        diffs: response.getDiffsList(),
        deleteBeforeReplace: response.getDeletebeforereplace(),
        ...(detailed && { detailedDiff: detailed }),
      };
    },
    async create(type, properties) {
      const response = await call<proto.CreateResponse>("create", new proto.CreateRequest().setUrn(urnOf(type)).setProperties(struct(properties)));
      return { id: response.getId(), properties: response.getProperties()!.toJavaScript() as Record<string, unknown> };
    },
    async read(type, id, properties, inputs) {
      const request = new proto.ReadRequest().setUrn(urnOf(type)).setId(id);
      if (properties) request.setProperties(struct(properties));
      if (inputs) request.setInputs(struct(inputs));
      const response = await call<proto.ReadResponse>("read", request);
      return {
        id: response.getId(),
        ...(response.getProperties() && { properties: response.getProperties()!.toJavaScript() as Record<string, unknown> }),
        ...(response.getInputs() && { inputs: response.getInputs()!.toJavaScript() as Record<string, unknown> }),
      };
    },
    async update(type, id, olds, news, oldInputs) {
      const request = new proto.UpdateRequest().setUrn(urnOf(type)).setId(id).setOlds(struct(olds)).setNews(struct(news));
      if (oldInputs) request.setOldInputs(struct(oldInputs));
      const response = await call<proto.UpdateResponse>("update", request);
      return response.getProperties()!.toJavaScript() as Record<string, unknown>;
    },
    async delete(type, id, properties) {
      await call<unknown>("delete", new proto.DeleteRequest().setUrn(urnOf(type)).setId(id).setProperties(struct(properties)));
    },
    async close() {
      client.close();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
