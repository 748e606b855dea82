import { fail, parseCommandLine, runCommand } from "./lib/cli";

const HELP = `npm run token -- [--user <id>] [--base <url>]

A pilot's access token from the running service (POST /auth/v1/anonymous/token), through the typed
client of worker/client.ts. Prints the pilot id, then the token alone on the last line.

  --user <id>   the caller-chosen user id (default: pilot-1); the same id gives the same pilot
  --base <url>  the service (default: $WINDSOCK_URL, else http://127.0.0.1:$PORT, PORT default 8787)

The API key is WINDSOCK_API_KEY, else the development key \`npm start\` wrote to STATE_DIR.`;

const { values } = parseCommandLine({
  help: HELP,
  options: { user: { type: "string", default: "pilot-1" }, base: { type: "string" } },
});

runCommand(async () => {
  const [{ readFileSync }, path, { STATE_DIR }, { serviceUrl }, { windsock }] = await Promise.all([
    import("node:fs"),
    import("node:path"),
    import("./lib/config"),
    import("./lib/serviceAddress"),
    import("../worker/client"),
  ]);
  const base = values.base ?? serviceUrl();
  let apiKey = process.env.WINDSOCK_API_KEY;
  if (!apiKey) {
    try {
      apiKey = readFileSync(path.join(STATE_DIR, "dev-api-key"), "utf8").trim();
    } catch {
      fail(`no API key: set WINDSOCK_API_KEY, or run \`npm start\` (it writes ${STATE_DIR}/dev-api-key)`);
    }
  }
  const api = windsock(base, { apiKey });
  const res = await api.auth.v1.anonymous.token.$post({ json: { user_id: values.user } });
  const body = await res.json();
  if (body.status !== "success") fail(`${res.status}: ${body.data.message}`);
  const token = body.data.id_token;
  const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
  console.log(`pilot id (the token's sub): ${claims.sub}`);
  console.log(token);
});
