// Jest runs each test file in its own vm context, where Node's built-in fetch never registers the
// undici global dispatcher that @google/genai's download path looks up. Loading undici registers
// one in this context, as Node does in a real process.
import { getGlobalDispatcher } from "undici";

getGlobalDispatcher();
