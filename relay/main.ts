import { runCommand } from "./command";
import { HELP, readConfig } from "./config";
import { startRelay } from "./relay";

/** Entry point: `tsx relay/main.ts --help`. */
runCommand({ name: "relay", help: HELP, readConfig, start: startRelay });
