// The reference examples in Python on the real engine: test/e2e/_reference.ts.
import { describeReferenceExamples } from "./_reference";

describeReferenceExamples("python");
