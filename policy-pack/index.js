// The policy pack the package ships: `pulumi preview --policy-pack node_modules/pulumi-gemini-environments/policy-pack`
// (rules and config: docs/policy-pack.md). The engine runs this dir with @pulumi/pulumi's run-policy-pack.
"use strict";
require("../dist/policy").runPolicyPack();
