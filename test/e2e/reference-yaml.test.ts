// The reference examples in Pulumi YAML on the real engine: test/e2e/_reference.ts.
import { describeReferenceExamples } from "./_reference";

describeReferenceExamples("yaml");
