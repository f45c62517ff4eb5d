// The reference examples in Python on the real engine: test/e2e/_reference.ts.
import { describeReferenceExamples } from "./_reference";

// The first program's stack makes the venv of scripts/python-sdk-venv when it is not cached (minutes).
describeReferenceExamples("python", {}, 10 * 60_000);
