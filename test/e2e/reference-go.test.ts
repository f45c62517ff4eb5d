// The reference examples in Go on the real engine: test/e2e/_reference.ts. The Go language host
// compiles each program (seconds once Go's build cache holds github.com/pulumi/pulumi/sdk/v3).
import { goToolchainNeeds } from "../support/go";
import { describeReferenceExamples } from "./_reference";

describeReferenceExamples("go", goToolchainNeeds(), 10 * 60_000);
