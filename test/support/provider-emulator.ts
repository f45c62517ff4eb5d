/**
 * For tests that call provider methods directly: a real emulator for the file, and for each test the
 * environment variables a provider reads (GOOGLE_API_KEY, GOOGLE_GEMINI_BASE_URL) pointing at it,
 * with no stack config; both restored after.
 */
import { setStackConfig } from "../../provider/contracts/configuration";
import { startTestEmulator, TEST_KEY, type TestEmulator } from "./emulator";

/** Call at the top of a test file; the returned getter gives the running emulator inside tests. */
export function useProviderEmulator(): () => TestEmulator {
  let emulator: TestEmulator;
  const savedEnv = { ...process.env };
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  beforeEach(() => {
    process.env.GOOGLE_API_KEY = TEST_KEY;
    process.env.GOOGLE_GEMINI_BASE_URL = emulator.url;
    setStackConfig({ get: () => undefined });
  });
  afterEach(() => {
    process.env = { ...savedEnv };
  });
  afterAll(() => emulator.close());
  return () => emulator;
}
