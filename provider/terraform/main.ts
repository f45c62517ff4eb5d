/**
 * `terraform-provider-geminienvironments`: what Terraform and OpenTofu run, from the plugin's single
 * executable (plugin/single-executable.ts picks this entry by the executable's name) or from the
 * Node.js launcher bin/terraform-provider-geminienvironments. server.ts says how it talks to them.
 */
import { serve, startedByTerraform, NOT_A_COMMAND } from "./server";

/** How often it looks whether Terraform is still its parent. */
const PARENT_CHECK_MS = 1_000;

if (!startedByTerraform()) {
  process.stderr.write(NOT_A_COMMAND);
  process.exitCode = 1;
} else {
  // The provider (the schema, zod, the cores) loads once the handshake line is out.
  serve(() => (require("./provider") as typeof import("./provider")).terraformProvider()).then(
    () => exitWithParent(),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * Terraform stops its providers through GRPCController.Shutdown; a Terraform killed (SIGKILL, a
 * cancelled CI job) tells them nothing, and the gRPC server would serve on: the plugin leaves once
 * it is orphaned (its parent is no longer the process that started it).
 */
function exitWithParent(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(1);
  }, PARENT_CHECK_MS).unref();
}
