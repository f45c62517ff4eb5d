/** `http` in the Terraform provider's startup snapshot (lazy-builtin.ts). */
import { lazyBuiltin } from "./lazy-builtin";

export = lazyBuiltin("node:http");
