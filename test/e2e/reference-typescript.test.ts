// The reference examples in TypeScript on the real engine: test/e2e/_reference.ts.
import { describeReferenceExamples } from "./_reference";

describeReferenceExamples("typescript");
