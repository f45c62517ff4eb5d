/**
 * `terraform-provider-geminienvironments`: what Terraform and OpenTofu run, from the Node.js launcher
 * bin/terraform-provider-geminienvironments (the single executable starts it from its snapshot:
 * plugin/single-executable.ts). server.ts says how it talks to them.
 */
import { startTerraformProvider } from "./start";

startTerraformProvider();
